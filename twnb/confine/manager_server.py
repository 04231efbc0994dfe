"""multiprocessing's Managers, told that a confined kernel opens no server of their own.

A Manager forks (or spawns) a server process, which listens for the kernel's requests on a UNIX
socket in a temporary folder (`multiprocessing.connection.default_family`) and sends its address back
over a pipe. In a confined kernel the server's first step fails (seccomp refuses UNIX sockets, EPERM;
an address of TCP's is a port Landlock does not let it bind, EACCES), it exits with its traceback
where no one sees it, and the kernel, reading the pipe, gets a bare `EOFError`. Here the same
listener (the manager's own kind and address) is tried first in the kernel, which is confined as the
server would be: its refusal is raised at once as `ManagerRefusedError`, which the refusal handler
names (refusals.py).

Every Manager starts its server through `BaseManager.start`: `multiprocessing.Manager()`, a context's
`.Manager()` (both a `SyncManager`) and a `SyncManager` or `BaseManager` subclass made and started by
hand. That method is wrapped when `multiprocessing.managers` is first imported (a finder first on
`sys.meta_path` that answers only for that name), not at the kernel's start: the module's imports
cost about 6 ms, which a kernel that makes no Manager should not pay.
"""

from __future__ import annotations

import errno
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

_MANAGERS = "multiprocessing.managers"
_WRAPPED = "__twnb_tries_listener__"


class ManagerRefusedError(PermissionError):
    """A multiprocessing Manager's server could not listen: a confined kernel opens no such socket."""


def try_manager_listener(manager: Any) -> None:
    """Open and close a listener as `manager`'s server would (its listener kind and address, a new
    one when it has none); ManagerRefusedError when the system refuses it."""
    try:
        manager._Listener(address=manager._address).close()
    except OSError as error:
        if error.errno not in (errno.EACCES, errno.EPERM):
            return  # not the confinement's (an address in use, say): the server's start tells it
        raise ManagerRefusedError(
            error.errno, f"a multiprocessing Manager's server cannot listen here ({error.strerror})"
        ) from error


def refused_start(start: Callable[..., Any]) -> Callable[..., Any]:
    """`start` (BaseManager.start), trying the server's listener first."""

    def wrapped_start(self: Any, *args: Any, **kwargs: Any) -> Any:
        initial = sys.modules[_MANAGERS].State.INITIAL  # loaded: this is its class's method
        if self._state.value == initial:  # else the start itself says it was started or shut down
            try_manager_listener(self)
        return start(self, *args, **kwargs)

    setattr(wrapped_start, _WRAPPED, True)
    return wrapped_start


def refuse_in(managers: ModuleType) -> None:
    """Wrap `managers.BaseManager.start` (once)."""
    base = managers.BaseManager
    if not getattr(base.start, _WRAPPED, False):
        base.start = refused_start(base.start)


class _PatchingLoader(importlib.abc.Loader):
    """The module's own loader, then the wrap; anything else asked of it (its source, for a
    traceback) is the original's."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        refuse_in(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


class _ManagersFinder(importlib.abc.MetaPathFinder):
    """Finds nothing but `multiprocessing.managers`, found as the path finder would, loaded by a
    `_PatchingLoader`."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != _MANAGERS:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchingLoader(spec.loader)
        return spec


def refuse_unservable_managers() -> None:
    """Make a Manager's start fail at once with ManagerRefusedError where its server could not
    listen: now if `multiprocessing.managers` is loaded, else when it is."""
    loaded = sys.modules.get(_MANAGERS)
    if loaded is not None:
        refuse_in(loaded)
    elif not any(isinstance(finder, _ManagersFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _ManagersFinder())
