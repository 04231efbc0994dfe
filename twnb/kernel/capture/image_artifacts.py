"""Saving the image in a display (a matplotlib figure, say) as a file in the artifacts folder."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Preferred order when a display offers several images of the same picture.
_IMAGE_TYPES = {
    "image/png": (".png", True),
    "image/jpeg": (".jpg", True),
    "image/gif": (".gif", True),
    "image/svg+xml": (".svg", False),
    "application/pdf": (".pdf", True),
}


def save_display_image(
    data: dict[str, Any], artifacts_dir: Path, stem: str, replaceable: Callable[[Path], bool] | None = None
) -> Path | None:
    """Write the display's image to `artifacts_dir/stem.ext`, or `stem-2.ext`, `stem-3.ext`, ... when
    that name is taken (never over an earlier file, unless `replaceable` says that file may go: a
    replay names its files as its recording did); None when the display holds no image.

    Raises ValueError when the image data is not valid base64 (a broken display must be reported, not
    saved as a corrupt file).
    """
    for mime, (suffix, is_base64) in _IMAGE_TYPES.items():
        if mime not in data:
            continue
        payload = data[mime]
        if isinstance(payload, list):  # nbformat allows multi-line strings as lists
            payload = "".join(payload)
        if not isinstance(payload, str | bytes):
            continue
        if is_base64:
            try:
                content = base64.b64decode(payload, validate=False)
            except (binascii.Error, ValueError) as exc:
                raise ValueError(f"display {stem}: {mime} data is not valid base64 ({exc})") from exc
        else:
            content = payload.encode("utf-8") if isinstance(payload, str) else payload
        artifacts_dir.mkdir(parents=True, exist_ok=True)
        return _write_new(artifacts_dir, stem, suffix, content, replaceable)
    return None


def _write_new(
    folder: Path, stem: str, suffix: str, content: bytes, replaceable: Callable[[Path], bool] | None
) -> Path:
    number = 1
    while True:
        path = folder / (f"{stem}{suffix}" if number == 1 else f"{stem}-{number}{suffix}")
        try:
            with path.open("xb") as file:  # exclusive: a name taken meanwhile is never overwritten
                file.write(content)
            return path
        except FileExistsError:
            if replaceable is not None and replaceable(path):
                path.write_bytes(content)
                return path
            number += 1
