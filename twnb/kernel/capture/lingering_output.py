"""Redacting what threads generated code left running write after its execution ended.

Code may start a thread (a timer, a background worker) and end while it runs. When the execution ends,
sys.stdout, sys.stderr and descriptors 1 and 2 would be put back, and ipykernel shows what the thread
writes later in the cell that started it: unredacted, and saved with the notebook.

So when threads the code started are still alive at its end, redacting stand-ins stay in place (a
`Lingering`): sys.stdout and sys.stderr are StreamTees that redact and show, recording nothing, and
descriptors 1 and 2 keep writing to a pipe of ours. A watcher thread looks every POLL_S seconds and,
once those threads have all ended, puts back exactly what was there. Only threads other than the main
one write to sys.stdout and sys.stderr through the redactor (`OffMainThreadRedacted`): the user's own
cells print straight to the kernel's streams, as before, so a progress bar or a line printed in pieces
shows at once (threads the code left can be long-lived: a progress bar's monitor, a library's pool).
What reaches descriptors 1 and 2 meanwhile, whoever wrote it, is redacted by line (held text is let out
at each cell's end). The next execution takes the stand-ins over (`take_over`) and leaves them again at
its own end while any of those threads, or of its own, still run.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TextIO

from twnb.kernel.capture.capture import StandInStream, StreamTee
from twnb.kernel.capture.descriptor_output import DescriptorOutput
from twnb.kernel.capture.output_redaction import Redact

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

POLL_S = 0.2
# Threads that are not the code's: twnb's own (output pumps, the watchdog) and the kernel's, which it
# may start while a cell runs.
_INFRASTRUCTURE = ("twnb", "ipykernel", "zmq", "jupyter_client")


def _is_infrastructure(thread: threading.Thread) -> bool:
    if thread.name.startswith("twnb-"):
        return True
    target = getattr(thread, "_target", None)  # the function a plain Thread runs
    modules = (type(thread).__module__, getattr(target, "__module__", None) or "")
    return any(module.split(".")[0] in _INFRASTRUCTURE for module in modules)


def threads_started_since(before: set[threading.Thread]) -> list[threading.Thread]:
    """The threads alive now that were not in `before`, twnb's and the kernel's own left out."""
    return [t for t in threading.enumerate() if t not in before and not _is_infrastructure(t)]


class OffMainThreadRedacted(StandInStream):
    """sys.stdout or sys.stderr while threads linger: the main thread (the user's cells, IPython) writes
    to the kernel's stream as it did; any other thread through `tee`, which redacts (a thread the
    lingering ones started included)."""

    def __init__(self, original: TextIO, tee: StreamTee) -> None:
        self._original = original
        self._tee = tee

    def write(self, text: str) -> int:
        if threading.current_thread() is threading.main_thread():
            return self._original.write(text)
        return self._tee.write(text)


class Lingering:
    """Redacting stand-ins for sys.stdout, sys.stderr and (when given) descriptors 1 and 2, in place
    from construction until `threads` have all ended or the next execution takes them over."""

    def __init__(
        self,
        shell: InteractiveShell,
        originals: tuple[TextIO, TextIO],
        redact: Redact,
        descriptors: DescriptorOutput | None,
        threads: Iterable[threading.Thread],
    ) -> None:
        self.shell = shell
        self.originals = originals
        self.threads = list(threads)
        lock = threading.RLock()
        self.tees = (
            StreamTee(originals[0], "stdout", None, redact, lock),
            StreamTee(originals[1], "stderr", None, redact, lock),
        )
        self.streams = (
            OffMainThreadRedacted(originals[0], self.tees[0]),
            OffMainThreadRedacted(originals[1], self.tees[1]),
        )
        self.descriptors = descriptors
        sys.stdout, sys.stderr = self.streams
        if descriptors is not None:
            descriptors.hand_over({1: self.tees[0], 2: self.tees[1]})
        # Text held back for its line's end is let out when each of the user's cells ends, as it
        # would be at an execution's end.
        shell.events.register("post_run_cell", self._drain_after_cell)
        with _LOCK:
            _State.current = self
        threading.Thread(target=self._watch, name="twnb-lingering-output", daemon=True).start()

    def streams_under(self, stdout: TextIO, stderr: TextIO) -> tuple[TextIO, TextIO]:
        """What an execution starting now should write to (and put back): the originals where the
        stand-ins are still in place, else what replaced them."""
        streams: tuple[object, object] = self.streams  # compared by identity with what sys holds
        return (
            self.originals[0] if stdout is streams[0] else stdout,
            self.originals[1] if stderr is streams[1] else stderr,
        )

    def drain(self) -> None:
        for tee in self.tees:
            tee.drain()

    def alive(self) -> list[threading.Thread]:
        return [t for t in self.threads if t.is_alive()]

    def _drain_after_cell(self, *_result: Any) -> None:
        self.drain()

    def _unhook(self) -> None:
        with contextlib.suppress(ValueError):  # already gone
            self.shell.events.unregister("post_run_cell", self._drain_after_cell)

    def _watch(self) -> None:
        while True:
            time.sleep(POLL_S)
            with _LOCK:  # held to the end, so an execution starting meanwhile waits for a clean slate
                if _State.current is not self:
                    return  # taken over
                if self.alive():
                    continue
                _State.current = None
                self._end()
                return

    def _end(self) -> None:
        self._unhook()
        if self.descriptors is not None:
            self.descriptors.restore()  # their last text still goes through the stand-ins
        if sys.stdout is self.streams[0]:
            sys.stdout = self.originals[0]
        if sys.stderr is self.streams[1]:
            sys.stderr = self.originals[1]
        self.drain()


class _State:
    current: Lingering | None = None


_LOCK = threading.Lock()


def take_over() -> Lingering | None:
    """The stand-ins an earlier execution left in place, now the caller's to replace (its watcher
    stops); None when nothing lingers."""
    with _LOCK:
        lingering, _State.current = _State.current, None
    if lingering is not None:
        lingering._unhook()
    return lingering
