"""A time limit for code running on a thread we cannot otherwise stop: a watchdog that interrupts it.

On the main thread the interrupt is a real SIGINT (`signal.pthread_kill`), exactly what the notebook's
Interrupt button sends, so the code sees `KeyboardInterrupt`. `fired` tells a timeout apart from the
user's own Ctrl-C. POSIX only; a blocking C call (a long `time.sleep` is fine, some C extensions are
not) only sees the interrupt once it returns to Python.
"""

from __future__ import annotations

import ctypes
import signal
import threading
import time
from types import TracebackType


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

    def __enter__(self) -> Watchdog:
        self._target_ident = threading.get_ident()
        self._on_main = threading.current_thread() is threading.main_thread()
        if self._on_main:
            # A frontend may have left SIGINT ignored or handled elsewhere (ipykernel swaps handlers
            # between requests); while the code runs, SIGINT must raise KeyboardInterrupt.
            self._saved_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
        if self.timeout is not None:
            self._thread = threading.Thread(target=self._watch, name="twnb-watchdog", daemon=True)
            self._thread.start()
        return self

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
        with self._lock:
            self._done.set()
        if self.fired:
            self._absorb_pending_interrupt()

    def _absorb_pending_interrupt(self) -> None:
        # The interrupt was sent; if the code finished just before it landed, it is still pending
        # and would hit whatever runs next. Give it a place to land.
        deadline = time.monotonic() + 0.05
        try:
            while time.monotonic() < deadline:
                time.sleep(0.005)
        except KeyboardInterrupt:
            pass

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            self.stop()
        except KeyboardInterrupt:
            if not self.fired:  # the user's own Ctrl-C: not ours to swallow
                raise
        finally:
            if self._on_main and self._saved_handler is not None:
                signal.signal(signal.SIGINT, self._saved_handler)  # type: ignore[arg-type]
