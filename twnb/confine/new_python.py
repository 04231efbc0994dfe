"""multiprocessing's `spawn` and `forkserver` start methods, told that a confined kernel starts no
new Python.

They start a worker, their resource tracker and their fork server through
`multiprocessing.util.spawnv_passfds`, which never reads why the exec failed: the child just exits
255. A `spawn` Process then "ran" and failed silently, a semaphore's registration failed or not
depending on whether the tracker had exited yet (EPIPE), and a `spawn` Pool that got past it started
workers that die at once, forever. Here the same call is made (the exec is tried and refused by the
operating system, as any program start is), its child reaped, and PermissionError raised, so each of
them fails at once with the refusal handler's line (refusals.py).
"""

from __future__ import annotations

import contextlib
import errno
import multiprocessing.util
import os
from collections.abc import Callable, Sequence
from typing import Any

# as typeshed has it: the executable's path as bytes, the arguments as os.fsencode takes them
_Spawn = Callable[[bytes, Sequence[Any], Sequence[int]], int]


def refused_spawn(spawn: _Spawn) -> _Spawn:
    """`spawn` (multiprocessing.util.spawnv_passfds), raising PermissionError once its child ended:
    under Landlock layer 2 the exec is always refused, and the child exits at once."""

    def spawnv_passfds(path: bytes, args: Sequence[Any], passfds: Sequence[int]) -> int:
        pid = spawn(path, args, passfds)
        with contextlib.suppress(ChildProcessError):  # reaped already where SIGCHLD is ignored
            os.waitpid(pid, 0)
        raise PermissionError(
            errno.EACCES, "a confined kernel starts no program, Python included", os.fsdecode(path)
        )

    return spawnv_passfds


def refuse_new_pythons() -> None:
    """Make multiprocessing's starts of a new Python fail at once with PermissionError."""
    # a module's function replaced: mypy holds a def's exact signature against any assignment
    multiprocessing.util.spawnv_passfds = refused_spawn(multiprocessing.util.spawnv_passfds)  # type: ignore[assignment]
