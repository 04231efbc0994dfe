"""The traceback of an interrupt or a timeout ends at the code that was interrupted, not in twnb.

The time limit's SIGINT handler is Python code, so the KeyboardInterrupt it raises carries the
handler's frame at the end of its traceback (and so would any twnb hook the code happened to be in,
such as the output tee under a `print`). While generated code runs, the shell's `_get_exc_info`, where
IPython's `showtraceback` takes what it formats, trims those trailing frames: what the cell shows, what
is recorded and the nbformat error output all end at the user's code. Given the code's namespace,
an interrupt's traceback ends at the code's own last frame: where a library was when the limit came
(deep in pandas' import, say) tells the model nothing its own line does not, and IPython formats every
frame of a traceback by parsing its file (seconds, on a busy machine, for an import's thirty frames).
Other exceptions keep every frame (a twnb frame at the end of one is a twnb bug worth seeing).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any

from twnb.kernel.guard.watchdog import TimeLimitExceeded

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__))) + os.sep


def _in_twnb(tb: TracebackType) -> bool:
    return os.path.realpath(tb.tb_frame.f_code.co_filename).startswith(_PACKAGE_DIR)


def trim_twnb_frames(tb: TracebackType | None) -> TracebackType | None:
    """`tb` without its trailing frames in twnb's own files (in place; unchanged if every frame is)."""
    last_foreign = None
    node = tb
    while node is not None:
        if not _in_twnb(node):
            last_foreign = node
        node = node.tb_next
    if last_foreign is not None:
        last_foreign.tb_next = None
    return tb


def trim_after_code(tb: TracebackType | None, namespace: dict[str, Any]) -> TracebackType | None:
    """`tb` ending at its last frame that runs in `namespace` (the code's); unchanged without one."""
    last_code = None
    node = tb
    while node is not None:
        if node.tb_frame.f_globals is namespace:
            last_code = node
        node = node.tb_next
    if last_code is not None:
        last_code.tb_next = None
    return tb


@contextlib.contextmanager
def interrupts_end_in_user_code(
    shell: InteractiveShell, namespace: dict[str, Any] | None = None
) -> Iterator[None]:
    """Within the block, interrupts the shell formats lose their trailing twnb frames, and, given the
    code's `namespace`, every frame after the code's own last one."""
    original: Callable[..., tuple[Any, Any, Any]] = shell._get_exc_info
    had_own = "_get_exc_info" in vars(shell)

    def get_exc_info(exc_tuple: Any = None) -> tuple[Any, Any, Any]:
        etype, value, tb = original(exc_tuple)
        if isinstance(etype, type) and issubclass(etype, KeyboardInterrupt | TimeLimitExceeded):
            trim_twnb_frames(tb)
            if namespace is not None:
                trim_after_code(tb, namespace)
        return etype, value, tb

    setattr(shell, "_get_exc_info", get_exc_info)  # noqa: B010 (an instance attribute over the method)
    try:
        yield
    finally:
        if had_own:
            setattr(shell, "_get_exc_info", original)  # noqa: B010
        else:
            vars(shell).pop("_get_exc_info", None)
