"""A time limit that holds, for code running on a thread we cannot otherwise stop.

On the main thread the interrupt is a real SIGINT (`signal.pthread_kill`), exactly what the notebook's
Interrupt button sends, so the code sees `KeyboardInterrupt`. `fired` tells a timeout apart from the
user's own Ctrl-C. POSIX only.

Code cannot switch it off. While the code runs, the watchdog's thread checks every tick that SIGINT
still goes to the watchdog's handler; code that replaced it (`signal.signal(SIGINT, SIG_IGN)`, maybe
through a module verification never saw) gets it back within a tick: the thread asks the main thread
to re-install it (`Py_AddPendingCall`, since only the main thread may set handlers), so the user's
Interrupt button works again as well. Past the limit, if the code is still running after
`escalate_every_s`, the watchdog raises `TimeLimitExceeded` in the code's thread directly
(`PyThreadState_SetAsyncExc`), which needs no handler and which a careless `except KeyboardInterrupt`
does not swallow. Code that swallows every exception (`except BaseException: pass` in a loop) survives
all of that, so at the same moment the watchdog has a `CodeStopper` installed on the main thread
(code_stopper.py), which raises `TimeLimitExceeded` where the code's own handlers cannot catch it; from
then on it relies on the stopper alone (an asynchronous exception would land in the stopper's own
Python code). Leaving the watchdog removes the stopper and turns the exception back into the
`KeyboardInterrupt` callers expect. `code_namespace` (the shell's namespace) tells the stopper which
frames are the code's: those below its `<module>` frame; without it, those the `with` block called.

A call blocked in C sees none of this until it returns (a long `time.sleep` is woken by SIGINT, but not
once the code ignored SIGINT). When the code is still running `unresponsive_after_s` past the limit,
the watchdog says so once through `on_unresponsive` (the executor tells the user in the cell: restart
the kernel to stop it now) and keeps trying.

The race at the limit: the code may end just as the watchdog sends its signal. Python runs a signal's
handler only at its next check, so the signal can arrive after the code is done. While the watchdog is
entered, SIGINT goes to its own handler, which knows whether the code has ended; on leaving, the
watchdog waits until its signal has been handled (dropped, if it came late) before restoring the
previous handler, so no interrupt of its own is left to hit whatever runs next. Leaving (`close`) is
idempotent and survives a late interrupt of its own, so a caller may call it again from a `finally`.
Off the main thread the interrupt is an exception raised in the code's thread, where it lands at the
thread's next check, which may be the first instruction of `__exit__`: the block would then be left
without closing the watchdog, whose thread would go on raising into whatever thread later reuses the
thread's id. So the watchdog's thread sends nothing while the code's thread is in the watchdog's own
leaving code (it tries again a tick later, by when the block has closed it), and stops once that
thread has ended.

Code that awaits at its top level (an async cell: ipykernel 7 runs IPython's `run_cell_async` as an
asyncio task of its own) is off the stack while it waits: the main thread then runs the event loop,
and a KeyboardInterrupt raised there leaves the loop and ends the kernel (ipykernel's `IPKernelApp.start`
catches it around `io_loop.start()` and returns: exit code 0, every variable lost; asyncio's Task
re-raises a KeyboardInterrupt that leaves its coroutine, so one landing in IPython's machinery inside
the cell's task does the same). ipykernel's own answer, `IPythonKernel._cancel_on_sigint` (7.x), is a
SIGINT handler that cancels the cell's task; the watchdog replaces that handler while the code runs.
So with `task` (the cell's task) the handler raises only in the code's own frames; elsewhere it wakes
the task from the loop (`_wake_task`): the future the code awaits gets the KeyboardInterrupt (as a
loop's would, with the same traceback ending at the code's `await`), or, awaiting another task or a
gather, the task is cancelled. Escalations past an ignored interrupt wake it again, with
`TimeLimitExceeded`.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any

from twnb.kernel.guard.code_stopper import CodeStopper, exempt, request_install

# How long leaving waits for a sent signal to be handled; it normally takes microseconds. Only a
# signal mask set by the code (SIGINT blocked) could make it wait this long.
_DELIVERY_WAIT_S = 0.5
# How often the thread checks the handler while the code runs (a user's Interrupt sent in the tick
# after the code replaced the handler is lost; the next one works).
_TICK_S = 0.05


class TimeLimitExceeded(BaseException):
    """Raised in code that went on running after the interrupt at its time limit. Not a
    KeyboardInterrupt, so `except KeyboardInterrupt: pass` in a loop cannot keep the code going."""


class Watchdog:
    """Interrupts the thread that entered it once `timeout` seconds have passed (None: never), and
    keeps SIGINT with its handler meanwhile."""

    def __init__(
        self,
        timeout: float | None,
        *,
        on_unresponsive: Callable[[str], None] | None = None,
        escalate_every_s: float = 0.5,
        unresponsive_after_s: float = 3.0,
        code_namespace: dict[str, Any] | None = None,
        task: Any = None,
    ) -> None:
        self.timeout = timeout
        self.code_namespace = code_namespace
        self.task = task  # the asyncio task the code runs in, for an async cell (module docstring)
        self.stopper: CodeStopper | None = None  # made on entering, on the main thread
        self.on_unresponsive = on_unresponsive
        self.escalate_every_s = escalate_every_s
        self.unresponsive_after_s = unresponsive_after_s
        self.fired = False
        self.escalations = 0  # KeyboardInterrupts raised directly after the first interrupt was ignored
        self.handler_restored = 0  # times the code had replaced the SIGINT handler
        self.unresponsive = False  # still running `unresponsive_after_s` past the limit
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._target_ident = 0
        self._target_thread: threading.Thread | None = None
        self._on_main = False
        self._saved_handler: object = None
        self._installed = False  # this watchdog's handler was set on entering (to restore on leaving)
        self._handler = self._on_sigint  # one bound method: compared by identity every tick
        self._finished = False  # the guarded code has ended: a signal arriving now is late
        self._closed = False
        self._reinstall_queued = False
        self._async_sent = False  # an asynchronous exception was raised in the code's thread
        self._sent = 0  # SIGINTs sent while the handler was ours
        self._handled = 0  # ... and how many of them reached it

    def __enter__(self) -> Watchdog:
        self._target_ident = threading.get_ident()
        self._target_thread = threading.current_thread()
        self._on_main = threading.current_thread() is threading.main_thread()
        entry = sys._getframe(1)  # the `with` statement's: the code runs in what it calls
        try:
            if self._on_main:
                # A frontend may have left SIGINT ignored or handled elsewhere (ipykernel swaps
                # handlers between requests); while the code runs, SIGINT must raise KeyboardInterrupt.
                self._saved_handler = signal.signal(signal.SIGINT, self._handler)
                self._installed = True
                _GUARDS.append(self)
                self.stopper = CodeStopper(
                    TimeLimitExceeded,
                    code_namespace=self.code_namespace,
                    entry=entry,
                    waiting=None if self.task is None else self._code_waiting,
                )
            if self.timeout is not None or self._on_main:
                self._thread = threading.Thread(target=self._watch, name="twnb-watchdog", daemon=True)
                self._thread.start()
        except BaseException:
            # The user's Ctrl-C landing while entering (our handler is already in place), or a very
            # short limit firing while the thread starts. `with` calls no __exit__ when __enter__
            # raises: leave as if the block had run, or the handler would outlive the watchdog (and
            # its pending re-installs give it back SIGINT after any later run), then let the
            # interrupt tell the caller.
            self.close()
            raise
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
        if exc_type is TimeLimitExceeded:
            raise KeyboardInterrupt from None  # what callers of a time limit catch

    # -- the main thread -----------------------------------------------------------------------------

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        ours = self.fired and self._handled < self._sent
        if ours:
            self._handled += 1
            if self._finished or (frame is not None and frame.f_code in _LEAVING_CODES):
                return  # it came after the code had ended: there is nothing left to stop
        if self.task is not None and not self._code_at(frame):
            # The event loop (or IPython's machinery in the cell's task) would end the kernel.
            self._wake_soon(KeyboardInterrupt)
            return
        raise KeyboardInterrupt

    def _code_at(self, frame: FrameType | None) -> bool:
        stopper = self.stopper
        return stopper is not None and stopper.code_on_stack(frame)

    def _wake_soon(self, exception: type[BaseException]) -> None:
        """From any thread (a signal handler too): have the loop wake the cell's task with `exception`."""
        with contextlib.suppress(Exception):  # the loop is closed: nothing is left to wake
            self.task.get_loop().call_soon_threadsafe(self._wake_task, exception)

    def _wake_task(self, exception: type[BaseException]) -> None:
        """On the loop, the code waiting in the cell's task: raise `exception` at its `await`."""
        task = self.task
        if self._finished or task is None or task.done() or not _awaits_code(task, self.code_namespace):
            return  # the code has ended (a late interrupt): nothing to stop
        waiter = getattr(task, "_fut_waiter", None)
        if waiter is not None and _plain_future(waiter) and not waiter.done():
            waiter.set_exception(exception())
        else:
            task.cancel()  # another task, a gather, or about to resume: cancelling reaches all of it

    def close(self) -> None:
        """Disarm and restore the previous SIGINT handler. After this returns no interrupt from this
        watchdog can arrive any more. Idempotent."""
        if self._closed:
            return
        try:
            for _ in range(3):
                try:
                    self._disarm()
                    break
                except (KeyboardInterrupt, TimeLimitExceeded):
                    # Ours, landing late (a raised one cut the disarming short: do it again), or the
                    # user's own Ctrl-C: not ours to swallow.
                    if not self.fired:
                        raise
        finally:
            self._restore()

    def stop(self) -> None:
        """Disarm without restoring the handler (kept for callers that only want the timer off)."""
        self._disarm()

    def _disarm(self) -> None:
        self._finished = True
        with self._lock:
            self._done.set()
        if not self.fired:
            return
        if self._on_main and signal.getsignal(signal.SIGINT) is self._handler:
            deadline = time.monotonic() + _DELIVERY_WAIT_S
            while self._handled < self._sent and time.monotonic() < deadline:
                time.sleep(0.001)  # a check point: the pending signal is handled (and dropped) here
        if self._async_sent:
            _cancel_async_exc(self._target_ident)

    def _restore(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._finished = True
        self._done.set()  # even if disarming was cut short: the thread must not outlive the block
        if self.stopper is not None:
            self.stopper.remove()
        if self._on_main:
            if self in _GUARDS:
                _GUARDS.remove(self)
            if not self._installed and signal.getsignal(signal.SIGINT) is not self._handler:
                return  # entering failed before the handler was set: nothing to give back
            # None: the previous handler was not set from Python; Python's default is the nearest.
            previous = self._saved_handler
            if previous is None:
                previous = signal.default_int_handler
            signal.signal(signal.SIGINT, previous)  # type: ignore[arg-type]

    def _reinstall_on_main(self) -> None:
        """Run on the main thread (a pending call): give SIGINT back to this watchdog's handler."""
        if not (self._finished or self._closed) and signal.getsignal(signal.SIGINT) is not self._handler:
            signal.signal(signal.SIGINT, self._handler)
            self.handler_restored += 1
        # Last: while this is set the thread raises nothing in the main thread, whose pending call
        # (Python code) would otherwise catch it.
        self._reinstall_queued = False

    # -- the watchdog's thread -------------------------------------------------------------------------

    def _watch(self) -> None:
        started = time.monotonic()
        deadline = None if self.timeout is None else started + self.timeout
        next_push = 0.0
        while True:
            now = time.monotonic()
            wait = _TICK_S if deadline is None or self.fired else min(_TICK_S, max(0.0, deadline - now))
            if self._done.wait(wait):
                return
            if self._on_main and not self.fired and signal.getsignal(signal.SIGINT) is not self._handler:
                self._queue_reinstall()  # for the limit and the user's Interrupt button alike
            now = time.monotonic()
            if deadline is None or now < deadline:
                continue
            report = None
            with self._lock:
                if self._done.is_set():
                    return
                target = self._target_state()
                if target == "ended":
                    return  # nothing left to stop; its id may even be another thread's by now
                if target == "leaving":
                    continue  # the code has ended; leaving closes the watchdog in a moment
                if not self.fired:
                    self.fired = True
                    self._interrupt()
                    next_push = now + self.escalate_every_s
                elif now >= next_push and not self._reinstall_queued:
                    # The first interrupt was ignored (SIGINT ignored, caught and dropped, or a
                    # blocking call): on the main thread, the stopper takes over; elsewhere, raise in
                    # the thread itself, which needs no handler. (Not while a re-install is queued:
                    # that Python code would catch it.)
                    stopper = self.stopper
                    if stopper is not None:
                        if not self._code_running():
                            next_push = now + self.escalate_every_s
                            continue  # ended, the shell is formatting its traceback: nothing to stop
                        self.escalations += 1
                        if self._code_waiting():
                            self._wake_soon(TimeLimitExceeded)
                        if not stopper.installed or stopper.mode == "trace":
                            request_install(stopper)  # 3.11: again, if it paused while the code was gone
                    else:
                        self.escalations += 1
                        self._async_sent = True
                        _set_async_exc(self._target_ident, TimeLimitExceeded)
                    next_push = now + self.escalate_every_s
                if (
                    not self.unresponsive
                    and now >= deadline + self.unresponsive_after_s
                    and self._code_running()
                ):
                    self.unresponsive = True
                    report = _unresponsive_text(now - started, self.timeout)
            if report is not None and self.on_unresponsive is not None:
                with contextlib.suppress(Exception):  # telling is a courtesy; the watchdog goes on
                    self.on_unresponsive(report)

    def _target_state(self) -> str:
        """From the watchdog's thread, where the code's thread is: "ended" (the thread has, or it is
        the main thread and the program has: the interpreter is exiting), "leaving" while it runs a
        watchdog's leaving code (an interrupt raised now would land there and cut the leaving short;
        for an inner watchdog's, the next tick sends it), else "running".

        A watchdog still entered when the program ends (entered without `with`, as the kernel guard
        does between a cell's pre_run_cell and post_run_cell, or in a generator never resumed) must
        not interrupt the exit: the main thread counts as alive while `threading._shutdown` runs the
        threading atexit callbacks (concurrent.futures joins its workers there, for as long as they
        take), and a SIGINT sent then ends the process with a KeyboardInterrupt at exit."""
        thread = self._target_thread
        frame = sys._current_frames().get(self._target_ident)
        if thread is None or not thread.is_alive() or frame is None or sys.is_finalizing():
            return "ended"
        while frame is not None:
            if frame.f_code in _LEAVING_CODES:
                return "leaving"
            if frame.f_code is _EXITING_CODE:
                return "ended"
            frame = frame.f_back
        return "running"

    def _code_running(self) -> bool:
        """From the watchdog's thread: whether the code is still on its thread's stack (on the main
        thread, where the stopper knows its frames; elsewhere assumed so)."""
        if self.stopper is None:
            return True
        frame = sys._current_frames().get(self._target_ident)
        return (frame is not None and self.stopper.code_on_stack(frame)) or self._code_waiting()

    def _code_waiting(self) -> bool:
        """Whether the code awaits in the cell's task, off the stack (read from any thread)."""
        task = self.task
        if task is None or task.done():
            return False
        frame = sys._current_frames().get(self._target_ident)
        stopper = self.stopper
        on_stack = frame is not None and stopper is not None and stopper.code_on_stack(frame)
        return not on_stack and _awaits_code(task, self.code_namespace)

    def _interrupt(self) -> None:
        if not self._on_main:
            # Off the main thread no signal reaches the code; raise asynchronously in that thread.
            self._async_sent = True
            _set_async_exc(self._target_ident, KeyboardInterrupt)
            return
        if signal.getsignal(signal.SIGINT) is self._handler:
            self._sent += 1
        elif self.task is not None:
            # Ignored now, and an exception raised in the thread could land in the event loop.
            self._wake_soon(KeyboardInterrupt)
        elif not self._reinstall_queued:
            # Ignored now: raise in the thread at once rather than wait for the escalation.
            self._async_sent = True
            _set_async_exc(self._target_ident, KeyboardInterrupt)
        signal.pthread_kill(self._target_ident, signal.SIGINT)

    def _queue_reinstall(self) -> None:
        if not self._reinstall_queued:
            self._reinstall_queued = True
            if ctypes.pythonapi.Py_AddPendingCall(_reinstall_pending_call, None) != 0:
                self._reinstall_queued = False  # the queue is full: next tick


def _unresponsive_text(elapsed: float, timeout: float | None) -> str:
    return (
        f"The code has run {elapsed:.0f} s, past its time limit of {timeout:g} s, and does not respond to "
        "interrupts (it is blocked in a call that does not return to Python, or ignores them). It stops "
        "when that call returns; to stop it now, restart the kernel (its variables are lost)."
    )


def _awaits_code(task: Any, code_namespace: dict[str, Any] | None) -> bool:
    """Whether the code's coroutine (its `<module>`, run in `code_namespace`) is in what `task` awaits."""
    if code_namespace is None:
        return True
    awaited = task.get_coro()
    while awaited is not None:
        frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
        if frame is not None and frame.f_globals is code_namespace and frame.f_code.co_name == "<module>":
            return True
        awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
    return False


def _plain_future(waiter: Any) -> bool:
    """An asyncio Future itself (not a Task, nor a gather's), which the code's `await` reads."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return False
    return type(waiter) in (asyncio.Future, getattr(asyncio.futures, "_PyFuture", asyncio.Future))


class _Cancelled(BaseException):
    """Replaces an asynchronous exception still pending when the code has ended; caught at once."""


def _cancel_async_exc(thread_ident: int) -> None:
    """Drop an asynchronous exception that may still be pending in the calling thread (`thread_ident`).

    CPython's documented way, setting NULL, leaves the thread's eval breaker signalled for good on
    3.11, after which a trace function set from a pending call never starts (the stopper of every
    later time limit would stop nothing). So a harmless exception replaces it and is caught here,
    where it lands at the loop's next check, which also clears the signal."""
    if thread_ident != threading.get_ident():
        _set_async_exc(thread_ident, None)
        return
    try:
        _set_async_exc(thread_ident, _Cancelled)
        for _ in range(100):  # each turn is a check of the eval breaker
            pass
    except _Cancelled:
        pass


def _set_async_exc(thread_ident: int, exc: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_ident), None if exc is None else ctypes.py_object(exc)
    )


# Watchdogs entered on the main thread, innermost last: the pending call re-installs the innermost's.
_GUARDS: list[Watchdog] = []


def _reinstall_on_main_thread(_arg: int | None) -> int:
    with contextlib.suppress(Exception):  # a C callback must not raise
        if _GUARDS and threading.current_thread() is threading.main_thread():
            _GUARDS[-1]._reinstall_on_main()
    return 0


_reinstall_pending_call = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(_reinstall_on_main_thread)


ctypes.pythonapi.Py_AddPendingCall.argtypes = [type(_reinstall_pending_call), ctypes.c_void_p]
ctypes.pythonapi.Py_AddPendingCall.restype = ctypes.c_int

# The stopper never raises in these: they run on the code's thread but are the watchdog's own.
exempt(
    Watchdog._on_sigint,
    Watchdog._code_at,
    Watchdog._wake_soon,
    Watchdog._wake_task,
    Watchdog._code_waiting,
    _awaits_code,
    _plain_future,
    Watchdog.close,
    Watchdog._disarm,
    Watchdog._restore,
    Watchdog._reinstall_on_main,
    Watchdog.__exit__,
    _reinstall_on_main_thread,
    _cancel_async_exc,
)

# What the main thread runs once the program has ended: joining threads and threading's atexit callbacks.
_EXITING_CODE = threading._shutdown.__code__  # type: ignore[attr-defined]

# Python runs a pending handler at a function's first instruction too: a signal handled there means
# the code has already ended (`fired` still says the limit was reached).
_LEAVING_CODES = frozenset(
    {
        Watchdog.__exit__.__code__,
        Watchdog.close.__code__,
        Watchdog.stop.__code__,
        Watchdog._disarm.__code__,
        Watchdog._restore.__code__,
    }
)
