"""Redacting what generated code outputs, before it reaches the notebook or the execution record.

The executor is given the session's redaction function (`Redactor.redact`); these helpers apply it to
the shapes outputs come in: stream text written in pieces, MIME bundles, tracebacks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twnb.kernel.record import ExecutionError

Redact = Callable[[str], str]

# A line longer than this is let out without waiting for its end, all but its last TAIL characters.
HOLD_LIMIT = 16_384
HOLD_TAIL = 1_024
_PEM_BEGIN = "-----BEGIN "
_PEM_END = "-----END "


class HeldText:
    """Stream text held back until it can be redacted whole.

    Code writes in pieces (`print` writes the text, then the newline; a kernel batches stream messages
    by time), so a key may arrive in two writes. Text is let out line by line (a line ends at `\\n` or
    `\\r`, so progress bars still move); an open PEM block is held until its END line; a very long
    line is let out at its last space before a bounded tail. `drain()` lets out the rest.
    """

    def __init__(self, redact: Redact) -> None:
        self._redact = redact
        self._pending = ""

    def feed(self, text: str) -> str:
        """Take `text`; return what can be let out now, redacted ("" when everything is held)."""
        pending = self._pending + text
        cut = _cut_point(pending)
        self._pending = pending[cut:]
        return self._redact(pending[:cut]) if cut else ""

    def drain(self) -> str:
        """Everything still held, redacted."""
        pending, self._pending = self._pending, ""
        return self._redact(pending) if pending else ""


def _cut_point(pending: str) -> int:
    end = max(pending.rfind("\n"), pending.rfind("\r")) + 1
    begin = pending.rfind(_PEM_BEGIN, 0, end)
    if begin >= 0 and _PEM_END not in pending[begin:] and len(pending) - begin <= HOLD_LIMIT:
        end = begin  # an open private-key block: its lines are only recognisable together
    if len(pending) - end > HOLD_LIMIT:
        keep_from = len(pending) - HOLD_TAIL
        space = pending.rfind(" ", end, keep_from)
        end = space + 1 if space >= 0 else keep_from
    return end


def _is_text_mime(mime: str) -> bool:
    # Images and other binary payloads are base64: redacting them could corrupt them, and they carry no
    # text a person reads. A widget view holds only a model id (32 hex digits, like an Azure key).
    if mime == "application/vnd.jupyter.widget-view+json":
        return False
    return mime.startswith("text/") or mime == "application/json" or mime.endswith("+json")


def redact_value(value: Any, redact: Redact) -> Any:
    """A copy of `value` (strings, lists, dicts as in JSON) with every string redacted."""
    if isinstance(value, str):
        return redact(value) if value else value
    if isinstance(value, list):
        return [redact_value(v, redact) for v in value]
    if isinstance(value, dict):
        return {k: redact_value(v, redact) for k, v in value.items()}
    return value


def redact_bundle(data: dict[str, Any], redact: Redact) -> dict[str, Any]:
    """A MIME bundle with its text representations redacted (text/*, JSON); binary ones kept as they are."""
    return {mime: redact_value(v, redact) if _is_text_mime(mime) else v for mime, v in data.items()}


def redact_error(error: ExecutionError | None, redact: Redact) -> ExecutionError | None:
    if error is None:
        return None
    return ExecutionError(error.ename, redact(error.evalue), redact(error.traceback))
