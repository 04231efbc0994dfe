"""Large text outputs: cut in the notebook, the full text kept in a file beside it.

A notebook with a megabyte of printed rows is slow to open in every viewer; the reader needs the head
and a way to the rest. The cut keeps the start and the end and names the file holding everything.
The conversation in the notebook's metadata keeps the full outputs either way.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_OUTPUT_CHARS = 50_000
_TEXT_MIMES = ("text/plain", "text/html", "text/markdown", "text/latex")


def text_of(value: Any) -> str:
    """nbformat allows multi-line strings as lists of lines."""
    return "".join(value) if isinstance(value, list) else str(value)


def cut_large_outputs(
    outputs: list[dict[str, Any]], *, keep: Callable[[str, str], str], limit: int = MAX_OUTPUT_CHARS
) -> list[dict[str, str]]:
    """Cut, in place, every stream text and text MIME value longer than `limit`; `keep(text, suffix)`
    writes the full text and returns its path relative to the notebook. Returns what was cut."""
    cuts: list[dict[str, str]] = []
    for index, output in enumerate(outputs):
        if output.get("output_type") == "stream":
            text = text_of(output.get("text", ""))
            if len(text) > limit:
                kept = keep(text, ".txt")
                output["text"] = _cut(text, limit, kept)
                cuts.append({"output": str(index), "file": kept})
        for mime in _TEXT_MIMES:
            data = output.get("data") or {}
            if mime in data and len(text_of(data[mime])) > limit:
                text = text_of(data[mime])
                kept = keep(text, ".html" if mime == "text/html" else ".txt")
                data[mime] = _cut(text, limit, kept, html=mime == "text/html")
                cuts.append({"output": str(index), "mime": mime, "file": kept})
    return cuts


def _cut(text: str, limit: int, kept: str, *, html: bool = False) -> str:
    head, tail = text[: limit * 3 // 4], text[-(limit // 4) :]
    left_out = len(text) - len(head) - len(tail)
    note = f"[... {left_out:,} characters left out here; the full output is in {kept} ...]"
    if html:  # a cut HTML fragment could leave a tag open: show the head only, as text around it
        return f"<pre>{_escape(head)}</pre><p>{_escape(note)}</p>"
    return f"{head}\n{note}\n{tail}"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def output_keeper(out_dir: Path, folder: str, stem: str) -> Callable[[str, str], str]:
    """A `keep` for `cut_large_outputs`: files `folder/<stem>-output-N.txt` beside the notebook."""
    count = 0

    def keep(text: str, suffix: str) -> str:
        nonlocal count
        count += 1
        relative = f"{folder}/{stem}-output-{count}{suffix}"
        path = out_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return relative

    return keep
