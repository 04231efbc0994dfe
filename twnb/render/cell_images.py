"""Images a Round's code displayed in its own cell: saved once, as the cell's own output.

The code of a `%%taskweaver` cell runs in that cell, so every image it displays (a matplotlib figure
through the inline backend) is already one of the cell's outputs, which every frontend shows: JupyterLab
and Notebook 7 with or without the extension, nbconvert's HTML, an untrusted render. The Round's final
bundle, saved beside it in the same cell, refers to such an image instead of carrying it again: its
captured output keeps the image's sha256 in place of the bytes (`IN_CELL_KEY` in the output's metadata)
and its preview says where the image is, without a thumbnail. A saved plot Round then holds the PNG once.

Reading the notebook back (twnb/replay/notebook_import.py) puts the bytes back from the same cell's
outputs (`with_images_from_cell`), so a conversation read from a notebook is the one that was saved.
A Round shown anywhere else (`%taskweaver show`, an export) carries its images as before.
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

IN_CELL_NOTE = "shown in the cell's output"  # the words the live widget uses too
IN_CELL_KEY = "twnb_in_cell"  # an output's metadata: MIME type -> sha256 of the image left in the cell
IMAGE_MIMES = ("image/png", "image/jpeg", "image/gif")


def image_digest(value: Any) -> str | None:
    """sha256 of a base64 image as nbformat stores it (a string, or a list of lines); None otherwise."""
    if isinstance(value, list):
        value = "".join(str(part) for part in value)
    if not isinstance(value, str):
        return None
    try:
        return hashlib.sha256(base64.b64decode(value)).hexdigest()
    except (ValueError, binascii.Error):
        return None


def leave_images_in_cell(post_list: Iterable[Any]) -> None:
    """Take the displayed images out of the captured outputs in `post_list` (plain data, changed in
    place), each replaced by its digest under the output's metadata `IN_CELL_KEY`."""
    for output in _captured_outputs(post_list):
        data = output.get("data")
        if not isinstance(data, dict) or output.get("output_type") not in ("display_data", "execute_result"):
            continue
        left: dict[str, str] = {}
        for mime in IMAGE_MIMES:
            digest = image_digest(data.get(mime))
            if digest is not None:
                left[mime] = digest
                del data[mime]
        if left:
            metadata = output.get("metadata")
            output["metadata"] = {**(metadata if isinstance(metadata, dict) else {}), IN_CELL_KEY: left}


def previews_in_cell(previews: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """`previews` with each image the code displayed (the preview names its output) drawn by the cell's
    own output: no thumbnail, and the note saying where it is."""
    found: list[dict[str, Any]] = []
    for preview in previews:
        kept = dict(preview)
        if isinstance(kept.get("output"), Mapping) and not kept.get("omitted"):
            kept.pop("data", None)
            kept.pop("size", None)
            kept["omitted"] = IN_CELL_NOTE
        found.append(kept)
    return found


def with_images_from_cell(payload: Mapping[str, Any], cell_outputs: Iterable[Any]) -> dict[str, Any]:
    """A copy of the Round `payload` whose images left in the cell are back, from `cell_outputs` (the
    outputs of the cell the payload was saved in). An image the cell no longer holds stays out, its
    digest kept: nothing is made up."""
    images: dict[str, Any] = {}
    for output in cell_outputs:
        data = output.get("data") if isinstance(output, Mapping) else None
        if not isinstance(data, Mapping):
            continue
        for mime in IMAGE_MIMES:
            digest = image_digest(data.get(mime))
            if digest is not None:
                images.setdefault(digest, data[mime])
    restored = copy.deepcopy(dict(payload))
    for output in _captured_outputs(restored.get("post_list") or []):
        metadata = output.get("metadata")
        left = metadata.get(IN_CELL_KEY) if isinstance(metadata, dict) else None
        data = output.get("data")
        if not isinstance(left, dict) or not isinstance(data, dict):
            continue
        for mime, digest in list(left.items()):
            if digest in images:
                data[mime] = images[digest]
                del left[mime]
        if not left and isinstance(metadata, dict):
            del metadata[IN_CELL_KEY]
    return restored


def _captured_outputs(post_list: Iterable[Any]) -> Iterable[dict[str, Any]]:
    for post in post_list:
        attachments = post.get("attachment_list") if isinstance(post, Mapping) else None
        for attachment in attachments or []:
            if not isinstance(attachment, Mapping) or attachment.get("type") != "execution_result":
                continue
            extra = attachment.get("extra")
            outputs = extra.get("outputs") if isinstance(extra, Mapping) else None
            for output in outputs or []:
                if isinstance(output, dict):
                    yield output
