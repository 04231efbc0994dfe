"""What a person sees when the confinement refuses something: one line naming what was refused and the
setting that would allow it, then the error itself, instead of a bare PermissionError traceback. An
IPython custom exception handler for OSError, installed in the confined kernel's shell before any code
runs; any other OSError is shown as IPython always shows it."""

from __future__ import annotations

import errno
import os
import shutil
import stat
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from twnb.config import Confinement
from twnb.confine.manager_server import ManagerRefusedError

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

_RED = "\x1b[0;31m"
_RESET = "\x1b[0m"


def program_refused(program: str) -> str:
    """The words for a refused program start (after the "Confined kernel: " prefix)."""
    return (
        f"running {program} was refused; a confined kernel runs no programs "
        "(no setting allows it: use an unconfined kernel, or --no-confine for twnb's batch commands)."
    )


def _refused_error(error: BaseException) -> OSError | None:
    """The EACCES/EPERM/EROFS error that `error` is or was caused by (urllib, requests wrap it)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return current
        reason = getattr(current, "reason", None)  # urllib.error.URLError keeps its cause here
        if isinstance(reason, OSError) and reason.errno in (errno.EACCES, errno.EPERM):
            return reason
        current = current.__cause__ or current.__context__
    return None


def _is_program(path: str) -> bool:
    if os.sep not in path:  # subprocess names the program as it was given: look it up on PATH
        found = shutil.which(path)
        if found is None:
            return False
        path = found
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) and bool(mode & 0o111)


# multiprocessing's modules that start a new Python: its start methods and its resource tracker
_STARTS_PYTHON = ("forkserver.py", "popen_forkserver.py", "popen_spawn_posix.py", "resource_tracker.py")


def _new_python_refused(error: BaseException) -> bool:
    """Whether `error` is multiprocessing's refused start of a new Python (new_python.py: EACCES) or
    its fork server's refused UNIX socket (EPERM)."""
    if not isinstance(error, OSError) or error.errno not in (errno.EACCES, errno.EPERM):
        return False
    tb = error.__traceback__
    while tb is not None:
        folder, _, name = tb.tb_frame.f_code.co_filename.rpartition(os.sep)
        if folder.endswith(f"{os.sep}multiprocessing") and name in _STARTS_PYTHON:
            return True
        tb = tb.tb_next
    return False


def _other_process(path: str) -> bool:
    """Whether `path` is in another process's /proc folder (its environ, memory, maps)."""
    parts = Path(os.path.abspath(path)).parts
    return len(parts) > 2 and parts[1] == "proc" and parts[2].isdigit() and int(parts[2]) != os.getpid()


def _within(path: Path, folders: tuple[str, ...]) -> bool:
    return any(path == Path(folder) or path.is_relative_to(folder) for folder in folders)


def refusal_line(error: BaseException, confinement: Confinement) -> str | None:
    """The line for a refusal of the confinement, None for an error that is not one."""
    if _new_python_refused(error):
        return (
            "Confined kernel: multiprocessing tried to start a new Python (a `spawn` or `forkserver` "
            "worker, its fork server, or the resource tracker behind those and `SharedMemory`), which a "
            "confined kernel may not run (no setting allows it). Use the `fork` start method "
            '(multiprocessing.get_context("fork")) or threads; on Python 3.13+, '
            "`SharedMemory(..., track=False)`."
        )
    if isinstance(error, ManagerRefusedError):
        return (
            "Confined kernel: multiprocessing's Manager serves its objects from a process listening on a "
            "socket of its own (UNIX, or a TCP port), which a confined kernel may not open (no setting "
            "allows it). Share through a `fork` context's Queue, Pipe, Value or Array "
            '(multiprocessing.get_context("fork")), or use threads.'
        )
    refused = _refused_error(error)
    if refused is None:
        return None
    filename = refused.filename if isinstance(refused.filename, str) else None
    if filename is not None and _is_program(filename) and refused.errno == errno.EACCES:
        return f"Confined kernel: {program_refused(filename)}"
    if refused.errno == errno.EROFS:
        return (
            f"Confined kernel: {filename or 'that file'} is read-only here: it is part of what twnb, "
            "Python or your shell trusts and load at start."
        )
    if filename is not None and refused.errno == errno.EACCES and _other_process(filename):
        # /proc is readable, so the branch below would call this a refused write
        return (
            f"Confined kernel: reading {filename} was refused; a confined kernel may not look into other "
            "processes (their environment, memory and maps; no setting allows it)."
        )
    if filename is not None and refused.errno == errno.EACCES:
        path = Path(os.path.abspath(filename))
        writable = ", ".join(confinement.write)
        if _within(path, confinement.read):
            return (
                f"Confined kernel: writing {path} was refused; it writes only in {writable}. "
                "Add the folder to `confine_write` to allow it."
            )
        return (
            f"Confined kernel: {path} is outside the folders it may use; add a folder to `confine_read` "
            "to read it, `confine_write` to write it."
        )
    if refused.errno == errno.EACCES:
        ports = ", ".join(str(port) for port in confinement.connect) or "none"
        return (
            "Confined kernel: a network connection (or a listening port) was refused; it connects only "
            f"to the model's key proxy and the TCP ports of `confine_connect` (now: {ports}). Add HOST:PORT "
            "to `confine_connect` to allow one."
        )
    return (
        "Confined kernel: a system call was refused (UDP, raw and UNIX sockets, tracing other processes, "
        "keyrings, mounts and namespaces are not allowed; naming ports in `confine_connect` allows UDP "
        "name look-ups)."
    )


def install_refusal_handler(shell: InteractiveShell, confinement: Confinement) -> None:
    """Make the shell explain the confinement's refusals in one line."""

    def handler(
        self: InteractiveShell,
        etype: type[BaseException],
        value: BaseException,
        tb: TracebackType | None,
        tb_offset: int | None = None,
    ) -> list[str]:
        line = refusal_line(value, confinement)
        if line is None:
            self.showtraceback((etype, value, tb), running_compiled_code=True)
            return []
        stb = [f"{_RED}{line}{_RESET}", *self.InteractiveTB.get_exception_only(etype, value)]
        self._showtraceback(etype, value, stb)
        return stb

    shell.set_custom_exc((OSError,), handler)
