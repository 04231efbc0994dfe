"""Threads a run's code started that outlive it: named when the code ends, stopped at its time limit
and on interrupt.

The runtime guard follows every thread armed code starts, directly or through a library (IPython's
background jobs, say): runtime_guard.py's `_Follower` keeps each in its run's `threads` while it runs.
When the code ends, whatever is left there is still running in the kernel, using its CPU and acting
after the Round said it finished: the executors say so in one line (`threads_note`), in the record
and in the cell. At the time limit and on interrupt they also stop them (`stop_threads`) the way the
watchdog stops code off the main thread: an asynchronous exception in the thread
(`PyThreadState_SetAsyncExc`), sent again while the thread still runs its work, for up to a second.
The exception is SystemExit itself, which `threading` ends a thread with silently (its excepthook
ignores exactly SystemExit, not a subclass: no traceback printed in whatever cell runs by then).

A library's thread (its function is not the code's: an executor's worker, tqdm's monitor, Dask's
pool) is the library's: named and stopped only while it runs the code's own functions, where the
exception lands in the code's work (a pool's worker catches it, fails that work item and serves on).
An idle worker stays: stopping it would leave its pool short of a thread for the kernel's life.

An asynchronous exception lands at the thread's next bytecode: a thread blocked in a call that does
not return to Python (a long `time.sleep`, a socket read), or that swallows every exception, cannot be
stopped this way; the line says it is still running and that restarting the kernel stops it. Threads
the user's own cells start are never armed, so never here, never touched.

Stdlib only: kernel_guard.py sends this source to kernels where twnb is not installed.
"""

from __future__ import annotations

import ctypes
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType, FrameType
from typing import Any

from twnb.kernel.guard.code_stopper import EXEMPT_CODES

# How long stopping waits for the threads to end, and how often it asks again meanwhile.
STOP_WAIT_S = 1.0
_RESEND_S = 0.1


@dataclass
class StartedThread:
    """A thread a run's code started: its id, what it runs (`spin (Thread-3)`), the code object of its
    work (None: a C function), whose frame on the thread's stack says it still runs it, and whether
    that work is the code's own function (else a library's: tqdm's monitor, an idle pool worker,
    which may end by themselves)."""

    ident: int
    what: str
    code: CodeType | None
    own: bool = True


def started_thread(
    function: Callable[..., Any], ident: int, namespace: dict[str, Any] | None = None
) -> StartedThread:
    """The thread `ident` about to run `function` (what a thread start was given: threading's
    `Thread._bootstrap`, or the code's own function through `_thread`); `namespace`: the code's, where
    its own functions live."""
    try:
        return _described(function, ident, namespace)
    except Exception:  # an odd callable must never keep the thread from starting
        return StartedThread(ident, "a thread", None)


def _described(function: Callable[..., Any], ident: int, namespace: dict[str, Any] | None) -> StartedThread:
    target: Any = function
    name = ""
    owner = getattr(function, "__self__", None)
    if isinstance(owner, threading.Thread):
        name = owner.name
        # threading's target, else the callable of IPython's background jobs, else the subclass's run
        target = getattr(owner, "_target", None) or getattr(owner, "func", None) or type(owner).run
    for _ in range(5):  # functools.partial, nested
        if hasattr(target, "__code__") or not hasattr(target, "func"):
            break
        target = target.func
    label = getattr(target, "__qualname__", None) or type(target).__qualname__
    # threading names a thread after its target already: "Thread-3 (spin)"
    name = name.removesuffix(f" ({getattr(target, '__name__', '')})")
    code = getattr(target, "__code__", None)
    own = namespace is None or getattr(target, "__globals__", None) is namespace
    what = f"{label} ({name})" if name else str(label)
    return StartedThread(ident, what, code if isinstance(code, CodeType) else None, own)


def still_running(threads: dict[int, StartedThread], namespace: dict[str, Any] | None) -> list[StartedThread]:
    """The threads of `threads` (a run's) still running for the code, in the order they started: its
    own, and a library's while it runs the code's functions."""
    frames = sys._current_frames()
    return [thread for thread in list(threads.values()) if _runs_for_the_code(thread, frames, namespace)]


def stop_threads(
    threads: list[StartedThread], namespace: dict[str, Any] | None, wait_s: float = STOP_WAIT_S
) -> tuple[list[StartedThread], list[StartedThread]]:
    """Stop `threads` (an asynchronous SystemExit), waiting up to `wait_s`: (stopped, still running)."""
    sent: dict[int, float] = {}
    deadline = time.monotonic() + wait_s
    running = list(threads)
    while running:
        frames = sys._current_frames()
        running = [thread for thread in running if _runs_for_the_code(thread, frames, namespace)]
        now = time.monotonic()
        if not running or now >= deadline:
            break
        for thread in running:
            if now - sent.get(thread.ident, -1.0) >= _RESEND_S and _working(
                frames[thread.ident], thread, namespace
            ):
                _raise_in(thread.ident, SystemExit)
                sent[thread.ident] = now
        time.sleep(0.01)
    left = {thread.ident for thread in running}
    return [thread for thread in threads if thread.ident not in left], running


def threads_note(stopped: list[StartedThread], running: list[StartedThread], why: str = "") -> str:
    """One line for the record and the cell ('' when there is nothing to say); `why`: "at the time
    limit" or "on interrupt" when they were stopped."""
    parts = []
    if stopped:
        parts.append(
            f"{_count(stopped)} the code started {'was' if len(stopped) == 1 else 'were'} stopped "
            f"{why}: {_names(stopped)}."
        )
    if running:
        if why:
            parts.append(
                f"{_count(running)} the code started could not be stopped {why} and "
                f"{'is' if len(running) == 1 else 'are'} still running: {_names(running)} (blocked in a "
                "call that does not return to Python, or ignoring the stop); restart the kernel to stop "
                f"{_it(running)}."
            )
        else:
            parts.append(
                f"{_count(running)} the code started {'is' if len(running) == 1 else 'are'} still running "
                f"after it ended: {_names(running)}; restart the kernel to stop {_it(running)}."
            )
    return " ".join(parts)


def _count(threads: list[StartedThread]) -> str:
    return "A thread" if len(threads) == 1 else f"{len(threads)} threads"


def _it(threads: list[StartedThread]) -> str:
    return "it" if len(threads) == 1 else "them"


def _names(threads: list[StartedThread]) -> str:
    library = " from a library, running the code's function"
    shown = ", ".join(thread.what + ("" if thread.own else library) for thread in threads[:5])
    return shown + (f" and {len(threads) - 5} more" if len(threads) > 5 else "")


def _runs_for_the_code(
    thread: StartedThread, frames: dict[int, FrameType], namespace: dict[str, Any] | None
) -> bool:
    """Whether `thread` (in `frames`, sys._current_frames()) still runs for the code: alive when it is
    the code's own, running the code's functions when it is a library's."""
    frame = frames.get(thread.ident)
    return frame is not None and (thread.own or _working(frame, thread, namespace))


def _working(frame: FrameType | None, thread: StartedThread, namespace: dict[str, Any] | None) -> bool:
    """Whether the thread runs the code's work now: for the code's own thread its function's frame on
    its stack (without Python code, any frame of the code's namespace), for a library's a frame of the
    code's namespace; not threading's start or end around it, nor the guard's own code: an exception
    landing there would cut its bookkeeping short."""
    if frame is None or frame.f_code in EXEMPT_CODES:
        return False
    own_code = thread.code if thread.own else None
    f: FrameType | None = frame
    while f is not None:
        if own_code is not None and f.f_code is own_code:
            return True
        if own_code is None and namespace is not None and f.f_globals is namespace:
            return True
        f = f.f_back
    return False


def _raise_in(ident: int, exception: type[BaseException]) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(exception))


def left_threads_note(threads: dict[int, StartedThread], namespace: dict[str, Any] | None, why: str) -> str:
    """When a run's code has ended: its threads still running, stopped first when `why` says it was
    stopped ("at the time limit", "on interrupt"; "" when it ended by itself), in one line ('' when
    none is left)."""
    running = still_running(threads, namespace)
    if not running:
        return ""
    stopped: list[StartedThread] = []
    if why:
        stopped, running = stop_threads(running, namespace)
    return threads_note(stopped, running, why)
