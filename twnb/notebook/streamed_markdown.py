"""A streaming message as escaped Markdown, at a cost per update that does not grow with its length.

The widget shows a message as Markdown with raw HTML, links and images escaped (`escape_markdown`).
Escaping the whole message again at every streamed update made a long message cost quadratic time. A
line that is complete and not inside an open code fence renders the same whatever follows it, so such
lines are cleaned and escaped once and kept; each update escapes only the lines after them.
"""

from __future__ import annotations

import re

from twnb.render.markdown_escape import FENCE_OPEN, escape_markdown
from twnb.render.text import clean_text


def settled_length(text: str) -> int:
    """How many leading characters of `text` are complete lines (each ending in a newline) outside an
    open code fence, read as shown (delimiters removed): what later text can no longer change."""
    settled, position = 0, 0
    closing: re.Pattern[str] | None = None
    while (end := text.find("\n", position)) != -1:
        line = clean_text(text[position:end])  # a delimiter removed may leave a fence marker
        if closing is None:
            opened = FENCE_OPEN.match(line)
            if opened is not None:  # the same closing rule as markdown_escape.split_fences
                marker = opened.group(1)
                closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}\s*$")
        elif closing.match(line):
            closing = None  # the fence is closed: its block can no longer change
        position = end + 1
        if closing is None:
            settled = position
    return settled


class StreamedMarkdown:
    """One growing message: `render(text)` gives (Markdown, plain text) as `escape_markdown` and
    `clean_text` would for the whole text, escaping only what changed since the settled lines."""

    def __init__(self) -> None:
        self._source = ""  # the settled lines, as received
        self._markdown = ""  # ... escaped
        self._plain = ""  # ... cleaned

    def render(self, text: str) -> tuple[str, str]:
        if not text.startswith(self._source):  # replaced, not appended to (a retry, a commit)
            self._source = self._markdown = self._plain = ""
        rest = text[len(self._source) :]
        settled = settled_length(rest)
        if settled:
            chunk = clean_text(rest[: settled - 1])  # without its last newline
            self._markdown += escape_markdown(chunk, links=True) + "\n"
            self._plain += chunk + "\n"
            self._source += rest[:settled]
            rest = rest[settled:]
        tail = clean_text(rest)
        return self._markdown + escape_markdown(tail, links=True), self._plain + tail
