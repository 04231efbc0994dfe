"""Stopping code that catches every interrupt, past its time limit: the watchdog's last resort.

`while True: try: time.sleep(0.05) except BaseException: pass` survives any number of interrupts: each
one lands inside the `try` and is swallowed, however it is delivered (a signal, or
`PyThreadState_SetAsyncExc` every millisecond). What stops it is an exception raised *where nothing in
the code catches it*, and only Python code running in the code's own thread can choose that place. So
once the watchdog's interrupts have been ignored, it asks the main thread (a pending call,
`Py_AddPendingCall`: the code cannot ignore or replace it, unlike a signal handler) to install a stopper:

- Python 3.12 and later: `sys.monitoring` callbacks for every line, jump and function start, in every
  code object. Each raises the time-limit exception when it fires in the code's frames, and switches
  itself off (`DISABLE`) where it fires outside them (other threads, IPython formatting the traceback
  once the code has stopped), so those cost one look each. Monitoring is
  not switched off by a callback that raises, so an `except` that swallows the exception only moves it:
  the handler's own next line raises again, outside the `try`, and it propagates out. Measured: every
  loop in tests/kernel/test_kernel_time_limit.py stops within 0.05 s of the stopper, even
  `while True: pass` inside `try/except: continue`.
- Python 3.11: `sys.settrace` with per-opcode events. A trace function that raises is switched off by
  CPython, so it raises only at an *escape point*: an instruction that no `except` or `finally` of the
  code's frames covers (read from each code object's exception table), from where the exception is
  sure to leave the code; between escape points it just watches. A loop that never leaves a `try`
  (`while True: pass` inside `try/except: continue`) has no escape point: 3.11 cannot stop it this way,
  and the watchdog says so in the cell as for a blocking C call.

Nothing of this runs before the deadline: a trace or monitoring callback kept on while code runs costs
1.4x to 1.8x (measured on a pandas group-by and a JSON loop), so the stopper exists only past the limit
and is removed as soon as the code has ended. "The code's frames" are those below the code's
outermost frame, below `entry` (where the watchdog was entered): a `<module>` frame whose globals are
`code_namespace` (the shell's namespace), else any frame `entry` called. IPython's machinery above the
code (which catches the exception and shows its traceback) and the user's own cell that asked for the
Round (above `entry`, in the same namespace) are never touched. Code that awaits at its top level (an
async cell's task) is off the stack while it waits, not ended: `waiting` says so, and 3.11's trace
function stays on meanwhile, so that it raises when the code's coroutine resumes.
"""

from __future__ import annotations

import contextlib
import ctypes
import dis
import sys
import threading
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

# sys.monitoring tool ids that debuggers, coverage and profilers do not take by convention
_TOOL_IDS = (3, 4)


class CodeStopper:
    """Raises `exception` in the code's frames once installed (`install`, on the code's thread)
    until removed (`remove`, on the same thread)."""

    def __init__(
        self,
        exception: type[BaseException],
        *,
        code_namespace: dict[str, Any] | None = None,
        entry: FrameType | None = None,
        waiting: Callable[[], bool] | None = None,
    ) -> None:
        self.exception = exception
        # Whether the code awaits, off the stack but not ended (an async cell's task: watchdog.py)
        self.waiting = waiting
        self.code_namespace = code_namespace
        self.entry = entry
        self.installed = False
        self.mode = ""  # "monitoring" or "trace" once installed
        self._active = False
        self._removed = False
        self._tool: int | None = None
        self._disable: Any = None
        self._traced_frames: list[FrameType] = []
        self._previous_trace: Any = None
        self._handlers: dict[CodeType, list[tuple[int, int, bool]]] = {}
        self._lineless: dict[CodeType, list[tuple[int, int]]] = {}
        self._own_codes = EXEMPT_CODES
        self._thread_ident = threading.get_ident()

    # -- on the code's thread ------------------------------------------------------------------------

    def install(self) -> None:
        """Start stopping the code (idempotent). Called on the code's thread, between its bytecodes."""
        if self._removed or threading.get_ident() != self._thread_ident:
            return
        self._active = True
        here = sys._getframe(1)
        if self.installed:
            if self.mode == "trace" and self._code_alive(here):
                self._install_trace(here)  # CPython switched it off after the last raise, or it paused
            return
        if sys.version_info < (3, 12) and not self._code_alive(here):
            return  # nothing of the code's to stop (it has ended): the watchdog asks again if it runs
        self.installed = True
        if not (sys.version_info >= (3, 12) and self._install_monitoring()):
            self._previous_trace = sys.gettrace()
            self._install_trace(here)

    def remove(self) -> None:
        """Stop raising and take every hook away (idempotent); the previous trace function is put back."""
        self._active = False
        self._removed = True
        if self._tool is not None:
            monitoring: Any = vars(sys)["monitoring"]
            monitoring.set_events(self._tool, 0)
            for event in _monitored_events(monitoring):
                monitoring.register_callback(self._tool, event, None)
            monitoring.free_tool_id(self._tool)
            monitoring.restart_events()  # the places this tool disabled, for whoever uses the id next
            self._tool = None
        if self.mode == "trace" and threading.get_ident() == self._thread_ident:
            sys.settrace(self._previous_trace)
            for frame in self._traced_frames:
                frame.f_trace = None
                frame.f_trace_opcodes = False
        self._traced_frames = []
        self._handlers.clear()
        self._lineless.clear()

    # -- where the code is -----------------------------------------------------------------------------

    def code_on_stack(self, frame: FrameType | None) -> bool:
        """Whether the code's outermost frame is in `frame`'s stack: the code is still running (from any
        thread: the watchdog looks at the main thread's stack). False once it has ended, while the shell
        formats its traceback."""
        entry, namespace = self.entry, self.code_namespace
        f = frame
        while f is not None:
            if f is entry:
                return namespace is None  # without a namespace, the code is the `with` block's
            if namespace is not None and f.f_globals is namespace and f.f_code.co_name == "<module>":
                return True
            f = f.f_back
        return False

    def _code_alive(self, frame: FrameType | None) -> bool:
        """The code runs in `frame`'s stack, or awaits (its coroutine resumes later: tracing stays on)."""
        return self.code_on_stack(frame) or (self.waiting is not None and self.waiting())

    def _in_code(self, frame: FrameType | None) -> bool:
        """Whether `frame` is one of the code's: at or below its outermost frame, not the stopper's own."""
        entry, namespace = self.entry, self.code_namespace
        f = frame
        while f is not None and f is not entry:
            code = f.f_code
            if code in self._own_codes:
                return False
            if namespace is not None:
                if f.f_globals is namespace and code.co_name == "<module>":
                    return True
            elif f.f_back is entry:
                return True
            f = f.f_back
        return False

    # -- 3.12 and later: sys.monitoring ------------------------------------------------------------------

    def _install_monitoring(self) -> bool:
        monitoring: Any = vars(sys)["monitoring"]
        for tool in _TOOL_IDS:
            try:
                monitoring.use_tool_id(tool, "twnb-time-limit")
            except ValueError:
                continue  # taken by another tool
            self._tool = tool
            self._disable = monitoring.DISABLE
            events = 0
            for event in _monitored_events(monitoring):
                monitoring.register_callback(tool, event, self._on_event)
                events |= event
            monitoring.set_events(tool, events)
            self.mode = "monitoring"
            return True
        return False

    def _on_event(self, *args: Any) -> Any:
        if self._active and self._in_code(sys._getframe(1)):
            raise self.exception
        # Not the code's: this place need not be looked at again (other threads, IPython formatting
        # the traceback once the code has stopped). The code's own frames always are the code's.
        return self._disable

    # -- 3.11: sys.settrace, raising only at escape points ------------------------------------------------

    def _install_trace(self, frame: FrameType | None) -> None:
        self.mode = "trace"
        f = frame
        while f is not None and f.f_code in self._own_codes:
            f = f.f_back  # the pending call that brought us here
        while f is not None and self._in_code(f):
            f.f_trace = self._local_trace
            f.f_trace_opcodes = True
            self._traced_frames.append(f)
            f = f.f_back
        sys.settrace(self._global_trace)

    def _global_trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        if not self._active or not self._in_code(frame):
            if self._active and not self._code_alive(frame):
                # The code has ended (the shell formats its traceback: stack_data parses every file in
                # it, millions of calls each paying this function): stop tracing. The watchdog asks
                # for the stopper again if the code turns out to run on.
                sys.settrace(self._previous_trace)
            return None  # not the code's: this frame is not traced at all
        frame.f_trace_opcodes = True
        return self._local_trace

    def _local_trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        if self._active and event == "opcode" and self._has_line(frame) and self._escape_point(frame):
            # CPython switches tracing off once this raises: should the code survive it after all
            # (a `with` whose __exit__ swallows it), tracing comes back at its next bytecode boundary.
            _queue_on_main(self)
            raise self.exception
        return self._local_trace

    def _has_line(self, frame: FrameType) -> bool:
        """Whether the frame's instruction has a line: raised at one without (the compiler's own, such
        as a loop's jump back after an `except`), the traceback has a line of None, which IPython 9
        cannot format (it shows "Unexpected exception formatting exception" and no traceback)."""
        code = frame.f_code
        lineless = self._lineless.get(code)
        if lineless is None:
            lineless = self._lineless[code] = [(a, b) for a, b, line in code.co_lines() if line is None]
        lasti = frame.f_lasti
        return not any(start <= lasti < end for start, end in lineless)

    def _escape_point(self, frame: FrameType) -> bool:
        """No handler of the code's frames covers where each of them is: raised here, it leaves the code."""
        f: FrameType | None = frame
        while f is not None and f is not self.entry:
            if f.f_code in self._own_codes or self._swallowing_handler(f):
                return False
            if self.code_namespace is not None:
                if f.f_globals is self.code_namespace and f.f_code.co_name == "<module>":
                    return True
            elif f.f_back is self.entry:
                return True
            f = f.f_back
        return False

    def _swallowing_handler(self, frame: FrameType) -> bool:
        """Whether an `except` or `finally` covers the frame's current instruction (a `with` block's
        cleanup re-raises unless its __exit__ says otherwise, and handlers' own cleanups re-raise)."""
        code = frame.f_code
        table = self._handlers.get(code)
        if table is None:
            table = self._handlers[code] = _handler_table(code)
        lasti = frame.f_lasti
        return any(start <= lasti < end and swallows for start, end, swallows in table)


def _handler_table(code: CodeType) -> list[tuple[int, int, bool]]:
    parse = getattr(dis, "_parse_exception_table", None)
    if parse is None:
        return []
    names = {instruction.offset: instruction.opname for instruction in dis.get_instructions(code)}
    table = []
    for entry in parse(code):
        first, second = names.get(entry.target), names.get(entry.target + 2)
        swallows = first == "PUSH_EXC_INFO" and second != "WITH_EXCEPT_START"
        table.append((entry.start, entry.end, swallows))
    return table


def _monitored_events(monitoring: Any) -> tuple[int, ...]:
    events = monitoring.events
    return (events.LINE, events.JUMP, events.PY_START, events.PY_RESUME)


# -- asking the main thread to install a stopper (the watchdog's thread may not set trace functions) ----

_WAITING: list[CodeStopper] = []
_WAITING_LOCK = threading.Lock()


def _run_waiting(_arg: int | None) -> int:
    with _WAITING_LOCK:
        waiting = list(_WAITING)
        _WAITING.clear()
    for stopper in waiting:
        with contextlib.suppress(Exception):  # a C callback must not raise; the watchdog goes on
            stopper.install()
    return 0


_PENDING_CALL_TYPE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
_PENDING_CALL = _PENDING_CALL_TYPE(_run_waiting)
# A function object of our own (the watchdog sets argtypes on `ctypes.pythonapi`'s shared one).
_ADD_PENDING_CALL = ctypes.PYFUNCTYPE(ctypes.c_int, _PENDING_CALL_TYPE, ctypes.c_void_p)(
    ("Py_AddPendingCall", ctypes.pythonapi)
)


def _queue_on_main(stopper: CodeStopper) -> bool:
    """Have the main thread install `stopper` at its next bytecode boundary (False: the queue is full,
    try again later)."""
    with _WAITING_LOCK:
        if stopper not in _WAITING:
            _WAITING.append(stopper)
    return int(_ADD_PENDING_CALL(_PENDING_CALL, None)) == 0


def request_install(stopper: CodeStopper) -> bool:
    """From any thread: install `stopper` on the main thread as soon as it runs Python again."""
    return _queue_on_main(stopper)


def exempt(*functions: Any) -> None:
    """Never raise in these functions (twnb's own code that runs on the code's thread while it runs:
    the watchdog's signal handler, the runtime guard's audit hook), nor count them as the code's."""
    for function in functions:
        code = getattr(function, "__code__", None)
        if isinstance(code, CodeType):
            EXEMPT_CODES.add(code)


# Code objects the stopper never raises in: its own, and what `exempt` adds.
EXEMPT_CODES: set[CodeType] = set()
exempt(
    CodeStopper.install,
    CodeStopper.remove,
    CodeStopper._in_code,
    CodeStopper.code_on_stack,
    CodeStopper._code_alive,
    CodeStopper._on_event,
    CodeStopper._global_trace,
    CodeStopper._local_trace,
    CodeStopper._escape_point,
    CodeStopper._has_line,
    CodeStopper._swallowing_handler,
    CodeStopper._install_trace,
    CodeStopper._install_monitoring,
    _handler_table,
    _run_waiting,
    _queue_on_main,
)
