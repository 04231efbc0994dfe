"""Text that may grow without bound (a 10 MB print) kept as head + tail with an honest omission note."""

from __future__ import annotations


def omission_note(omitted: int, what: str) -> str:
    return f"\n[... {omitted:,} characters of {what} omitted ...]\n"


def head_and_tail(text: str, max_chars: int, *, what: str = "output", head_share: float = 0.5) -> str:
    """`text` if it fits, else its head and tail around a note saying how much was cut."""
    if len(text) <= max_chars:
        return text
    room = max(0, max_chars - len(omission_note(len(text), what)))  # the note counts against the budget
    head = int(room * head_share)
    tail = room - head
    omitted = len(text) - head - tail
    return text[:head] + omission_note(omitted, what) + (text[-tail:] if tail else "")


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
