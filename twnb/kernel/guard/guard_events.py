"""What the runtime guard makes of each audit event (PEP 578) raised while generated code runs.

Audit events are raised by what code *does*, whatever route it took: `os.system` raises `os.system`
whether the code called it, `get_ipython().system(...)` did, or a magic behind `.ex(...)` did. So the
guard judges events, never names. Event names and arguments are the same on Python 3.11 to 3.13 for
everything here (checked on each), except the thread events, which 3.11 does not raise (threads are
followed by wrapping their start functions instead: runtime_guard.py).

Three kinds of events matter:
- refused ones: process creation, ctypes, signals to the kernel's own process (`refusal_for`);
- file effects: what the code opened for writing, moved, removed (`file_effect`), which become the
  run's artifacts (guard_files.py);
- sightings: the working folder changed, an environment variable set or unset, the network reached
  (`sighting_for`), which risky step mode compares with what verification predicted.

Stdlib only: sent as source to kernels where twnb is not installed (kernel_guard.py).
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from typing import Any

from twnb.kernel.guard.guard_refusal import CODE, CTYPES, PROCESS, SIGNAL, THREAD

# event -> index of the argument that names what is run (None: nothing to show)
_PROCESS_EVENTS: dict[str, int | None] = {
    "os.system": 0,
    "subprocess.Popen": 1,
    "os.exec": 1,
    "os.posix_spawn": 1,
    "os.posix_spawnp": 1,
    "os.fork": None,
    "os.forkpty": None,
    "os.startfile": 0,
}
_SIGNAL_EVENTS = frozenset({"os.kill", "os.killpg", "signal.pthread_kill"})
PROCESS_EVENTS = frozenset(_PROCESS_EVENTS)
SIGNAL_EVENTS = _SIGNAL_EVENTS
THREAD_EVENTS = frozenset({"_thread.start_new_thread", "_thread.start_joinable_thread"})
_FILE_EVENTS = frozenset(
    {
        "open",
        "os.rmdir",
        "os.rename",
        "os.remove",
        "shutil.rmtree",
        "os.symlink",
        "os.link",
        "os.truncate",
        "sqlite3.connect",
    }
)
# Every event ctypes raises (3.11 to 3.13, the Windows-only ones and 3.14's memoryview_at included),
# listed so that the hook's fast path is one set lookup.
CTYPES_EVENTS = frozenset(
    f"ctypes.{name}"
    for name in (
        "PyObj_FromPtr",
        "addressof",
        "call_function",
        "cdata",
        "cdata/buffer",
        "create_string_buffer",
        "create_unicode_buffer",
        "dlopen",
        "dlsym",
        "dlsym/handle",
        "get_errno",
        "set_errno",
        "get_last_error",
        "set_last_error",
        "set_exception",
        "seh_exception",
        "string_at",
        "wstring_at",
        "memoryview_at",
    )
)

# Programs a library runs for itself, never for the code: (the module that runs it, the program). They
# print what the library reads and change nothing: matplotlib lists the fonts the first time it is
# imported (with no font cache yet), ctypes.util looks for a shared library (threadpoolctl, under
# scikit-learn, asks it for libc), joblib's loky counts the physical cores (scikit-learn's KMeans and
# gradient boosting ask it), platform asks the system what it is. The code cannot aim them
# elsewhere: each runs its one program with arguments of its own.
LIBRARY_HELPERS: frozenset[tuple[str, str]] = frozenset(
    {
        ("matplotlib.font_manager", "fc-list"),
        *(("ctypes.util", program) for program in ("ldconfig", "gcc", "cc", "ld", "objdump", "dump")),
        ("joblib.externals.loky.backend.context", "lscpu"),
        ("loky.backend.context", "lscpu"),
        ("platform", "uname"),
        ("platform", "file"),
    }
)

HINTS = {
    PROCESS: (
        "Generated code may not start processes (the shell, pip, other programs, process pools such as "
        "multiprocessing or joblib's n_jobs > 1): do it in Python with the allowed libraries, in this "
        "process (n_jobs=1, or threads), and if a package is missing, say so."
    ),
    CTYPES: "Generated code may not load or call C libraries through ctypes: use the allowed libraries.",
    SIGNAL: "Let the code end normally, or raise an exception to stop early.",
    THREAD: "Start threads with threading.Thread.",
    CODE: "Define new functions instead of changing existing ones, and import modules with import.",
}

# Write access in an `open` event's flags (os.open and the io module both report the os.O_* flags).
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def is_ctypes(event: str) -> bool:
    return event in CTYPES_EVENTS


def refusal_for(event: str, args: tuple[Any, ...]) -> tuple[str, str, str] | None:
    """(rule, subject, message) when generated code may not do what `event` says, else None.

    ctypes events are refused only when the code itself made them (libraries it uses may load C
    libraries: scikit-learn's threadpoolctl does); the guard decides that from the stack, so this
    answers for the code's own call."""
    if event in _PROCESS_EVENTS:
        index = _PROCESS_EVENTS[event]
        subject = _shown(args[index]) if index is not None and len(args) > index else ""
        what = f"{event}: {subject}" if subject else event
        return PROCESS, subject, f"starting a process ({what}) is not allowed for generated code."
    if event in _SIGNAL_EVENTS:
        return _signal_refusal(event, args)
    if event in CTYPES_EVENTS:
        subject = _shown(args[0]) if args else ""
        return (
            CTYPES,
            subject,
            f"using ctypes ({event}{': ' + subject if subject else ''}) is not allowed for generated code.",
        )
    return None


def started_program(event: str, args: tuple[Any, ...]) -> str:
    """The file name of the program a process event starts ("" when it names none)."""
    index = _PROCESS_EVENTS.get(event)
    if index is None or len(args) <= index:
        return ""
    argv = args[index]
    first = argv[0] if isinstance(argv, list | tuple) and argv else argv
    if event == "subprocess.Popen" and args[0]:
        first = args[0]  # the executable, when given apart from the arguments
    if not isinstance(first, str | bytes | os.PathLike):
        return ""
    return os.path.basename(os.fsdecode(first))


def _signal_refusal(event: str, args: tuple[Any, ...]) -> tuple[str, str, str] | None:
    if len(args) < 2 or args[1] == 0:  # signal 0 only asks whether the target exists
        return None
    target, signum = args[0], args[1]
    if event == "signal.pthread_kill":
        hits = True  # every thread it can name is one of this process's
    elif event == "os.killpg":
        hits = target in (0, os.getpgrp())
    else:
        # this process, its group (0 or -pgid), every process (-1), or the server that started it
        hits = target in (os.getpid(), 0, -1, -os.getpgrp(), os.getppid())
    if not hits:
        return None
    name = _signal_name(signum)
    message = (
        f"sending {name} to the notebook's own kernel ({event}) is not allowed: it could stop the kernel "
        "and lose the user's variables."
    )
    return SIGNAL, name, message


@dataclass(frozen=True)
class FileEffect:
    """What an event did to a file: `write` (opened for writing, created, truncated), `maybe_write`
    (a database opened: written only if it changed), `move` (from `source` to `path`), `remove`,
    `remove_tree`. Paths are absolute, resolved against the working directory at the event."""

    kind: str
    path: str
    source: str = ""


def file_effect(event: str, args: tuple[Any, ...]) -> FileEffect | None:
    if event not in _FILE_EVENTS or not args:
        return None
    if event == "open":
        path, mode, flags = [*args, None, None][:3]
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            mode is None and isinstance(flags, int) and bool(flags & _WRITE_FLAGS)
        )
        return _effect("write", path) if writes else None
    if event == "os.rename" and len(args) >= 2:
        moved = _effect("move", args[1])
        source = _absolute(args[0])
        return FileEffect("move", moved.path, source) if moved is not None and source else None
    if event in ("os.symlink", "os.link") and len(args) >= 2:
        return _effect("write", args[1])
    if event in ("os.remove", "os.rmdir"):
        return _effect("remove", args[0])
    if event == "shutil.rmtree":
        return _effect("remove_tree", args[0])
    if event == "os.truncate":
        return _effect("write", args[0])
    if event == "sqlite3.connect":
        database = args[0]
        if isinstance(database, str) and (database == ":memory:" or database.startswith("file:")):
            return None
        return _effect("maybe_write", database)
    return None


def _effect(kind: str, path: Any) -> FileEffect | None:
    absolute = _absolute(path)
    return FileEffect(kind, absolute) if absolute else None


def _absolute(path: Any) -> str:
    """The absolute path an event names, "" for a file descriptor or anything unreadable. Resolved now:
    after the code's `os.chdir`, a relative name means the new folder."""
    if isinstance(path, int) or path is None:
        return ""
    try:
        text = os.fsdecode(os.fspath(path))
        return os.path.abspath(text)
    except (TypeError, ValueError, OSError):
        return ""


def _shown(value: Any) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, list | tuple):
        value = " ".join(os.fsdecode(v) if isinstance(v, bytes | str) else str(v) for v in value)
    text = str(value)
    return text if len(text) <= 200 else text[:199] + "…"


def _signal_name(signum: Any) -> str:
    try:
        return signal.Signals(signum).name
    except (ValueError, TypeError):
        return f"signal {signum}"


# Events that are neither refused nor files, but that risky step mode wants to know the code caused
# (guard_files.py's sightings): the working folder, the environment, the network. Kind -> events.
_SIGHTING_EVENTS: dict[str, str] = {
    "os.chdir": "working_folder",
    "os.putenv": "environment",
    "os.unsetenv": "environment",
    "socket.connect": "network",
    "socket.sendto": "network",
    "socket.getaddrinfo": "network",
    "socket.gethostbyname": "network",
    "socket.gethostbyaddr": "network",
    "urllib.Request": "network",
    "http.client.connect": "network",
    "ftplib.connect": "network",
    "smtplib.connect": "network",
}


def sighting_for(event: str, args: tuple[Any, ...]) -> tuple[str, str] | None:
    """(kind, subject) for an event risky step mode is told of: "working_folder" (the folder moved to),
    "environment" (the variable's name), "network" (the address, host or URL)."""
    kind = _SIGHTING_EVENTS.get(event)
    if kind is None:
        return None
    if event == "os.chdir":
        return kind, _absolute(args[0]) if args else ""
    if event in ("os.putenv", "os.unsetenv"):
        return kind, _shown(args[0]) if args else ""
    if event in ("socket.connect", "socket.sendto"):
        address = args[-1] if args else ""
        if isinstance(address, tuple) and len(address) >= 2:
            return kind, f"{address[0]}:{address[1]}"
        return kind, _shown(address)
    if event in ("http.client.connect", "ftplib.connect", "smtplib.connect") and len(args) >= 3:
        return kind, f"{args[1]}:{args[2]}"
    if event == "urllib.Request" and args:
        return kind, _shown(args[0])
    return kind, _shown(args[0]) if args else ""


# What the hook looks at; every other event (pandas raises thousands of `builtins.id` a second) costs
# the hook's call and one set lookup.
WATCHED_EVENTS = frozenset(
    {*_PROCESS_EVENTS, *_SIGNAL_EVENTS, *THREAD_EVENTS, *_FILE_EVENTS, *CTYPES_EVENTS, *_SIGHTING_EVENTS}
)
