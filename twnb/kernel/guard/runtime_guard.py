"""The runtime guard: what generated code does while it runs, seen and judged as it happens.

Verification reads the code before it runs; this watches what it does, whatever route it took
(`os.system`, `get_ipython().system`, a magic behind `.ex(...)`, IPython's background jobs, a thread).
One PEP 578 audit hook per process (`sys.addaudithook`: it can never be removed, so it is added once and
acts only for threads that are *armed*). A thread is armed while it runs generated code (`watching`)
and, for their whole life, so are the threads that code starts: their start functions are wrapped so
each new thread arms itself with its parent's run. The user's own cells run unarmed and are never
touched.

For an armed thread, the hook (guard_events.py says what each event means):
- refuses process creation, ctypes used by the code itself, and signals to the kernel's own process:
  it records a `GuardRefusal` in the run (with the line of the code that did it) and raises
  `RuntimeGuardRefused` there, so the action never happens; the run keeps the refusal even when the
  code catches the exception;
- records the files the code opened for writing, moved, removed: the run's exact artifacts, wherever
  the working folder is (guard_files.py turns them into paths).

Data libraries that write files from C (pyarrow, polars) raise no audit event either: their writers
tell the guard (library_writers.py). Some ways to stop the kernel raise no audit event (`os._exit`,
`os.abort`, faulthandler's crash helpers, `signal.raise_signal`, `signal.alarm`, and
`_posixsubprocess.fork_exec`, which multiprocessing calls directly): those functions are wrapped,
once, and refuse for armed threads only. IPython's own routes (`reset`, `ask_exit`, a cleared
namespace) are the shell's business: shell_guard.py.

Code the user or twnb provided before the run (a plugin) may do what generated code may not, when
generated code calls it: twnb's entry point opens a trusted section (`trusted`), and guard_trust.py
reads from the stack, at each action, whether trusted code is really the one acting.

What it cannot do: code that means harm can disarm anything in its own process (reach the original
functions, clear the armed set, write memory through a C extension). The guard stops what a model
plausibly writes, including its next try after a refusal; it is not a sandbox.

Stdlib only (IPython is not needed here): kernel_guard.py sends this source to kernels where twnb is
not installed.
"""

from __future__ import annotations

import _thread
import contextlib
import faulthandler
import functools
import linecache
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import CodeType, FrameType, TracebackType
from typing import Any, ClassVar

from twnb.kernel.guard.code_stopper import exempt
from twnb.kernel.guard.guard_events import (
    HINTS,
    LIBRARY_HELPERS,
    THREAD_EVENTS,
    WATCHED_EVENTS,
    FileEffect,
    file_effect,
    is_ctypes,
    refusal_for,
    sighting_for,
    started_program,
)
from twnb.kernel.guard.guard_provenance import (
    DESCRIPTOR,
    RESOURCE_EVENTS,
    UNARMED_EVENTS,
    Provenance,
    asking_module,
    follow_pools,
    pidfd_target,
)
from twnb.kernel.guard.guard_provenance import HINTS as PROVENANCE_HINTS
from twnb.kernel.guard.guard_refusal import (
    CODE,
    KERNEL_EXIT,
    PROCESS,
    SETTINGS,
    SIGNAL,
    THREAD,
    TRUST_BASE,
    GuardRefusal,
    RuntimeGuardRefused,
)
from twnb.kernel.guard.guard_trust import CODE_EVENTS, ROOT, CodeOrigins, Section, Trust, _ImportSystem
from twnb.kernel.guard.library_writers import LibraryWriters
from twnb.kernel.guard.shadowed_modules import ModuleShadows
from twnb.kernel.guard.started_threads import StartedThread, started_thread
from twnb.kernel.guard.trust_base import SETTINGS_HINT, TRUST_BASE_HINT, TRUST_ONLY_EVENTS, TrustBase, Verdict

_MAX_SIGHTINGS = 100  # a loop of requests is said once per address, and not without end
_KERNEL_EXIT_HINT = "Let the code end normally, or raise an exception to stop early."


@dataclass
class GuardedRun:
    """One execution under the guard: whether it refuses (False: verification is off, files are still
    recorded), the namespace its code runs in (to find the code's line in a stack), and what happened.

    `writes` maps each file the code wrote to whether it existed before its first write; `maybe_writes`
    (databases it opened) to their (size, mtime) before, None when absent."""

    refuse: bool = True
    code_namespace: dict[str, Any] | None = None
    refusals: list[GuardRefusal] = field(default_factory=list)
    writes: dict[str, bool] = field(default_factory=dict)
    # Files that existed before the run and that it removed (or moved away), in order.
    removed: list[str] = field(default_factory=list)
    # (kind, subject) of what else it did that risky step mode is told of (guard_events.sighting_for).
    sightings: list[tuple[str, str]] = field(default_factory=list)
    maybe_writes: dict[str, tuple[int, int] | None] = field(default_factory=dict)
    ended: bool = False
    # Called with a file that existed before the run, just before the code first writes over, moves
    # or removes it (its content is still the old one): undo keeps a copy (undo_log.py).
    keep_before: Callable[[str], None] | None = None
    # The frame that armed the run (the executor's): the code's frames are below it. Held while armed.
    armed_in: FrameType | None = None
    # The run this one was armed inside, if any: what is refused here is refused there too.
    outer: GuardedRun | None = None
    # What the code may never write (trust_base.py); None: the process's own (RuntimeGuard.watching).
    trust_base: TrustBase | None = None
    # The threads the code started that are running now, by id (started_threads.py).
    threads: dict[int, StartedThread] = field(default_factory=dict)

    def record(self, effect: FileEffect) -> None:
        path = effect.path
        if self.keep_before is not None:
            self._keep_before(effect)
        if effect.kind == "write":
            if path not in self.writes:
                self.writes[path] = os.path.lexists(path)
        elif effect.kind == "maybe_write":
            if path not in self.writes and path not in self.maybe_writes:
                self.maybe_writes[path] = file_signature(path)
        elif effect.kind == "move":
            self._removing(effect.source)
            self.writes.pop(effect.source, None)
            self.maybe_writes.pop(effect.source, None)
            if path not in self.writes:
                self.writes[path] = os.path.lexists(path)
        elif effect.kind == "remove":
            self._removing(path)
            self.writes.pop(path, None)
            self.maybe_writes.pop(path, None)
        elif effect.kind == "remove_tree":
            self._removing(path)
            prefix = path.rstrip(os.sep) + os.sep
            for table in (self.writes, self.maybe_writes):
                for written in [p for p in table if p == path or p.startswith(prefix)]:
                    del table[written]

    def with_outer(self) -> list[GuardedRun]:
        """This run and those it was armed inside: a thread its code starts is theirs too."""
        runs: list[GuardedRun] = []
        each: GuardedRun | None = self
        while each is not None:
            runs.append(each)
            each = each.outer
        return runs

    def _keep_before(self, effect: FileEffect) -> None:
        keep = self.keep_before
        touched = [effect.path]
        if effect.kind == "move" and effect.source:
            touched.append(effect.source)
        elif effect.kind == "remove_tree":
            return
        for path in touched:
            if path not in self.writes and path not in self.maybe_writes and os.path.isfile(path):
                try:
                    if keep is not None:
                        keep(path)
                except Exception:  # keeping a copy is a courtesy: never break the code's write
                    pass

    def _removing(self, path: str) -> None:
        """`path` is about to go: kept as removed when it existed before the run (not one it made)."""
        if not self.writes.get(path, True) or path in self.removed:
            return
        if os.path.lexists(path):
            self.removed.append(path)


class RuntimeGuard:
    """The process's guard. `RuntimeGuard.installed()` gives the one instance, installing it first."""

    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self) -> None:
        # thread ident -> the run it works for. Read by the hook for every watched event (a dict lookup).
        self._armed: dict[int, GuardedRun] = {}
        self._busy = threading.local()  # the hook's own file reads must not come back into it
        self._late: list[GuardRefusal] = []  # refused in threads of runs that had ended
        self._trust = Trust()
        # who made or chose what leads to a forbidden act (guard_provenance.py)
        self._provenance = Provenance(self._trust.origins)
        self._trust_base: TrustBase | None = None  # Python's, IPython's and Jupyter's places, built once

    @classmethod
    def installed(cls) -> RuntimeGuard:
        """The guard of this process (one hook per process, however often twnb's modules are loaded)."""
        with cls._lock:
            guard: RuntimeGuard | None = getattr(sys, _PROCESS_ATTRIBUTE, None)
            if guard is None:
                guard = cls()
                guard._install()
                setattr(sys, _PROCESS_ATTRIBUTE, guard)
            return guard

    # -- arming --------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def watching(self, run: GuardedRun) -> Iterator[GuardedRun]:
        """Arm the calling thread for `run` while the block runs (threads it starts stay armed). Inside
        a run that refuses, a run armed again refuses too (generated code cannot arm itself a lenient
        one), and trusted sections open around it do not reach into it."""
        ident = threading.get_ident()
        previous = self._armed.get(ident)
        if previous is not None:
            run.outer = previous
            run.refuse = run.refuse or previous.refuse
            run.trust_base = run.trust_base or previous.trust_base
        if run.trust_base is None:
            run.trust_base = self.default_trust_base()
        sections = self._trust.sections.pop(ident, None)
        if previous is None:
            self._provenance.arming()
            follow_pools(self._follow_work)
            run.trust_base.new_run()
        run.armed_in = sys._getframe(2)  # past contextlib's __enter__: the `with` statement's frame
        self._armed[ident] = run
        try:
            yield run
        finally:
            if previous is None:
                self._armed.pop(ident, None)
            else:
                self._armed[ident] = previous
            if sections is not None:
                self._trust.sections[ident] = sections
            run.ended = True
            run.armed_in = None

    def trust_entry(self, code: CodeType) -> None:
        """Register `code` as twnb's entry point into trusted code (`PluginFunction._call`): only a
        frame running it can open a trusted section. Refused while generated code runs."""
        run = self.armed_run()
        if run is not None:
            message = "registering an entry point of the runtime guard is not allowed for generated code."
            self.refuse(run, self.refusal_here(run, CODE, "RuntimeGuard.trust_entry", message, ""))
        self._trust.entries.add(code)

    def trusted(self, code: CodeType | None) -> TrustedSection:
        """A `with` block in a registered entry point (`trust_entry`) in which the plugin whose code is
        `code` (what the entry calls directly; None: not Python code) acts as trusted code: see
        guard_trust.py. Opened anywhere else, it changes nothing."""
        return TrustedSection(self, code)

    def trusted_here(self, frame: FrameType | None) -> bool:
        """Whether the calling thread, at `frame`, runs trusted code inside a trusted section."""
        return self._trust.here(threading.get_ident(), frame)

    def default_trust_base(self) -> TrustBase:
        """The trust base of a run that names none: this process's Python, IPython, Jupyter and shell
        places (trust_base.py), built at the first run."""
        if self._trust_base is None:
            self._trust_base = TrustBase.build()
        return self._trust_base

    def wrote(self, path: str) -> bool:
        """Whether generated code wrote (or moved a file to) `path` in this process: a file a Round
        wrote is never loaded as settings, a plugin or an MCP server."""
        written = self._trust.origins.written
        return os.path.abspath(path) in written or os.path.realpath(path) in written

    def armed_run(self) -> GuardedRun | None:
        """The run the calling thread works for, if it is armed."""
        return self._armed.get(threading.get_ident())

    def take_late_refusals(self) -> list[GuardRefusal]:
        """What the guard refused in threads of runs that had already ended (told with the next run)."""
        late, self._late = self._late, []
        return late

    def refuse(self, run: GuardedRun, refusal: GuardRefusal) -> None:
        """Record `refusal` in `run` (or as late, if the run has ended) and raise it where we are."""
        told = False
        each: GuardedRun | None = run
        while each is not None:
            if not each.ended:
                each.refusals.append(refusal)
                told = True
            each = each.outer
        if not told:
            self._late.append(refusal)
        raise RuntimeGuardRefused(refusal)

    def refusal_here(
        self, run: GuardedRun, rule: str, event: str, message: str, hint: str, subject: str = ""
    ) -> GuardRefusal:
        """A refusal naming the line of the code being run in the calling thread's stack."""
        line, source = _code_line(sys._getframe(1), run)
        return GuardRefusal(rule, event, message, hint, line, source, subject)

    # -- the hook ---------------------------------------------------------------------------------------

    def _audit_hook(self) -> Callable[[str, tuple[Any, ...]], None]:
        """The hook: a plain function with its lookups bound (a bound method called by the
        interpreter costs twice as much, on every audit event of the process)."""
        watched, armed, act = (
            WATCHED_EVENTS | CODE_EVENTS | RESOURCE_EVENTS | TRUST_ONLY_EVENTS,
            self._armed,
            self._act,
        )
        unarmed, act_unarmed = UNARMED_EVENTS, self._act_unarmed
        get_ident = threading.get_ident

        def audit_hook(event: str, args: tuple[Any, ...]) -> None:
            if event not in watched:
                return
            run = armed.get(get_ident())
            if run is not None:
                act(run, event, args)
            elif event in unarmed:
                act_unarmed(event, args)

        exempt(audit_hook)
        return audit_hook

    def _act(self, run: GuardedRun, event: str, args: tuple[Any, ...]) -> None:
        if getattr(self._busy, "on", False):
            return
        self._busy.on = True
        try:
            refusal = self._judge(run, event, args)
        except Exception:  # a fault of ours must never break what the code was doing
            refusal = None
        finally:
            self._busy.on = False
        if isinstance(refusal, OSError):
            raise refusal  # a bytecode cache in the trust base: the writer goes on without (trust_base.py)
        if refusal is not None:
            self.refuse(run, refusal)

    def _act_unarmed(self, event: str, args: tuple[Any, ...]) -> None:
        """Outside any run: what generated code made may still lead to a forbidden act (a function it
        defined, called back later; a module it wrote, loaded as a library's backend)."""
        origins = self._trust.origins
        marked = origins.written or (
            event != "exec" and (origins.generated or self._provenance.code_path_entries)
        )
        if getattr(self._busy, "on", False) or not marked:
            return
        self._busy.on = True
        try:
            frame = sys._getframe(2)
            if event == "exec":
                self._provenance.note_unarmed_exec(args, frame)
                refusal = None
            else:
                refusal = self._provenance.unarmed_refusal(event, args, frame)
        except Exception:  # a fault of ours must never break what the user was doing
            refusal = None
        finally:
            self._busy.on = False
        if refusal is not None:
            self._late.append(refusal)
            raise RuntimeGuardRefused(refusal)

    def _follow_work(self, function: Callable[..., Any]) -> Callable[..., Any]:
        """A work item handed to a thread pool: from an armed thread, it runs armed in the worker."""
        run = self._armed.get(threading.get_ident())
        if run is None or isinstance(function, _Follower):
            return function
        return _Follower(function, self, run, self.trusted_here(sys._getframe(2)))

    def _judge(self, run: GuardedRun, event: str, args: tuple[Any, ...]) -> GuardRefusal | OSError | None:
        trust = self._trust
        # inside a plugin the stack says who acts (the frame that raised the event is past _act and
        # the hook); with no trusted section open anywhere, nothing is looked up
        trusted = bool(trust.sections) and trust.here(threading.get_ident(), sys._getframe(3))
        effect = file_effect(event, args)
        if run.refuse and not trusted and run.trust_base is not None:
            verdict = run.trust_base.judge(event, args, effect)
            if verdict is not None:
                if verdict.kind == "cache":
                    return verdict.denial()
                hint = verdict.hint or (SETTINGS_HINT if verdict.kind == SETTINGS else TRUST_BASE_HINT)
                return self._refusal(run, verdict.kind, event, verdict.message, hint, verdict.subject)
        if effect is not None:
            if trusted:
                return None  # a plugin's files are its own (its context adds the ones it means)
            run.record(effect)
            if effect.kind in ("write", "move"):
                trust.origins.written.add(effect.path)
            return None
        if event in CODE_EVENTS:
            judged = None if trusted else trust.origins.note(event, args, sys._getframe(3))
            if judged is None or not run.refuse:
                return None
            rule, subject, message = judged
            return self._refusal(run, rule, event, message, HINTS.get(rule, ""), subject)
        sighting = sighting_for(event, args)
        if sighting is not None:
            if not trusted:
                self._provenance.note_environment(event, args)
            if sighting[0] == "environment" and _importing(sys._getframe(3)):
                return None  # a library's import sets its own variables (numpy's OPENBLAS_MAIN_FREE)
            if not trusted and sighting not in run.sightings and len(run.sightings) < _MAX_SIGHTINGS:
                run.sightings.append(sighting)
            return None
        if not run.refuse or trusted:
            return None
        if event in THREAD_EVENTS:
            # 3.12 and later report every thread start: one not made through our wrappers (a start
            # function captured before the guard) would run unarmed, so it is refused.
            if args and not isinstance(args[0], _Follower):
                message = "starting a thread with a start function the guard cannot follow is not allowed."
                return self._refusal(run, THREAD, event, message, HINTS[THREAD])
            return None
        judged = refusal_for(event, args) or self._provenance.refusal_for(event, args)
        if judged is None:
            return None
        rule, subject, message = judged
        provenance = self._provenance
        if is_ctypes(event) and provenance.own_ctypes(sys._getframe(3)):
            return None  # a library loads its own C code (on its import; threadpoolctl, say)
        if (
            rule == PROCESS
            and (asking_module(sys._getframe(3)), started_program(event, args)) in LIBRARY_HELPERS
            and provenance.system_program(event, args)
        ):
            return None  # a library runs one of its own helper programs (matplotlib's fc-list, say)
        hint = HINTS.get(rule, PROVENANCE_HINTS.get(rule, ""))
        return self._refusal(run, rule, event, message, hint, subject)

    def _refusal(
        self, run: GuardedRun, rule: str, event: str, message: str, hint: str, subject: str = ""
    ) -> GuardRefusal:
        line, source = _code_line(sys._getframe(4), run)
        return GuardRefusal(rule, event, message, hint, line, source, subject)

    # -- installing -------------------------------------------------------------------------------------

    def _install(self) -> None:
        self._follow_threads()
        self._wrap_unaudited()
        LibraryWriters(self._record_armed).install()
        sys.addaudithook(self._audit_hook())

    def _record_armed(self, effect: FileEffect) -> None:
        """A file a library writes from C (library_writers.py), for the calling thread's run if armed;
        refused in the trust base."""
        run = self._armed.get(threading.get_ident())
        if run is None:
            return
        if run.refuse and run.trust_base is not None and not self.trusted_here(sys._getframe(1)):
            verdict: Verdict | None = run.trust_base.judge("library writer", (), effect)
            if verdict is not None and verdict.kind == "cache":
                raise verdict.denial()
            if verdict is not None:
                message, subject, hint = verdict.message, verdict.subject, verdict.hint or TRUST_BASE_HINT
                self.refuse(run, self.refusal_here(run, TRUST_BASE, "library writer", message, hint, subject))
        run.record(effect)

    def _follow_threads(self) -> None:
        for module in (_thread, threading):
            for name in ("start_new_thread", "start_new", "_start_new_thread", "start_joinable_thread",
                         "_start_joinable_thread"):  # fmt: skip
                original = getattr(module, name, None)
                if callable(original) and not isinstance(original, _ThreadStart):
                    setattr(module, name, _ThreadStart(original, self))

    def _wrap_unaudited(self) -> None:
        """Functions that stop the kernel, or start processes, without raising an audit event."""

        def exits(name: str) -> Callable[[tuple[Any, ...]], str | None]:
            def judge(args: tuple[Any, ...]) -> str | None:
                return f"{name} would stop the notebook's kernel and lose every variable."

            return judge

        def signal_to_self(name: str, delay_index: int | None) -> Callable[[tuple[Any, ...]], str | None]:
            def judge(args: tuple[Any, ...]) -> str | None:
                if delay_index is not None and len(args) > delay_index and not args[delay_index]:
                    return None  # alarm(0) and setitimer(which, 0) cancel a timer
                return f"{name} sends a signal to the notebook's own kernel, which could stop it."

            return judge

        self._wrap(os, "_exit", KERNEL_EXIT, exits("os._exit"), _KERNEL_EXIT_HINT)
        self._wrap(os, "abort", KERNEL_EXIT, exits("os.abort"), _KERNEL_EXIT_HINT)
        # its test helpers crash the process on purpose
        for name in (
            "_sigsegv",
            "_sigabrt",
            "_sigfpe",
            "_read_null",
            "_fatal_error_c_thread",
            "_stack_overflow",
        ):
            self._wrap(faulthandler, name, KERNEL_EXIT, exits(f"faulthandler.{name}"), _KERNEL_EXIT_HINT)
        for name, delay_index in (("raise_signal", None), ("alarm", 0), ("setitimer", 1)):
            self._wrap(signal, name, SIGNAL, signal_to_self(f"signal.{name}", delay_index), HINTS[SIGNAL])
        try:
            import _posixsubprocess  # lazy: absent off POSIX, where there is no fork_exec to wrap
        except ImportError:
            return
        self._wrap_descriptors()
        self._wrap(
            _posixsubprocess,
            "fork_exec",
            "process",
            lambda args: "starting a process (_posixsubprocess.fork_exec) is not allowed for generated code.",
            HINTS["process"],
        )

    def _wrap_descriptors(self) -> None:
        """Closing the kernel's descriptors (its sockets) and signalling it through a pidfd raise no
        audit event either."""
        provenance = self._provenance

        def closing(name: str, low: int, high: int | None) -> Callable[[tuple[Any, ...]], str | None]:
            def judge(args: tuple[Any, ...]) -> str | None:
                first = args[low] if len(args) > low else None
                last = args[high] if high is not None and len(args) > high else None
                if not isinstance(first, int):
                    return None
                end = last if isinstance(last, int) else first + 1
                return provenance.closes_kernel_descriptor(name, first, end)

            return judge

        hint = PROVENANCE_HINTS[DESCRIPTOR]
        self._wrap(os, "close", DESCRIPTOR, closing("os.close", 0, None), hint)
        self._wrap(os, "closerange", DESCRIPTOR, closing("os.closerange", 0, 1), hint)
        self._wrap(os, "dup2", DESCRIPTOR, closing("os.dup2", 1, None), hint)

        def pidfd_signal(args: tuple[Any, ...]) -> str | None:
            if len(args) >= 2 and args[1] == 0:
                return None
            target = pidfd_target(args[0]) if args else None
            if target is not None and target not in (os.getpid(), os.getppid()):
                return None
            return "signal.pidfd_send_signal sends a signal to the notebook's own kernel: it could stop."

        self._wrap(signal, "pidfd_send_signal", SIGNAL, pidfd_signal, HINTS[SIGNAL])

    def _wrap(
        self,
        module: Any,
        name: str,
        rule: str,
        judge: Callable[[tuple[Any, ...]], str | None],
        hint: str,
    ) -> None:
        original = getattr(module, name, None)
        if original is None or getattr(original, "_twnb_guarded", False):
            return
        guard = self
        event = f"{module.__name__}.{name}"

        @functools.wraps(original)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            run = guard._armed.get(threading.get_ident())
            if run is not None and run.refuse and not guard.trusted_here(sys._getframe(1)):
                message = judge(args)
                if message is not None:
                    guard.refuse(run, guard.refusal_here(run, rule, event, message, hint))
            return original(*args, **kwargs)

        guarded._twnb_guarded = True  # type: ignore[attr-defined]
        setattr(module, name, guarded)


_PROCESS_ATTRIBUTE = "_twnb_runtime_guard"


class TrustedSection:
    """`RuntimeGuard.trusted`: the `with` statement's frame is the entry, if it runs registered code."""

    __slots__ = ("code", "guard", "ident", "opened")

    def __init__(self, guard: RuntimeGuard, code: CodeType | None) -> None:
        self.guard = guard
        self.code = code
        self.ident = 0
        self.opened = False

    def __enter__(self) -> None:
        entry = sys._getframe(1)
        trust = self.guard._trust
        if entry.f_code not in trust.entries:
            return  # opened from anywhere else (the generated code's own frame): nothing changes
        self.ident = threading.get_ident()
        trust.sections.setdefault(self.ident, []).append(Section(entry, self.code))
        self.opened = True

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if not self.opened:
            return
        sections = self.guard._trust.sections.get(self.ident)
        if sections:
            sections.pop()
            if not sections:
                del self.guard._trust.sections[self.ident]


class _Follower:
    """A new thread's function, wrapped: the thread arms itself for its parent's run, for its life.
    `trusted`: started by trusted code inside a trusted section, the thread is trusted from its root
    (and still not where generated code runs in it). `new_thread`: the function a thread starts with
    (not a pool's work item): the run keeps the thread in its `threads` while it runs."""

    __slots__ = ("function", "guard", "new_thread", "run", "trusted")

    def __init__(
        self,
        function: Callable[..., Any],
        guard: RuntimeGuard,
        run: GuardedRun,
        trusted: bool = False,
        new_thread: bool = False,
    ) -> None:
        self.function = function
        self.guard = guard
        self.run = run
        self.trusted = trusted
        self.new_thread = new_thread

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        ident = threading.get_ident()
        armed, sections = self.guard._armed, self.guard._trust.sections
        # called in a thread that already works for a run (not as a new thread's function): put its
        # state back afterwards, never leave it disarmed
        was_armed, had_sections = armed.get(ident), sections.pop(ident, None)
        armed[ident] = self.run
        if self.trusted:
            sections[ident] = [ROOT]
        runs = self.run.with_outer() if self.new_thread else []
        try:
            if runs:
                started = started_thread(self.function, ident, self.run.code_namespace)
                for run in runs:
                    run.threads[ident] = started
            return self.function(*args, **kwargs)
        finally:
            for run in runs:
                run.threads.pop(ident, None)
            sections.pop(ident, None)
            if was_armed is None:
                armed.pop(ident, None)
            else:
                armed[ident] = was_armed
            if had_sections is not None:
                sections[ident] = had_sections


class _ThreadStart:
    """`_thread.start_new_thread` and its kin, wrapped: a thread started by an armed thread follows it."""

    def __init__(self, original: Callable[..., Any], guard: RuntimeGuard) -> None:
        self.original = original
        self.guard = guard

    def __call__(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        run = self.guard._armed.get(threading.get_ident())
        if run is not None:
            trusted = self.guard.trusted_here(sys._getframe(1))
            function = _Follower(function, self.guard, run, trusted, new_thread=True)
        return self.original(function, *args, **kwargs)


def _importing(frame: FrameType | None) -> bool:
    """Whether the stack is inside an import: a library's module body running (its effects are the
    library's, whichever line of the code imported it)."""
    f = frame
    while f is not None:
        if f.f_globals.get("__name__") == "importlib._bootstrap":
            return True
        f = f.f_back
    return False


def _code_line(frame: FrameType | None, run: GuardedRun) -> tuple[int, str]:
    """(line, source) of the code in this stack, below the frame that armed the run: the innermost
    frame running in the code's namespace whose file is the outermost such frame's (the code's own
    cell), else the innermost in it. (Above the arming frame is the user's own cell that asked for the
    Round, in the same namespace.)"""
    namespace = run.code_namespace
    if namespace is None:
        return 0, ""
    frames: list[FrameType] = []
    f = frame
    while f is not None and f is not run.armed_in:
        if f.f_globals is namespace:
            frames.append(f)
        f = f.f_back
    if not frames:
        return 0, ""
    cell = next((f for f in reversed(frames) if f.f_code.co_name == "<module>"), frames[-1])
    chosen = next((f for f in frames if f.f_code.co_filename == cell.f_code.co_filename), frames[0])
    line = chosen.f_lineno or 0
    source = linecache.getline(chosen.f_code.co_filename, line).strip() if line else ""
    return line, source


def file_signature(path: str) -> tuple[int, int] | None:
    """(size, mtime in ns) of a file, None when there is none: whether a database the code opened was
    written is read from it."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


# The time limit's stopper never raises inside the guard's own bookkeeping on the code's thread.
exempt(
    RuntimeGuard._act,
    RuntimeGuard._judge,
    RuntimeGuard._refusal,
    RuntimeGuard.refusal_here,
    RuntimeGuard.refuse,
    RuntimeGuard.trusted_here,
    Trust.here,
    CodeOrigins.note,
    CodeOrigins._remember,
    _ImportSystem.untouched_module,
    TrustedSection.__enter__,
    TrustedSection.__exit__,
    TrustBase.judge,
    TrustBase.holds,
    TrustBase._holds,
    TrustBase._real_folder,
    ModuleShadows.shadow,
    ModuleShadows._judge,
    ModuleShadows._refresh,
    ModuleShadows._listing,
    GuardedRun.record,
    GuardedRun._removing,
    _ThreadStart.__call__,
    RuntimeGuard._act_unarmed,
    RuntimeGuard._follow_work,
    Provenance.unarmed_refusal,
    Provenance.own_ctypes,
    Provenance.generated_frame,
    Provenance.system_program,
    Provenance.code_program,
    asking_module,
    _code_line,
)
