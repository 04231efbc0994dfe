"""The runtime guard and the time limit inside a separate kernel (`KernelExecutor`).

The code runs in another process there, so the guard must be set up in it: `kernel_guard_source()` is
the code `KernelExecutor` sends once when the kernel starts. It carries the guard's modules as source
(stdlib only, registered under `_twnb_guard.*`, so a kernel without twnb, or with another version of
it, runs exactly this code) and makes a `KernelGuard` for the kernel's shell.

Before each execution the executor says what to expect (`expect`: the code's digest, whether to
refuse, the time limit, twnb's folders); the shell's `pre_run_cell` event arms the guard, keeps the
namespace and starts a watchdog for exactly that cell (another client's cell of an attached kernel is
not armed), and that cell's end ends them. `report_json()` then says what happened: refusals, the
files written, whether the time limit fired, notes.

A cell begun while the announced one is armed runs inside it, still armed: IPython nests cells
(`%%capture` runs its body with `run_cell`, and so does the code's own `get_ipython().run_cell(...)`),
and their events, like any the code raises itself (`shell.events.trigger('post_run_cell', ...)`, from
a callback on the event loop too), end nothing. The announced cell's end is its own `post_run_cell`
(the result carries the `info` `pre_run_cell` armed for), or any cell event, `expect` or
`report_json` once the cell is over (`_ArmedCell.running`: IPython makes a new result when an
interrupt lands in its own code, and may never reach `post_run_cell`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import inspect
import json
import os
import sys
import threading
from dataclasses import asdict, dataclass, field
from types import FrameType
from typing import TYPE_CHECKING, Any

from twnb.kernel.guard.guard_files import risky_sightings, written_files
from twnb.kernel.guard.guard_refusal import CODE, GuardRefusal
from twnb.kernel.guard.runtime_guard import GuardedRun, RuntimeGuard
from twnb.kernel.guard.shell_guard import ShellGuard
from twnb.kernel.guard.started_threads import left_threads_note
from twnb.kernel.guard.trust_base import TrustBase
from twnb.kernel.guard.watchdog import Watchdog

if TYPE_CHECKING:
    from IPython.core.interactiveshell import ExecutionInfo, InteractiveShell
    from IPython.core.interactiveshell import ExecutionResult as CellResult

# Where the sources sent to a kernel live there (never under twnb's own names).
INJECTED_PACKAGE = "_twnb_guard"
# The base module the guard's modules import (shadowed_modules.py, through base's front door): sent
# first, and `from twnb.base import` pointed at it (it imports the standard library only).
_BASE_MODULE = "declared_imports"
# The guard's modules, each after those it imports.
_MODULES = (
    "guard_refusal",
    "guard_events",
    "shadowed_modules",
    "trust_base",
    "guard_trust",
    "guard_provenance",
    "code_stopper",
    "library_writers",
    "started_threads",
    "runtime_guard",
    "shell_guard",
    "guard_files",
    "watchdog",
    "kernel_guard",
)


def code_digest(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class GuardReport:
    """What the announced cell did, as the kernel tells it: what the guard refused, the files written
    (path and size, in the kernel's file system), whether the time limit fired, what the watchdog had
    to do, and refusals in threads of earlier runs (`late`). `ran` is False when the cell never ran
    under the guard (it did not arrive, or the guard could not arm)."""

    ran: bool = False
    refusals: list[GuardRefusal] = field(default_factory=list)
    created: list[tuple[str, int]] = field(default_factory=list)
    modified: list[tuple[str, int]] = field(default_factory=list)
    timed_out: bool = False
    handler_restored: bool = False
    unresponsive: bool = False
    late: list[str] = field(default_factory=list)
    # What risky step mode is told of (guard_files.risky_sightings), in the kernel's file system.
    sightings: list[dict[str, str]] = field(default_factory=list)
    # One line on the threads the code started that were still running when it ended (started_threads.py).
    threads: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> GuardReport:
        data = json.loads(text)
        return cls(
            ran=bool(data.get("ran")),
            refusals=[GuardRefusal.from_dict(r) for r in data.get("refusals", [])],
            created=[(str(p), int(n)) for p, n in data.get("created", [])],
            modified=[(str(p), int(n)) for p, n in data.get("modified", [])],
            timed_out=bool(data.get("timed_out")),
            handler_restored=bool(data.get("handler_restored")),
            unresponsive=bool(data.get("unresponsive")),
            late=[str(note) for note in data.get("late", [])],
            sightings=[
                {"kind": str(s.get("kind", "")), "subject": str(s.get("subject", ""))}
                for s in data.get("sightings", [])
                if isinstance(s, dict)
            ],
            threads=str(data.get("threads", "")),
        )


class KernelGuard:
    """The guard of one kernel's shell, armed for the cells the executor announces."""

    def __init__(self, shell: InteractiveShell) -> None:
        self.shell = shell
        self.guard = RuntimeGuard.installed()
        self.shell_guard = ShellGuard.for_shell(shell, self.guard)
        self._expected: dict[str, Any] | None = None
        self._stack: contextlib.ExitStack | None = None
        self._run: GuardedRun | None = None
        self._watchdog: Watchdog | None = None
        self._cell: _ArmedCell | None = None
        self._skip: list[str] = []
        # twnb's places the client names (trust_base.py), and the trust base built from them
        self._trust_bases: dict[tuple[str, ...], TrustBase] = {}
        self._report = GuardReport()
        shell.events.register("pre_run_cell", self._pre_run_cell)
        shell.events.register("post_run_cell", self._post_run_cell)

    def expect(
        self,
        digest: str,
        refuse: bool,
        timeout: float | None,
        skip: list[str],
        protect: list[str] | None = None,
    ) -> None:
        """Arm the guard for the next cell whose text has `digest`; `protect`: twnb's folders and files
        the code may not write (with this kernel's own trust base: trust_base.py)."""
        self._refuse_from_the_cell("expect")
        self._end()
        self._expected = {
            "digest": digest,
            "refuse": refuse,
            "timeout": timeout,
            "skip": skip,
            "protect": tuple(protect or ()),
        }
        self._report = GuardReport()

    def report_json(self) -> str:
        """What the announced cell did (a GuardReport), as JSON."""
        self._refuse_from_the_cell("report_json")
        self._end()
        self._expected = None
        return self._report.to_json()

    def _refuse_from_the_cell(self, name: str) -> None:
        """The client asks between cells: the armed cell's own code asking would end its run early,
        disarmed, and so would a thread an earlier run's code started (armed for that run for its
        life) asking during a later run. The thread that ran a cell that is over, still armed (its
        post_run_cell never came), is the client's."""
        armed, current, cell = self.guard.armed_run(), self._run, self._cell
        if armed is None or (armed is current and cell is not None and not cell.running()):
            return
        if armed.refuse or (current is not None and current.refuse):
            message = f"calling the runtime guard's {name} is not allowed for generated code."
            self.guard.refuse(armed, self.guard.refusal_here(armed, CODE, f"KernelGuard.{name}", message, ""))

    def _pre_run_cell(self, info: ExecutionInfo) -> None:
        if self._cell is not None and self._cell.running():
            # Begun inside the armed cell (a nested run_cell, `%%capture`, a trigger of the event by
            # the code): it runs armed as part of that cell, and ends nothing.
            return
        self._end()  # a cell that is over but never reached its post_run_cell
        expected, self._expected = self._expected, None
        if expected is None or code_digest(getattr(info, "raw_cell", "") or "") != expected["digest"]:
            if expected is not None:
                self._expected = expected  # another client's cell came first: still waiting for ours
            return
        namespace = self.shell.user_global_ns
        protect = expected.get("protect", ())
        trust_base = self._trust_bases.get(protect)
        if trust_base is None:
            trust_base = self._trust_bases[protect] = TrustBase.build(twnb_folders=protect)
        run = GuardedRun(refuse=bool(expected["refuse"]), code_namespace=namespace, trust_base=trust_base)
        watchdog = Watchdog(
            expected["timeout"], code_namespace=namespace, on_unresponsive=_tell, task=_cell_task()
        )
        stack = contextlib.ExitStack()
        try:
            stack.enter_context(watchdog)  # its thread starts before arming: it is twnb's
            stack.enter_context(self.shell_guard.keeping(run))
            stack.enter_context(self.guard.watching(run))
        except BaseException:
            stack.close()
            raise
        self._stack, self._run, self._watchdog = stack, run, watchdog
        # the frame that began the cell: IPython's run_cell_async, past the event manager's trigger
        self._cell = _ArmedCell(info, threading.get_ident(), sys._getframe(2), _current_task())
        self._skip = list(expected["skip"])
        self._folder = os.getcwd()  # the notebook's folder, as the cell starts (it may move)
        self._report = GuardReport(ran=True, late=[str(r) for r in self.guard.take_late_refusals()])

    def _post_run_cell(self, result: CellResult) -> None:
        cell = self._cell
        if cell is not None and getattr(result, "info", None) is not cell.info and cell.running():
            return  # a nested cell's end, or one the code made up while it runs
        self._end(interrupted=isinstance(getattr(result, "error_in_exec", None), KeyboardInterrupt))

    def _end(self, interrupted: bool = False) -> None:
        stack, run, watchdog = self._stack, self._run, self._watchdog
        if stack is None or run is None or watchdog is None:
            return
        self._stack = self._run = self._watchdog = self._cell = None
        stack.close()
        watchdog.close()
        created, modified = written_files(run, skip=self._skip, workdirs=(os.getcwd(),))
        report = self._report
        report.refusals = list(run.refusals)
        report.created = [(path, _size(path)) for path in created]
        report.modified = [(path, _size(path)) for path in modified]
        report.timed_out = watchdog.fired
        report.handler_restored = bool(watchdog.handler_restored)
        report.unresponsive = watchdog.unresponsive
        why = "at the time limit" if watchdog.fired else "on interrupt" if interrupted else ""
        report.threads = left_threads_note(run.threads, run.code_namespace, why)
        report.sightings = risky_sightings(run, self._folder, skip=self._skip)
        if os.getcwd() != self._folder and not any(s["kind"] == "working_folder" for s in report.sightings):
            report.sightings.append({"kind": "working_folder", "subject": os.getcwd()})


@dataclass
class _ArmedCell:
    """Where the announced cell runs: its ExecutionInfo (the result its own post_run_cell gets carries
    it), its thread, the frame that began it (IPython's run_cell_async: on the stack while the cell's
    code runs, and when the code begins a cell of its own) and the asyncio task it ran in (a cell with
    top-level await runs as a task of its own, suspended at each await)."""

    info: object
    thread: int
    frame: FrameType | None
    task: Any

    def running(self) -> bool:
        """Whether the cell may still be running, as the calling thread sees it: from another thread
        (the code's own) it cannot tell, so yes; its task suspended (a callback on the event loop
        runs meanwhile), or its frame on this stack, yes. A cell that is over is the client's, whose
        post_run_cell came with another result (IPython makes a new one when an interrupt lands in
        its own code) or never came."""
        if threading.get_ident() != self.thread:
            return True
        task = self.task
        if task is not None and task is not _current_task() and not task.done():
            return True
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            if frame is self.frame:
                return True
            frame = frame.f_back
        return False


def _current_task() -> Any:
    """The asyncio task running now, None outside one (or without asyncio loaded)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return None
    try:
        return asyncio.current_task()
    except RuntimeError:  # no event loop running in this thread
        return None


def _cell_task() -> Any:
    """The asyncio task that runs the cell, when it is one of its own: ipykernel (7.x) runs a cell with
    top-level await as a task of IPython's `run_cell_async` (or of shell_guard.py's wrapper of it, which
    bears its name), which waits on the event loop; other cells
    run inside ipykernel's own task, synchronously, where an interrupt raises as usual (watchdog.py)."""
    task = _current_task()
    coro = task.get_coro() if task is not None else None
    return task if getattr(getattr(coro, "cr_code", None), "co_name", "") == "run_cell_async" else None


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _tell(text: str) -> None:
    """Where the in-kernel watchdog says the code cannot be stopped: the cell's stderr."""
    sys.stderr.write(f"\ntwnb: {text}\n")
    sys.stderr.flush()


def kernel_guard_source() -> str:
    """Code that sets the guard up in a kernel: defines `__twnb_guard` (a KernelGuard), hidden from
    the user's namespace listing."""
    base = importlib.import_module(f"twnb.base.{_BASE_MODULE}")
    sources = [(f"{INJECTED_PACKAGE}.{_BASE_MODULE}", inspect.getsource(base))]
    for name in _MODULES:
        module = importlib.import_module(f"twnb.kernel.guard.{name}")
        source = inspect.getsource(module).replace("twnb.kernel.guard.", f"{INJECTED_PACKAGE}.")
        source = source.replace("from twnb.base import ", f"from {INJECTED_PACKAGE}.{_BASE_MODULE} import ")
        sources.append((f"{INJECTED_PACKAGE}.{name}", source))
    return (
        "def __twnb_setup_guard(sources):\n"
        "    import sys, types\n"
        "    for name, source in sources:\n"
        "        if name in sys.modules:\n"
        "            continue\n"
        "        module = types.ModuleType(name)\n"
        "        module.__file__ = '<' + name + '>'\n"
        "        sys.modules[name] = module  # dataclasses and the guard's imports look modules up\n"
        "        try:\n"
        "            exec(compile(source, '<' + name + '>', 'exec'), module.__dict__)\n"
        "        except BaseException:\n"
        "            del sys.modules[name]\n"
        "            raise\n"
        f"    guard = sys.modules['{INJECTED_PACKAGE}.kernel_guard'].KernelGuard(get_ipython())\n"
        "    get_ipython().user_ns['__twnb_guard'] = guard\n"
        "    get_ipython().user_ns_hidden['__twnb_guard'] = guard\n"
        f"__twnb_setup_guard({sources!r})\n"
        "del __twnb_setup_guard\n"
    )
