"""Code with top-level `await`, which the live shell cannot run: known before it starts.

The live shell runs a Round's code with `shell.run_cell` from inside the cell that asked. In a kernel
that cell is a callback of the kernel's asyncio loop, so the loop is running on this very thread; IPython
runs a cell that needs `await` with `loop.run_until_complete`, which refuses a running loop ("This event
loop is already running", with a traceback through asyncio's internals that tells the model nothing it
can act on). Running the code's coroutine anyway would mean re-entering the kernel's loop (nest_asyncio's
patch, unsound: callbacks of the user's cells run inside the code's) or a loop of twnb's on another
thread (where the runtime guard's arming of this thread, and objects bound to the kernel's loop, do not
follow). So such code is not started, and the model is told what works instead, in one line that its
next attempt can follow without being refused: the library's synchronous API; and, only when
verification lets the code import `asyncio` and `concurrent` (the user allowed them: by default a
coroutine scheduled on the kernel's loop, or a pool's thread, would outlive the Round's time limit),
the same coroutine on a thread of its own, whose loop `asyncio.run` makes (threads the code starts
stay armed).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from IPython.core.async_helpers import _asyncio_runner

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

# The error's name and its one line, as the Round records them and the CodeInterpreter reads them.
TOP_LEVEL_AWAIT = "TopLevelAwait"
_NOT_RUN = (
    "Top-level `await` cannot run in a Round on the notebook's kernel (its event loop is busy running "
    "this cell), so none of this code ran: "
)
TOP_LEVEL_AWAIT_ADVICE = _NOT_RUN + "write it without `await`, with the library's synchronous API."
TOP_LEVEL_AWAIT_ADVICE_ON_A_THREAD = (
    _NOT_RUN + "write it without `await`, with the library's synchronous API, or put the awaits in "
    "`async def main()` and run it on a thread with its own event loop, `with "
    "concurrent.futures.ThreadPoolExecutor(1) as pool: result = pool.submit(asyncio.run, main()).result()` "
    "(`asyncio.run(main())` alone refuses the running loop)."
)
# The thread recipe as a model writes it: the advice gives it only when verification passes this.
AWAIT_ON_A_THREAD = (
    "import asyncio\nimport concurrent.futures\n\n\nasync def main():\n    await asyncio.sleep(0)\n\n\n"
    "with concurrent.futures.ThreadPoolExecutor(1) as pool:\n"
    "    result = pool.submit(asyncio.run, main()).result()\n"
)


def top_level_await_advice(on_a_thread: bool) -> str:
    """The one line a Round records for code that awaits on the busy loop: with the thread recipe only
    when the code may run it (`on_a_thread`: verification passes `AWAIT_ON_A_THREAD`)."""
    return TOP_LEVEL_AWAIT_ADVICE_ON_A_THREAD if on_a_thread else TOP_LEVEL_AWAIT_ADVICE


def awaits_on_the_busy_loop(shell: InteractiveShell, code: str) -> bool:
    """Whether `run_cell(code)` would hand the code to IPython's asyncio runner while an event loop
    runs on this thread: decided as IPython decides it (`should_run_async`), before anything runs."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None or asyncio._get_running_loop() is None:
        return False  # a terminal's IPython: its runner has a loop of its own to run the code on
    if shell.trio_runner is not None or shell.loop_runner is not _asyncio_runner:
        return False  # `%autoawait trio` (or curio): a runner that does not use asyncio's loop
    try:
        transformed = shell.transform_cell(code)
    except Exception:
        return False  # run_cell shows the code's own error
    return bool(shell.should_run_async(code, transformed_cell=transformed, preprocessing_exc_tuple=None))
