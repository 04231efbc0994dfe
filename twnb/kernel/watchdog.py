"""A time limit for code running on a thread we cannot otherwise stop: a watchdog that interrupts it.

On the main thread the interrupt is a real SIGINT (`signal.pthread_kill`), exactly what the notebook's
Interrupt button sends, so the code sees `KeyboardInterrupt`. `fired` tells a timeout apart from the
user's own Ctrl-C. POSIX only; a blocking C call (a long `time.sleep` is fine, some C extensions are
not) only sees the interrupt once it returns to Python.

The race at the limit: the code may end just as the watchdog sends its signal. Python runs a signal's
handler only at its next check, so the signal can arrive after the code is done. While the watchdog is
entered, SIGINT goes to its own handler, which knows whether the code has ended; on leaving, the
watchdog waits until its signal has been handled (dropped, if it came late) before restoring the
previous handler, so no interrupt of its own is left to hit whatever runs next.
"""

from __future__ import annotations

import ctypes
import signal
import threading
import time
from types import FrameType, TracebackType

# How long leaving waits for a sent signal to be handled; it normally takes microseconds. Only a
# signal mask set by the code (SIGINT blocked) could make it wait this long.
_DELIVERY_WAIT_S = 0.5


class Watchdog:
    """Interrupts the thread that entered it once `timeout` seconds have passed (None: never)."""

    def __init__(self, timeout: float | None) -> None:
        self.timeout = timeout
        self.fired = False
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._target_ident = 0
        self._on_main = False
        self._saved_handler: object = None
        self._finished = False  # the guarded code has ended: a signal arriving now is late
        self._delivered = False  # the watchdog's own signal has reached the handler

    def __enter__(self) -> Watchdog:
        self._target_ident = threading.get_ident()
        self._on_main = threading.current_thread() is threading.main_thread()
        if self._on_main:
            # A frontend may have left SIGINT ignored or handled elsewhere (ipykernel swaps handlers
            # between requests); while the code runs, SIGINT must raise KeyboardInterrupt.
            self._saved_handler = signal.signal(signal.SIGINT, self._on_sigint)
        if self.timeout is not None:
            self._thread = threading.Thread(target=self._watch, name="twnb-watchdog", daemon=True)
            try:
                self._thread.start()
            except BaseException:
                # A very short limit can fire while the thread is still starting: leave as if the
                # block had run (the handler restored), then let the interrupt tell the caller.
                self.__exit__(None, None, None)
                raise
        return self

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if self.fired and not self._delivered:
            self._delivered = True  # this one is the watchdog's
            if self._finished or (frame is not None and frame.f_code in _LEAVING_CODES):
                return  # it came after the code had ended: there is nothing left to stop
        raise KeyboardInterrupt

    def _watch(self) -> None:
        assert self.timeout is not None
        if self._done.wait(self.timeout):
            return
        with self._lock:
            if self._done.is_set():
                return
            self.fired = True
            if self._on_main:
                signal.pthread_kill(self._target_ident, signal.SIGINT)
            else:
                # Off the main thread no signal reaches the code; raise asynchronously in that thread.
                ctypes.pythonapi.PyThreadState_SetAsyncExc(
                    ctypes.c_ulong(self._target_ident), ctypes.py_object(KeyboardInterrupt)
                )

    def stop(self) -> None:
        """Disarm. After this returns no interrupt from this watchdog can arrive any more."""
        self._finished = True
        with self._lock:
            self._done.set()
        if not self.fired:
            return
        if self._on_main:
            deadline = time.monotonic() + _DELIVERY_WAIT_S
            while not self._delivered and time.monotonic() < deadline:
                time.sleep(0.001)  # a check point: the pending signal is handled (and dropped) here
        else:
            # A pending asynchronous exception is cancelled by setting NULL (CPython's documented way).
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._target_ident), None)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            self.stop()
        except KeyboardInterrupt:
            if not self.fired:  # the user's own Ctrl-C: not ours to swallow
                raise
        finally:
            if self._on_main:
                # None: the previous handler was not set from Python; Python's default is the nearest.
                previous = self._saved_handler
                if previous is None:
                    previous = signal.default_int_handler
                signal.signal(signal.SIGINT, previous)  # type: ignore[arg-type]


# Python runs a pending handler at a function's first instruction too: a signal handled there means
# the code has already ended (`fired` still says the limit was reached).
_LEAVING_CODES = frozenset({Watchdog.__exit__.__code__, Watchdog.stop.__code__})
