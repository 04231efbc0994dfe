"""The one way twnb clips text: at most a given number of characters, and a cut always says so.

Text is clipped whole (`clip`: a header, a prompt's older output, a view's result) or as it is written
(`BoundedText`: a 10 MB print, kept as its head and tail while it streams). Both say what they cut with
`omission_note` when they keep the end of the text too.
"""

from __future__ import annotations

from typing import Literal


def omission_note(omitted: int, what: str) -> str:
    """The line that stands where `omitted` characters of `what` were cut from the middle."""
    return f"\n[... {omitted:,} characters of {what} omitted ...]\n"


def clip(
    text: str,
    limit: int | None,
    *,
    one_line: bool = False,
    keep: Literal["start", "ends"] = "start",
    count: bool = False,
    what: str = "text",
    head_share: float = 0.5,
) -> str:
    """`text` cut to `limit` characters (None: the whole text).

    - `one_line`: runs of whitespace become one space first (headers, digests, table cells).
    - `keep="start"`: the start stays and an ellipsis ends it, within `limit`; with `count`, the
      start keeps `limit` characters and a line after it says how many more there were (a prompt's
      older outputs: the model is told what it does not see).
    - `keep="ends"`: the start and the end stay (where errors and answers are) around `omission_note`
      naming `what` was cut, all within `limit`; `head_share` is the start's part of what stays.
    """
    if one_line:
        text = " ".join(text.split())
    if limit is None or len(text) <= limit:
        return text
    if keep == "ends":
        room = max(0, limit - len(omission_note(len(text), what)))  # the note counts against the limit
        head = int(room * head_share)
        tail = room - head
        return text[:head] + omission_note(len(text) - head - tail, what) + (text[-tail:] if tail else "")
    if count:
        return text[:limit].rstrip() + f"\n… ({len(text) - limit} more characters)"
    return text[: max(limit - 1, 0)].rstrip() + "…"


class BoundedText:
    """Accumulates written text keeping at most `head_chars` from the start and `tail_chars` from the end.

    Memory stays bounded whatever is written; `total` counts every character ever written so the
    truncation is reported honestly.
    """

    def __init__(self, head_chars: int, tail_chars: int, what: str = "output") -> None:
        self.head_chars = head_chars
        self.tail_chars = tail_chars
        self.what = what
        self.total = 0
        self._head: list[str] = []
        self._head_len = 0
        self._tail: list[str] = []
        self._tail_len = 0

    @property
    def truncated(self) -> bool:
        return self.total > self._head_len + self._tail_len

    def write(self, text: str) -> str:
        """Add `text`; return the part of it that went into the head (the rest went to the tail)."""
        self.total += len(text)
        room = self.head_chars - self._head_len
        into_head = text[:room] if room > 0 else ""
        if into_head:
            self._head.append(into_head)
            self._head_len += len(into_head)
        rest = text[len(into_head) :]
        if rest:
            self._push_tail(rest)
        return into_head

    def _push_tail(self, text: str) -> None:
        if self.tail_chars <= 0:
            return
        if len(text) >= self.tail_chars:
            self._tail = [text[-self.tail_chars :]]
            self._tail_len = self.tail_chars
            return
        self._tail.append(text)
        self._tail_len += len(text)
        if self._tail_len > 2 * self.tail_chars:  # compact now and then, not on every write
            joined = "".join(self._tail)[-self.tail_chars :]
            self._tail = [joined]
            self._tail_len = len(joined)

    def head(self) -> str:
        return "".join(self._head)

    def tail(self) -> str:
        joined = "".join(self._tail)
        return joined[-self.tail_chars :] if self.tail_chars else ""

    def omitted(self) -> int:
        return self.total - self._head_len - len(self.tail())

    def text(self) -> str:
        omitted = self.omitted()
        if omitted <= 0:
            return self.head() + self.tail()
        return self.head() + omission_note(omitted, self.what) + self.tail()
