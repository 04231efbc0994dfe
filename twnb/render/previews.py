"""Previews: small images of the artifact files a Round made, so a saved notebook shows them.

Saved notebooks stay small: an artifact image the Round's own code displayed is already in that
execution's captured outputs (and in the cell), so its preview names that output as well, and every
preview is a thumbnail bounded in bytes.
"""

from __future__ import annotations

import base64
import hashlib
import io
import mimetypes
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from twnb.memory import DEFAULT_SESSION_FOLDER, ArtifactPlaces, Post, Round
from twnb.render.links import display_path

PREVIEW_CAP_BYTES = 256 * 1024
THUMBNAIL_SIDE = 320  # pixels: enough to recognise a plot in a list of Rounds
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg"})
_BASE64_IMAGES = ("image/png", "image/jpeg", "image/gif")


def artifact_previews(
    round: Round, base_dir: str | Path | None = None, *, cap_bytes: int = PREVIEW_CAP_BYTES
) -> list[dict[str, Any]]:
    """A preview per image artifact of `round`, each at most `cap_bytes` of image data.

    Each preview holds a thumbnail (`"data"`, base64; at most THUMBNAIL_SIDE pixels a side when Pillow
    is installed, else the image itself when it fits the cap); `"omitted"` says why when neither fits.
    An image the Round's code displayed also names where the full image is in that execution's
    captured outputs (`"output": {"post_id", "attachment_id", "index"}`). Only files in `base_dir`'s
    tree (and its session folder) are read, symlinks resolved, hidden ones not: a loaded conversation,
    or a symlink the code left, may name any file, and a preview would carry its bytes into the notebook.
    """
    previews: list[dict[str, Any]] = []
    seen: set[str] = set()
    # Found at the first image: most Rounds name none, and an export makes previews for every Round.
    shown: dict[str, dict[str, Any]] | None = None
    places = None
    for path_text in _artifact_paths(round):
        if path_text in seen:
            continue
        seen.add(path_text)
        path = Path(path_text)
        if not path.is_absolute() and base_dir is not None:
            path = Path(base_dir) / path
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        if shown is None:
            shown = displayed_images(round)
            if base_dir is not None:
                places = ArtifactPlaces.of([base_dir, Path(base_dir) / DEFAULT_SESSION_FOLDER])
        name = display_path(path, base_dir)
        if places is not None and path.exists() and places.admits(path) is None:
            mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            previews.append({"path": name, "mime": mime, "omitted": "not a file in the notebook's folder"})
            continue
        previews.append(_preview(path, name, cap_bytes, shown))
    return previews


def displayed_images(round_or_posts: Round | Iterable[Post]) -> dict[str, dict[str, Any]]:
    """The images the code displayed, from the `execution_result` attachments' captured outputs:
    sha256 of the image bytes -> where the output is (`post_id`, `attachment_id`, `index`)."""
    posts = round_or_posts.post_list if isinstance(round_or_posts, Round) else round_or_posts
    found: dict[str, dict[str, Any]] = {}
    for post in posts:
        for attachment in post.attachment_list:
            if attachment.type.value != "execution_result":
                continue
            for index, output in enumerate((attachment.extra or {}).get("outputs") or []):
                data = output.get("data") if isinstance(output, Mapping) else None
                for mime in _BASE64_IMAGES:
                    raw = _decoded(data.get(mime)) if isinstance(data, Mapping) else None
                    if raw is not None:
                        where = {"post_id": post.id, "attachment_id": attachment.id, "index": index}
                        found.setdefault(hashlib.sha256(raw).hexdigest(), where)
    return found


def _decoded(payload: Any) -> bytes | None:
    if isinstance(payload, list):  # nbformat allows multi-line strings as lists
        payload = "".join(payload)
    if not isinstance(payload, str):
        return None
    try:
        return base64.b64decode(payload)
    except ValueError:
        return None


def _artifact_paths(round: Round) -> Iterable[str]:
    for post in round.post_list:
        for attachment in post.attachment_list:
            if attachment.type.value == "artifact_paths":
                yield from (str(path) for path in attachment.content)


def _preview(path: Path, name: str, cap_bytes: int, shown: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    try:
        raw = path.read_bytes()
    except OSError as error:
        return {"path": name, "mime": mime, "omitted": f"cannot read the file: {error.strerror or error}"}
    preview: dict[str, Any] = {"path": name, "mime": mime}
    output = shown.get(hashlib.sha256(raw).hexdigest())
    if output is not None:
        preview["output"] = dict(output)  # the full image, in the Round's captured outputs
    # A thumbnail, not the image again: the full image is on disk and, when displayed, in the Round.
    thumb = _thumbnail(raw, cap_bytes, THUMBNAIL_SIDE)
    if thumb is not None and len(thumb) < len(raw):
        raw, preview["mime"] = thumb, "image/png"
    elif len(raw) > cap_bytes:
        preview["size"] = len(raw)
        preview["omitted"] = f"larger than {cap_bytes // 1024} KB and no smaller thumbnail could be made"
        return preview
    preview["size"] = len(raw)
    preview["data"] = base64.b64encode(raw).decode("ascii")
    return preview


def _thumbnail(raw: bytes, cap_bytes: int, side: int) -> bytes | None:
    """A PNG at most `side` pixels on its longer side and `cap_bytes` long (smaller sides if needed);
    None without Pillow (optional; matplotlib brings it) or for what Pillow cannot read (SVG)."""
    try:
        from PIL import Image  # lazy: PIL (~9 ms), optional, for image previews only
    except ImportError:
        return None
    try:
        image = Image.open(io.BytesIO(raw))
        image.load()
    except Exception:  # not an image Pillow reads (SVG, a broken file): no thumbnail
        return None
    while side >= 32:
        copy = image.copy()
        copy.thumbnail((side, side))
        out = io.BytesIO()
        copy.save(out, format="PNG", optimize=True)
        if out.tell() <= cap_bytes:
            return out.getvalue()
        side //= 2
    return None
