"""multiprocessing's `Manager()`, told that a confined kernel opens no server of its own.

A Manager forks (or spawns) a server process, which listens for the kernel's requests on a UNIX
socket in a temporary folder (`multiprocessing.connection.default_family`) and sends its address back
over a pipe. In a confined kernel the server's first step fails (seccomp refuses UNIX sockets, EPERM;
an address of TCP's is a port Landlock does not let it bind, EACCES), it exits with its traceback
where no one sees it, and the kernel, reading the pipe, gets a bare `EOFError`. Here the same
listener is tried first in the kernel, which is confined as the server would be: its refusal is
raised at once as `ManagerRefusedError`, which the refusal handler names (refusals.py).

`multiprocessing.Manager()` and a context's `.Manager()` go through `BaseContext.Manager`, wrapped
here (`multiprocessing.Manager`, bound to the default context's at import, is bound again);
`multiprocessing.managers` itself (about 6 ms of imports) is not loaded for it at kernel start.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
from collections.abc import Callable
from typing import Any


class ManagerRefusedError(PermissionError):
    """A multiprocessing Manager's server could not listen: a confined kernel opens no such socket."""


def try_manager_listener() -> None:
    """Open and close a listener as a Manager's server would (its default family, a new address);
    ManagerRefusedError when the system refuses it."""
    # lazy: multiprocessing.connection (~34 ms cold), loaded by then wherever a Manager is made
    from multiprocessing import connection

    try:
        # typeshed does not list `default_family` (AF_UNIX wherever it exists)
        connection.Listener(family=getattr(connection, "default_family", None)).close()
    except OSError as error:
        raise ManagerRefusedError(
            error.errno, f"a multiprocessing Manager's server cannot listen here ({error.strerror})"
        ) from error


def refused_manager(manager: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`manager` (BaseContext.Manager), trying the server's listener first."""

    def Manager(self: Any) -> Any:  # multiprocessing's name
        try_manager_listener()
        return manager(self)

    return Manager


def refuse_unservable_managers() -> None:
    """Make `Manager()` fail at once with ManagerRefusedError where its server could not listen."""
    context = multiprocessing.context.BaseContext
    setattr(context, "Manager", refused_manager(context.Manager))  # noqa: B010 (mypy holds the def)
    # `multiprocessing.Manager` was bound to the default context's method when multiprocessing loaded
    multiprocessing.Manager = multiprocessing.context._default_context.Manager
