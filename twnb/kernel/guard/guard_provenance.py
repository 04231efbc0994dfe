"""Provenance in the runtime guard: a forbidden act is judged by where it comes from, not by the
nearest frame.

A model can put a library between itself and a forbidden call: `np.ctypeslib.load_library(...)` loads
libc from numpy's frame, `pd.Series([...]).map(libc.system)` calls it from pandas' C loop, a module it
wrote becomes matplotlib's backend, its own `fc-list` sits first on a `PATH` it changed, a thread pool
the user made runs what it submits. So a forbidden act (a process, ctypes, a signal to the kernel, a
resource limit, closing the kernel's descriptors) is refused:

- in an armed thread, whatever frames are between: the thread runs the code's call (its root is the
  code's, or a work item the code submitted: `follow_pools`). The only exceptions are a trusted plugin
  section (guard_trust.py), a library's own helper program when it is the real system program
  (`system_program`), and ctypes used by a library for itself: during the import of a module the code
  did not write, or by the few libraries listed in `CTYPES_LIBRARIES` (threadpoolctl, which
  scikit-learn calls at fit time to find the BLAS it loaded);
- in any other thread (the user's cell, IPython's hooks after the Round, a pool's worker), when a frame
  on the stack runs code generated code made (CodeOrigins: functions it defined, and every module
  imported from a file it wrote, whoever imports it and when), or when the program started is one the
  code wrote or found through a `PATH` entry the code added.

What this cannot follow: data. A C function the code hands a library in an unarmed thread (a callback
that is not Python code), a library told by a string what to do later, a file the code wrote by a way
no audit event reports, a process pool's workers (other processes), asyncio callbacks scheduled for the
kernel's own loop, and a module's cached bytecode it rewrote, carry no mark. Hostile code can change
the guard's own state in-process.

Stdlib only: sent as source to kernels where twnb is not installed (kernel_guard.py).
"""

from __future__ import annotations

import linecache
import os
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

from twnb.kernel.guard.guard_events import (
    CTYPES_EVENTS,
    LIBRARY_HELPERS,
    PROCESS_EVENTS,
    SIGNAL_EVENTS,
    refusal_for,
    started_program,
)
from twnb.kernel.guard.guard_events import (
    HINTS as EVENT_HINTS,
)
from twnb.kernel.guard.guard_refusal import GuardRefusal, RuntimeGuardRefused
from twnb.kernel.guard.guard_trust import CodeOrigins

RESOURCE = "resource"  # a resource limit of the kernel's own process (setrlimit, prlimit)
DESCRIPTOR = "descriptor"  # closing or replacing a descriptor the kernel had open before the run

RESOURCE_EVENTS = frozenset({"resource.setrlimit", "resource.prlimit"})
# What provenance judges in threads that are not armed: the forbidden acts, and the code that starts.
UNARMED_EVENTS = frozenset({*PROCESS_EVENTS, *SIGNAL_EVENTS, *CTYPES_EVENTS, *RESOURCE_EVENTS, "exec"})

# Libraries that load and call C libraries for themselves when the code calls them, and cannot be
# pointed at another library: threadpoolctl finds the BLAS and OpenMP libraries already loaded.
CTYPES_LIBRARIES = frozenset({"threadpoolctl"})
# Where the real system programs live: a library's helper (matplotlib's fc-list) is let through only
# when it resolves here, not to a file the code wrote or a PATH entry it added.
SYSTEM_PROGRAM_FOLDERS = ("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin")

HINTS = {
    RESOURCE: "Generated code may not change the kernel's resource limits.",
    DESCRIPTOR: "Close files with their own close() or a with block; the kernel's descriptors are not yours.",
}

# Modules a ctypes call passes through on its way from whoever asked for it.
_CTYPES_PLUMBING = ("ctypes", "importlib", "_frozen_importlib", "_frozen_importlib_external")


class Provenance:
    """What the code made or chose (through `origins`), and the judgements that read it."""

    def __init__(self, origins: CodeOrigins) -> None:
        self.origins = origins
        # PATH entries generated code added (as written and resolved): a program found there is its own.
        self.code_path_entries: set[str] = set()
        self.system_folders = tuple(
            sorted({os.path.realpath(p) for p in SYSTEM_PROGRAM_FOLDERS if os.path.isdir(p)})
        )
        # Descriptors open when the outermost run was armed: the kernel's (its sockets among them).
        self.kernel_descriptors: frozenset[int] = frozenset()

    # -- what the code chose ------------------------------------------------------------------------

    def note_environment(self, event: str, args: tuple[Any, ...]) -> None:
        """`os.putenv` from an armed thread: PATH entries it adds are the code's (os.environ still holds
        the old value while the event is raised)."""
        if event != "os.putenv" or len(args) < 2:
            return
        name, value = (os.fsdecode(a) if isinstance(a, str | bytes) else "" for a in args[:2])
        if name != "PATH":
            return
        before = set(os.environ.get("PATH", "").split(os.pathsep))
        for entry in value.split(os.pathsep):
            if entry not in before:
                self.code_path_entries.add(os.path.abspath(entry or "."))
                self.code_path_entries.add(os.path.realpath(entry or "."))

    def note_unarmed_exec(self, args: tuple[Any, ...], frame: FrameType | None) -> None:
        """A module imported outside a run from a file generated code wrote is generated code."""
        if self.origins.written and args:
            self.origins.note_written_module(args[0], frame)

    def arming(self) -> None:
        """The outermost run is armed: the descriptors open now are the kernel's."""
        self.kernel_descriptors = _open_descriptors()

    # -- judging ------------------------------------------------------------------------------------

    def generated_frame(self, frame: FrameType | None) -> FrameType | None:
        """The innermost frame on the stack that runs code generated code made, if any."""
        generated = self.origins.generated
        f = frame
        while f is not None:
            if generated.get(id(f.f_code)) is f.f_code:
                return f
            f = f.f_back
        return None

    def own_ctypes(self, frame: FrameType | None) -> bool:
        """Whether a library uses ctypes for itself: the first frame outside ctypes is a listed
        library's, or the import of a module the code did not write is reached before any frame of
        the code's."""
        importing = self.origins.importing
        generated = self.origins.generated
        first = True
        f = frame
        while f is not None:
            name = f.f_globals.get("__name__")
            name = name if isinstance(name, str) else ""
            plumbing = name.startswith(_CTYPES_PLUMBING)
            if first and not plumbing:
                first = False
                if name.split(".")[0] in CTYPES_LIBRARIES and _is_module_frame(f, name, self.origins):
                    return True
            if generated.get(id(f.f_code)) is f.f_code:
                return False
            if importing.untouched_module(f, self.origins.written):
                return True
            f = f.f_back
        return False

    def system_program(self, event: str, args: tuple[Any, ...]) -> bool:
        """Whether a process event starts a real system program (not one the code wrote, not through
        a PATH entry it added)."""
        found = started_path(event, args)
        if not found or self.code_program(found):
            return False
        folder = os.path.dirname(os.path.realpath(found))
        return folder in self.system_folders

    def code_program(self, found: str) -> bool:
        """Whether the program at `found` is the code's: a file it wrote (or one in a folder it wrote
        or linked), or found through a PATH entry it added."""
        written = self.origins.written
        for path in (found, os.path.realpath(found)):
            if os.path.dirname(path) in self.code_path_entries:
                return True
            while True:
                if path in written:
                    return True
                parent = os.path.dirname(path)
                if parent == path:
                    break
                path = parent
        return False

    def refusal_for(self, event: str, args: tuple[Any, ...]) -> tuple[str, str, str] | None:
        """(rule, subject, message) for the events provenance adds: a resource limit of this process."""
        if event == "resource.setrlimit":
            return RESOURCE, str(args[0]) if args else "", _limit_message(event)
        mine = (0, os.getpid(), os.getppid())
        if event == "resource.prlimit" and len(args) >= 3 and args[2] is not None and args[0] in mine:
            return RESOURCE, str(args[1]), _limit_message(event)
        return None

    def unarmed_refusal(
        self, event: str, args: tuple[Any, ...], frame: FrameType | None
    ) -> GuardRefusal | None:
        """In a thread that is not armed: a forbidden act that the code's own code, or a program the
        code made, leads to."""
        judged = refusal_for(event, args) or self.refusal_for(event, args)
        if judged is None:
            return None
        culprit = self.generated_frame(frame)
        found = started_path(event, args) if event in PROCESS_EVENTS else ""
        if culprit is None and not (found and self.code_program(found)):
            return None
        if culprit is not None:
            if event in CTYPES_EVENTS and self.own_ctypes(frame):
                return None
            if event in PROCESS_EVENTS and self.system_program(event, args) and _helper(frame, event, args):
                return None
        rule, subject, message = judged
        message = message.replace("for generated code.", "for generated code (code it made led here).")
        line, source = 0, ""
        if culprit is not None:
            line = culprit.f_lineno or 0
            source = linecache.getline(culprit.f_code.co_filename, line).strip() if line else ""
        return GuardRefusal(rule, event, message, EVENT_HINTS.get(rule, ""), line, source, subject)

    def closes_kernel_descriptor(self, name: str, low: int, high: int) -> str | None:
        """The message refusing to close (or replace) descriptors in [low, high) the kernel owns."""
        owned = sorted(fd for fd in self.kernel_descriptors if low <= fd < high)
        if not owned:
            return None
        return (
            f"{name} would close descriptor {owned[0]} of the notebook's kernel (its connection to the "
            "notebook), which would stop it and lose the user's variables."
        )


def _limit_message(event: str) -> str:
    return (
        f"changing a resource limit of the notebook's kernel ({event}) is not allowed for generated "
        "code: it could stop or wedge the kernel."
    )


def _helper(frame: FrameType | None, event: str, args: tuple[Any, ...]) -> bool:
    return (asking_module(frame), started_program(event, args)) in LIBRARY_HELPERS


# Modules a process passes through on its way from whoever asked for it.
_PROCESS_PLUMBING = frozenset(
    {"subprocess", "os", "pty", "asyncio.subprocess", "asyncio.base_events", "asyncio.unix_events"}
)


def asking_module(frame: FrameType | None) -> str:
    """The module that asked for a process: the first frame outside the process plumbing."""
    f = frame
    while f is not None:
        name = f.f_globals.get("__name__")
        if not isinstance(name, str) or name not in _PROCESS_PLUMBING:
            return name if isinstance(name, str) else ""
        f = f.f_back
    return ""


def _is_module_frame(frame: FrameType, name: str, origins: CodeOrigins) -> bool:
    """The frame runs in a module's own globals, from a file the code did not write."""
    module = sys.modules.get(name)
    if module is None or getattr(module, "__dict__", None) is not frame.f_globals:
        return False
    return os.path.abspath(str(getattr(module, "__file__", "") or "")) not in origins.written


def started_path(event: str, args: tuple[Any, ...]) -> str:
    """The file a process event runs, found as the system would find it ("" when unknown)."""
    try:
        if event == "subprocess.Popen" and len(args) >= 4:
            executable, argv, cwd, env = args[:4]
            first = argv[0] if isinstance(argv, list | tuple) and argv else argv
            return _resolve(executable or first, env, cwd)
        if event in ("os.exec", "os.posix_spawn") and args:
            return _resolve(args[0], None, None, search=False)
        if event == "os.posix_spawnp" and len(args) >= 3:
            return _resolve(args[0], args[2], None)
        if event == "os.system" and args:
            command = os.fsdecode(args[0]) if isinstance(args[0], str | bytes) else ""
            words = command.split()
            return _resolve(words[0], None, None) if words else ""
    except (TypeError, ValueError, OSError):
        return ""
    return ""


def _resolve(program: Any, env: Any, cwd: Any, *, search: bool = True) -> str:
    if not isinstance(program, str | bytes | os.PathLike):
        return ""
    name = os.fsdecode(program)
    base = os.fsdecode(cwd) if isinstance(cwd, str | bytes | os.PathLike) else os.getcwd()
    if os.sep in name or not search:
        return os.path.abspath(os.path.join(base, name))
    environment = env if isinstance(env, dict) else None
    for folder in os.get_exec_path(environment):
        candidate = os.path.join(base, folder or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    return ""


def _open_descriptors() -> frozenset[int]:
    try:
        listed = [int(name) for name in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):
        return frozenset(range(3))
    return frozenset(fd for fd in listed if _is_open(fd))  # not the listing's own, closed by now


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def pidfd_target(pidfd: Any) -> int | None:
    """The process a pidfd refers to (None when it cannot be read)."""
    if not isinstance(pidfd, int):
        return None
    try:
        with open(f"/proc/self/fdinfo/{pidfd}") as info:
            for line in info:
                if line.startswith("Pid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


# -- work handed to a thread the user made --------------------------------------------------------------


def follow_pools(follow: Callable[[Callable[..., Any]], Callable[..., Any]]) -> None:
    """Wrap the ways work reaches a thread pool's workers (pools loaded by now), so that a work item
    submitted from an armed thread runs armed: `follow(fn)` gives the function to run instead."""
    futures = sys.modules.get("concurrent.futures.thread")
    if futures is not None:
        _wrap_first_argument(futures.ThreadPoolExecutor, "submit", follow, lambda self: True)
    pools = sys.modules.get("multiprocessing.pool")
    if pools is not None:
        threaded = pools.ThreadPool

        def follow_as_exception(function: Callable[..., Any]) -> Callable[..., Any]:
            return _RefusalAsException(follow(function))

        for name in ("apply_async", "_map_async", "imap", "imap_unordered"):
            _wrap_first_argument(
                pools.Pool, name, follow_as_exception, lambda self: isinstance(self, threaded)
            )


class RefusedInWorker(Exception):
    """A refusal in a multiprocessing pool's worker thread, which loses a task whose function raises
    a BaseException (its caller would wait for ever): handed back as an Exception instead."""


class _RefusalAsException:
    __slots__ = ("function",)

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return self.function(*args, **kwargs)
        except RuntimeGuardRefused as refused:
            raise RefusedInWorker(str(refused)) from None


def _wrap_first_argument(
    owner: type, name: str, follow: Callable[[Callable[..., Any]], Callable[..., Any]], applies: Any
) -> None:
    original = owner.__dict__.get(name)
    if original is None or getattr(original, "_twnb_follows", False):
        return

    def following(self: Any, function: Any, /, *args: Any, **kwargs: Any) -> Any:
        if callable(function) and applies(self):
            function = follow(function)
        return original(self, function, *args, **kwargs)

    following.__name__ = original.__name__
    following.__qualname__ = original.__qualname__
    following.__doc__ = original.__doc__
    following._twnb_follows = True  # type: ignore[attr-defined]
    setattr(owner, name, following)
