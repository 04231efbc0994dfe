"""A small timer that calls back about once a second while a Round runs.

Between events nothing updates the widget: during a long code run the elapsed time would stand still,
and text the throttle held back would wait for the next token. The heartbeat's callback refreshes
both. It runs on a daemon thread in a copy of the starting thread's context, so in ipykernel its comm
messages carry the running cell's parent header (nbclient and frontends route them to that cell).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable

from twnb.base import get_logger

log = get_logger(__name__)


class Heartbeat:
    """`start()` once, `stop()` in a `finally` (idempotent; waits for a tick in progress)."""

    def __init__(self, callback: Callable[[], None], interval: float = 1.0) -> None:
        if interval <= 0:
            raise ValueError(f"interval must be positive, got {interval}")
        self.interval = interval
        self.ticks = 0
        self._callback = callback
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("a Heartbeat starts once")
        context = contextvars.copy_context()
        self._thread = threading.Thread(
            target=context.run, args=(self._beat,), name="twnb-heartbeat", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _beat(self) -> None:
        while not self._stopped.wait(self.interval):
            try:
                self._callback()
            except Exception:  # a broken refresh must not spam the log once a second
                log.exception("twnb: the widget heartbeat failed; live elapsed time stops here")
                return
            self.ticks += 1
