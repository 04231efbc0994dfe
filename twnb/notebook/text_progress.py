"""The Round as printed lines, for shells without a widget frontend (terminal IPython, a bare shell).

Only the milestones are printed (status changes, each committed post, a failure): the full Round is
shown once at the end from its static bundle, so a terminal is not flooded with streamed tokens.
"""

from __future__ import annotations

import sys
from typing import TextIO

from twnb.memory import Event, PostCommitted, PostRetry, RoundFailed, StatusChanged
from twnb.render import plain_text, shorten, state_label

_PREVIEW = 160


class TextProgress:
    """Observer that prints one short line per milestone of a Round."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream
        self._last_status = ""

    def on_event(self, event: Event) -> None:
        match event:
            case StatusChanged(text=text) if text and text != self._last_status:
                self._last_status = text
                self._print(f"[twnb] {plain_text(text)}")
            case PostCommitted(post=post):
                message = shorten(" ".join(plain_text(post.message or "").split()), _PREVIEW)
                self._print(f"[twnb] {plain_text(post.send_from)} -> {plain_text(post.send_to)}: {message}")
            case PostRetry(reason=reason):
                self._print(f"[twnb] retrying ({plain_text(reason)})")
            case RoundFailed(reason=reason):
                text = plain_text(reason)
                interrupted = state_label("failed", text) == "interrupted"
                self._print(f"[twnb] {text}" if interrupted else f"[twnb] Round failed: {text}")
            case _:
                pass

    def _print(self, line: str) -> None:
        print(line, file=self._stream or sys.stdout, flush=True)
