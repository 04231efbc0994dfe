"""The Round as printed lines, for shells without a widget frontend (terminal IPython, a bare shell).

Only the milestones are printed (status changes, each committed post, a failure): the full Round is
shown once at the end from its static bundle, so a terminal is not flooded with streamed tokens.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from twnb.render import plain_text, shorten, state_label

_PREVIEW = 160


class TextProgress:
    """Observer that prints one short line per milestone of a Round."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream
        self._last_status = ""

    def on_event(self, event: Any) -> None:
        name = type(event).__name__
        if name == "StatusChanged" and event.text and event.text != self._last_status:
            self._last_status = event.text
            self._print(f"[twnb] {plain_text(event.text)}")
        elif name == "PostCommitted":
            post = event.post
            message = shorten(" ".join(plain_text(post.message or "").split()), _PREVIEW)
            self._print(f"[twnb] {plain_text(post.send_from)} -> {plain_text(post.send_to)}: {message}")
        elif name == "PostRetry":
            self._print(f"[twnb] retrying ({plain_text(event.reason)})")
        elif name == "RoundFailed":
            reason = plain_text(event.reason)
            interrupted = state_label("failed", reason) == "interrupted"
            self._print(f"[twnb] {reason}" if interrupted else f"[twnb] Round failed: {reason}")

    def _print(self, line: str) -> None:
        print(line, file=self._stream or sys.stdout, flush=True)
