"""The four deadlines of an LLM call, and the watch that holds a streamed reply to them.

Each is a row of the settings table (the ``llm_timeout_*`` group):

- **connect**: to open the connection. Nothing reached the server yet, so a call that missed it is
  sent again (see request_retries.py).
- **first byte**: from sending the request to the reply's first text or thinking. A CPU server
  reading a long prompt, or a reasoning model thinking silently, spends minutes here.
- **idle**: once the reply has started, the longest wait for more text or thinking.
- **total**: from sending the request to the reply's end.

Empty deltas, role-only chunks and SSE comments (keep-alives) are not text: a server that trickles
them keeps the connection busy without making progress, and is timed out all the same. A call that
missed first byte, idle or total is never sent again: the server may still be working on it (some
keep generating after the client hangs up), and a second request would queue behind the first.

Before the response headers arrive only the HTTP read timeout can act; it is set to the longest
silence the deadlines allow (``read_timeout_s``). Once the stream is open a `StreamWatch` holds it to
the exact deadlines: the reading loop checks at every chunk (a trickle), and a watcher thread wakes at
the next deadline and, if it passed, shuts the connection's socket so the blocked read returns (a
server that sends nothing at all).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from twnb.config import Settings

__all__ = ["DEADLINE_SETTINGS", "LLMDeadlines", "Stall", "StreamWatch", "socket_closer"]

#: Each deadline's row in the settings table: what a timeout message tells the user to raise.
DEADLINE_SETTINGS = {
    "connect": "llm_timeout_connect",
    "first_byte": "llm_timeout_first_byte",
    "idle": "llm_timeout_idle",
    "total": "llm_timeout_total",
}


@dataclass(frozen=True)
class LLMDeadlines:
    """Seconds for each deadline (see the module docstring); the defaults are the settings table's."""

    connect: float = 10.0
    first_byte: float = 600.0
    idle: float = 300.0
    total: float = 1800.0

    def __post_init__(self) -> None:
        for name in DEADLINE_SETTINGS:
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not value > 0:
                raise ValueError(
                    f"{DEADLINE_SETTINGS[name]} must be a number of seconds above 0, got {value!r}"
                )

    @classmethod
    def from_settings(cls, settings: Settings) -> LLMDeadlines:
        """The deadlines of these settings (the ``llm_timeout_*`` rows)."""
        return cls(
            connect=float(settings.llm_timeout_connect),
            first_byte=float(settings.llm_timeout_first_byte),
            idle=float(settings.llm_timeout_idle),
            total=float(settings.llm_timeout_total),
        )

    @property
    def read_timeout_s(self) -> float:
        """The HTTP read timeout: the longest silence any phase of a reply may have."""
        return min(self.total, max(self.first_byte, self.idle))

    def describe(self, name: str) -> str:
        """`llm_timeout_idle (300 s)`: how a message names a deadline."""
        return f"{DEADLINE_SETTINGS[name]} ({getattr(self, name):g} s)"


@dataclass(frozen=True)
class Stall:
    """A deadline a reply missed: which one, its limit, and how long the reply had run."""

    deadline: str  # "first_byte", "idle" or "total"
    limit_s: float
    elapsed_s: float

    @property
    def setting(self) -> str:
        return DEADLINE_SETTINGS[self.deadline]


class StreamWatch:
    """Holds one streamed reply to its first-byte, idle and total deadlines.

    The reading loop calls `progress(now)` when text or thinking arrives and compares `now` with `due`
    at every chunk (`missed(now)` then says which deadline passed); `start(abort)` runs a watcher
    thread that calls `abort` (which must make the blocked read return) once `due` passes with nothing
    read; `stop()` ends it. `stall` is the deadline missed, once one was.
    """

    def __init__(self, deadlines: LLMDeadlines, started: float) -> None:
        self.deadlines = deadlines
        self.started = started
        self.total_at = started + deadlines.total
        self.last_progress: float | None = None  # perf_counter of the last text or thinking
        #: When the next deadline passes (a perf_counter time); progress moves it on.
        self.due = min(started + deadlines.first_byte, self.total_at)
        self.stall: Stall | None = None
        self._done = threading.Event()
        self._lock = threading.Lock()  # no abort once stop() has returned

    def progress(self, now: float) -> None:
        self.last_progress = now
        self.due = min(now + self.deadlines.idle, self.total_at)

    def missed(self, now: float) -> Stall:
        """The deadline that passed by `now` (call it once `now >= due`); remembered in `stall`."""
        if self.stall is None:
            late = "first_byte" if self.last_progress is None else "idle"
            name = "total" if now >= self.total_at else late
            self.stall = Stall(name, getattr(self.deadlines, name), now - self.started)
        return self.stall

    def start(self, abort: Callable[[], None]) -> None:
        """Watch from a thread of its own; `abort` is called there at most once."""
        thread = threading.Thread(target=self._watch, args=(abort,), name="twnb-llm-deadline", daemon=True)
        thread.start()

    def stop(self) -> None:
        with self._lock:
            self._done.set()

    def _watch(self, abort: Callable[[], None]) -> None:
        while True:
            # Progress moves `due`, later or (the idle deadline being shorter than the first-byte one)
            # earlier: sleep until it, but never longer than the idle deadline, then look again.
            wait = min(max(self.due - time.perf_counter(), 0.0), self.deadlines.idle)
            if self._done.wait(wait + 0.001):
                return
            now = time.perf_counter()
            if now >= self.due:
                with self._lock:
                    if self._done.is_set():
                        return
                    self.missed(now)
                    abort()
                return


def socket_closer(response: Any) -> Callable[[], None]:
    """A function that ends a blocked read on `response` (an httpx response) from another thread.

    Shutting the socket down makes the read return at once; closing the response object from another
    thread would wait for the reader's lock. Without a socket (another transport), it closes the
    response."""

    def abort() -> None:
        if getattr(response, "is_closed", False):
            return  # the reply ended: its connection may already serve another request
        stream = getattr(response, "extensions", {}).get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        try:
            if sock is not None:
                sock.shutdown(socket.SHUT_RDWR)
            else:
                response.close()
        except Exception:  # already closed, or the reply ended meanwhile: nothing left to stop
            pass

    return abort
