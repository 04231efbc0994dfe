"""A streaming message cut into Markdown chunks, so that an update touches a bounded piece of it.

The widget shows a message as Markdown with raw HTML, links and images escaped (`escape_markdown`).
Escaping and sending the whole message at every streamed update made each update cost as much as the
message is long. A message is read here as a run of chunks: once the last chunk has grown past
`CHUNK_CHARS`, it is closed at the next line where Markdown starts afresh, and never changes again.

Where Markdown starts afresh: a line after a blank line, outside a code fence and outside `$$` display
math, not indented and not a list item. Everything before such a line renders the same whatever
follows it (a blank line ends a paragraph, table or block quote; a line at the margin that is no list
item ends a list or an indented code block; raw HTML and link reference definitions are escaped, so
none spans lines). JupyterLab ends math at a blank line, but other renderers (nbconvert's, VS Code's)
let `$$ ... $$` span one, so a chunk is never closed while a `$$` is open. So the chunks, each
rendered alone, read as the whole message does, and `escape_markdown` of the chunks, joined, is
`escape_markdown` of the whole.
"""

from __future__ import annotations

import re

from twnb.render import FENCE_OPEN, clean_text, escape_markdown

CHUNK_CHARS = 2048  # a chunk closes at the first fresh start past this many characters
_LIST_ITEM = re.compile(r"(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")


class FenceReader:
    """Reads a message line by line (as shown: delimiters removed) and knows whether a code fence is
    open, with the same opening and closing rules as `markdown_escape.split_fences`."""

    def __init__(self) -> None:
        self._closing: re.Pattern[str] | None = None

    @property
    def in_fence(self) -> bool:
        return self._closing is not None

    def read(self, line: str) -> None:
        if self._closing is None:
            opened = FENCE_OPEN.match(line)
            if opened is not None:
                marker = opened.group(1)
                self._closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}\s*$")
        elif self._closing.match(line):
            self._closing = None  # the fence is closed: its block can no longer change


def starts_afresh(previous_line: str, line: str) -> bool:
    """Whether `line`, following `previous_line` outside a code fence (both as shown), starts Markdown
    afresh: nothing before it can change how it renders, nor it how anything before renders."""
    return not previous_line.strip() and line[:1] not in ("", " ", "\t") and not _LIST_ITEM.match(line)


def chunk_markdown(source: str) -> tuple[str, str]:
    """One chunk as shown: (escaped Markdown, plain text)."""
    shown = clean_text(source)
    return escape_markdown(shown, links=True), shown


class MarkdownChunks:
    """One growing message as closed chunks (which never change) and a live last chunk.

    `append` costs what the appended text and the live chunk cost, not what the message does. Each
    chunk after the first starts afresh (see `starts_afresh`); each closed one holds at least
    `chunk_chars` characters. A message with no fresh start (one long code block or list) stays one
    live chunk.
    """

    def __init__(self, chunk_chars: int = CHUNK_CHARS) -> None:
        self._chunk_chars = chunk_chars
        self.clear()

    def clear(self) -> None:
        self.closed: list[str] = []  # the closed chunks' text, as received
        self.live = ""  # the last chunk's text, still growing
        self._read = 0  # how many characters of `live` were read as complete lines
        self._fences = FenceReader()
        self._math_open = False  # an odd number of `$$` read outside code fences
        self._previous = "x"  # the last line read, as shown (not blank: the message's start is no break)
        self._start_live()

    def _start_live(self) -> None:
        self._settled = 0  # how many characters of `live` are complete lines outside a code fence
        self._escaped = 0  # how many of those `_markdown` and `_plain` hold
        self._markdown = ""
        self._plain = ""

    @property
    def text(self) -> str:
        return "".join(self.closed) + self.live

    def replace(self, text: str) -> bool:
        """Make the message `text`; False when that was not an append (the chunks started afresh)."""
        current = self.text
        if text.startswith(current):
            self.append(text[len(current) :])
            return True
        self.clear()
        self.append(text)
        return False

    def append(self, text: str) -> None:
        self.live += text
        while (end := self.live.find("\n", self._read)) != -1:
            start, line = self._read, clean_text(self.live[self._read : end])
            if (
                start >= self._chunk_chars
                and not self._fences.in_fence
                and not self._math_open
                and starts_afresh(self._previous, line)
            ):
                self.closed.append(self.live[:start])
                self.live = self.live[start:]
                end -= start
                self._start_live()
            was_in_fence = self._fences.in_fence
            self._fences.read(line)
            if not was_in_fence and not self._fences.in_fence and line.count("$$") % 2:
                self._math_open = not self._math_open
            self._previous = line
            self._read = end + 1
            if not self._fences.in_fence:
                self._settled = self._read

    def live_markdown(self) -> tuple[str, str]:
        """The live chunk as `chunk_markdown` gives it, escaping only what changed since its settled
        lines: those render the same whatever follows, so they are escaped once and kept."""
        if self._settled > self._escaped:
            markdown, plain = chunk_markdown(self.live[self._escaped : self._settled])
            self._markdown += markdown
            self._plain += plain
            self._escaped = self._settled
        markdown, plain = chunk_markdown(self.live[self._settled :])
        return self._markdown + markdown, self._plain + plain
