"""Recording what code outputs, in order, as nbformat v4 output dicts, with bounded stream text."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any, TextIO

from twnb.base import BoundedText, omission_note
from twnb.kernel.capture.output_redaction import HeldText, Redact

STREAM_HEAD_CHARS = 200_000
STREAM_TAIL_CHARS = 50_000


class OutputRecorder:
    """Collects streams, displays, the result and errors of one execution, in the order they appeared.

    Stream text beyond `head_chars` per stream is not kept in full: its last `tail_chars` are placed,
    after a note giving the count of omitted characters, where the cut began.
    """

    def __init__(self, head_chars: int = STREAM_HEAD_CHARS, tail_chars: int = STREAM_TAIL_CHARS) -> None:
        self._head_chars = head_chars
        self._tail_chars = tail_chars
        self.streams = {name: BoundedText(head_chars, tail_chars, name) for name in ("stdout", "stderr")}
        self._outputs: list[dict[str, Any]] = []
        self._tail_slots: dict[str, dict[str, Any]] = {}
        self._display_outputs: dict[str, list[dict[str, Any]]] = {}
        self._clear_pending = False
        self.result_data: dict[str, Any] = {}
        self.displays: list[dict[str, Any]] = []  # the display_data output of every display, in order
        self.tracebacks: list[tuple[str, str, list[str]]] = []
        self._quiet = 0

    # -- suspension: the shell's own fallbacks print displays to stdout; that is not stream output
    @contextlib.contextmanager
    def quiet(self) -> Iterator[None]:
        self._quiet += 1
        try:
            yield
        finally:
            self._quiet -= 1

    @property
    def is_quiet(self) -> bool:
        return self._quiet > 0

    def _append(self, output: dict[str, Any]) -> None:
        if self._clear_pending:
            self.clear(wait=False)
        self._outputs.append(output)

    def stream(self, name: str, text: str) -> None:
        if self._quiet or not text:
            return
        buffer = self.streams.get(name)
        if buffer is None:  # nbformat knows stdout and stderr only, but a kernel may name another
            buffer = self.streams[name] = BoundedText(self._head_chars, self._tail_chars, name)
        kept = buffer.write(text)
        if kept:
            last = self._outputs[-1] if self._outputs else None
            if (
                last is not None
                and last.get("output_type") == "stream"
                and last["name"] == name
                and (last is not self._tail_slots.get(name))
            ):
                last["text"] += kept
            else:
                self._append({"output_type": "stream", "name": name, "text": kept})
        if len(kept) < len(text) and name not in self._tail_slots:
            slot = {"output_type": "stream", "name": name, "text": ""}
            self._tail_slots[name] = slot
            self._append(slot)

    def display(
        self, data: dict[str, Any], metadata: dict[str, Any] | None, display_id: str | None, update: bool
    ) -> dict[str, Any] | None:
        """Record a display; an update replaces the data of earlier outputs with the same display id."""
        metadata = dict(metadata or {})
        if update:
            for output in self._display_outputs.get(display_id or "", []):
                output["data"] = dict(data)
                output["metadata"] = metadata
            return None
        output = {"output_type": "display_data", "data": dict(data), "metadata": metadata}
        self._append(output)
        if display_id:
            self._display_outputs.setdefault(display_id, []).append(output)
        self.displays.append(output)
        return output

    def execute_result(self, data: dict[str, Any], metadata: dict[str, Any] | None) -> dict[str, Any]:
        self.result_data = dict(data)
        output = {
            "output_type": "execute_result",
            "execution_count": None,
            "data": dict(data),
            "metadata": dict(metadata or {}),
        }
        self._append(output)
        return output

    def error(self, ename: str, evalue: str, traceback: list[str]) -> None:
        self.tracebacks.append((ename, evalue, list(traceback)))
        self._append({"output_type": "error", "ename": ename, "evalue": evalue, "traceback": list(traceback)})

    def clear(self, wait: bool) -> None:
        if wait:
            self._clear_pending = True
            return
        self._clear_pending = False
        self._outputs = []
        self._tail_slots = {}
        self._display_outputs = {}

    def outputs(self) -> list[dict[str, Any]]:
        """The outputs, each stream cut filled in with its note and tail."""
        for name, slot in self._tail_slots.items():
            buffer = self.streams[name]
            slot["text"] = omission_note(buffer.omitted(), name).lstrip("\n") + buffer.tail()
        return [o for o in self._outputs if not (o.get("output_type") == "stream" and not o["text"])]

    def stream_text(self, name: str) -> str:
        buffer = self.streams.get(name)
        return buffer.text() if buffer else ""

    def stream_total(self, name: str) -> int:
        buffer = self.streams.get(name)
        return buffer.total if buffer else 0


class StandInStream:
    """A stand-in for sys.stdout or sys.stderr: what it does not do itself (flushing, the encoding,
    `isatty`, ...) is the stream's it stands in for (`_original`). Subclasses write."""

    _original: TextIO

    def write(self, text: str) -> int:
        raise NotImplementedError

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._original.flush()

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._original, attribute)


class StreamTee(StandInStream):
    """Stands in for sys.stdout/sys.stderr: writes go on to the original (still shown) and to the recorder
    (none: shown only).

    With `redact`, text is held back until it can be redacted whole (see `HeldText`) and both the
    original and the recorder get the redacted text; call `drain()` before another output is shown (to
    keep the order) and at the end.
    """

    def __init__(
        self,
        original: TextIO,
        name: str,
        recorder: OutputRecorder | None,
        redact: Redact | None = None,
        lock: threading.RLock | None = None,
    ) -> None:
        self._original = original
        self._name = name
        self._recorder = recorder
        self._held = HeldText(redact) if redact is not None else None
        # Text written straight to a file descriptor arrives from another thread
        # (descriptor_output.py): one lock, shared by the tees of one recorder, keeps it whole.
        self._lock = lock or threading.RLock()

    def write(self, text: str) -> int:
        with self._lock:
            if self._held is None or not isinstance(text, str):
                written = self._original.write(text)
                if isinstance(text, str) and self._recorder is not None:
                    self._recorder.stream(self._name, text)
                return written if isinstance(written, int) else len(text)
            if self._recorder is not None and self._recorder.is_quiet:
                # the shell printing a display it was given, already redacted
                self.drain()
                self._original.write(text)
            else:
                self._emit(self._held.feed(text))
            return len(text)

    def _emit(self, text: str) -> None:
        if text:
            self._original.write(text)
            if self._recorder is not None:
                self._recorder.stream(self._name, text)

    def drain(self) -> None:
        """Let out (redacted) whatever text is still held back."""
        if self._held is not None:
            with self._lock:
                self._emit(self._held.drain())
