"""A Round's static MIME bundle: the four views a saved notebook keeps once the Round has ended."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twnb.render.html import round_html
from twnb.render.payload import MIME_TYPE, round_payload
from twnb.render.plain import round_text
from twnb.render.summary import round_summary_markdown, round_summary_text

if TYPE_CHECKING:
    from twnb.memory import Plan, Round


def round_bundle(
    round: Round,
    *,
    session_id: str,
    plan: Plan | None = None,
    previews: Sequence[Mapping[str, Any]] | None = None,
    base_dir: str | Path | None = None,
    conversation_id: str | None = None,
    in_cell: bool = False,
) -> dict[str, Any]:
    """`round` (a twnb.memory.Round) as `application/vnd.twnb.round+json`, `text/html`,
    `text/markdown` and `text/plain`; no widget view, so every viewer shows it after a reopen.

    `base_dir` is the notebook's folder: artifact paths inside it are written relative to it.
    `in_cell`: shown in the cell the Round's code ran in, whose own outputs hold the images the code
    displayed: the bundle refers to them, each image is saved once (cell_images.py)."""
    payload = round_payload(
        round,
        session_id=session_id,
        plan=plan,
        previews=previews,
        base_dir=base_dir,
        conversation_id=conversation_id,
        in_cell=in_cell,
    )
    return bundle_from_payload(payload)


def bundle_from_payload(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The four views of a Round's MIME JSON (for a Round read back from a saved notebook, too): the
    JSON and the HTML each show the Round whole, the Markdown and the text summarise it (summary.py)."""
    return {
        MIME_TYPE: dict(payload),
        "text/html": round_html(payload),
        "text/markdown": round_summary_markdown(payload),
        "text/plain": round_summary_text(payload),
    }


def terminal_bundle(bundle: Mapping[str, Any]) -> dict[str, Any]:
    """`bundle` for a terminal, which prints only `text/plain` and saves nothing: the whole Round as
    text (plain.round_text) instead of the summary a saved notebook keeps."""
    return {**bundle, "text/plain": round_text(bundle[MIME_TYPE])}
