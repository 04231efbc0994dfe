"""Keeping generated code from stopping the user's kernel with `exit()`/`quit()`.

In ipykernel 7 `exit`/`quit` are `ZMQExitAutocall`: `ask_exit()` stops the kernel's event loop 0.1 s
later and every variable in the notebook is gone. While generated code runs, both names and the
shell's `ask_exit` raise `ExitRefused` instead, recorded as the execution's error. `sys.exit()` needs
nothing here: it raises SystemExit, which IPython catches and reports. `os._exit` cannot be guarded
without breaking forked child processes (multiprocessing ends them with it); code verification refuses it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

_MESSAGE = (
    "exit()/quit() is disabled while twnb runs generated code: it would stop the notebook's kernel and "
    "lose every variable. Let the code end normally (or raise an exception to stop early)."
)
_MISSING = object()


class ExitRefused(RuntimeError):
    """Raised by `exit()`, `quit()` and `get_ipython().ask_exit()` while generated code runs."""


def _refuse(*args: Any, **kwargs: Any) -> None:
    raise ExitRefused(_MESSAGE)


def _refusing_autocall(shell: InteractiveShell) -> Any:
    # An IPyAutocall subclass, so a bare `exit` (no parentheses) is autocalled and refused too.
    from IPython.core.autocall import IPyAutocall  # lazy: IPython (~160 ms) for `ExitRefused` alone

    class RefusingExit(IPyAutocall):
        rewrite = False

        def __call__(self, *args: Any, **kwargs: Any) -> None:
            _refuse()

        def __repr__(self) -> str:
            return "<exit/quit: disabled while twnb runs generated code>"

    return RefusingExit(shell)  # type: ignore[no-untyped-call]  # IPython leaves it untyped


@contextlib.contextmanager
def exit_refused(shell: InteractiveShell) -> Iterator[None]:
    """Within the block, exit/quit and the shell's exit hook raise ExitRefused; restored after."""
    user_ns = shell.user_ns
    refusing = _refusing_autocall(shell)
    saved_names = {name: user_ns.get(name, _MISSING) for name in ("exit", "quit")}
    had_own_ask_exit = "ask_exit" in vars(shell)
    saved_ask_exit = vars(shell).get("ask_exit")
    for name in saved_names:
        user_ns[name] = refusing
    setattr(shell, "ask_exit", _refuse)  # noqa: B010 (the base InteractiveShell has no ask_exit)
    try:
        yield
    finally:
        if had_own_ask_exit:
            setattr(shell, "ask_exit", saved_ask_exit)  # noqa: B010
        else:
            vars(shell).pop("ask_exit", None)
        for name, value in saved_names.items():
            # If the code bound the name to something of its own, that binding is the user's now.
            if user_ns.get(name, refusing) is refusing:
                if value is _MISSING:
                    user_ns.pop(name, None)
                else:
                    user_ns[name] = value
