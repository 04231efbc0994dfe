"""Holding Ctrl-C off while a Round's final display is written (docs/architecture.md, contract 6), and
letting it raise at once while step mode's awaited cell runs the Round's synchronous work.

The final display update is what a saved notebook keeps. A second Ctrl-C that lands while it is
written (the user pressing again as the Round ends) would leave the "running" placeholder in the saved
output and a traceback in the cell. The update takes milliseconds, so the interrupt is held and
reported instead; the Round has ended by then, so there is nothing left to stop.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def interrupts_held() -> Iterator[list[int]]:
    """Within the block SIGINT is recorded, not raised; the yielded list tells how many came.

    Only the main thread can set signal handlers; elsewhere the block runs unguarded.
    """
    held: list[int] = []
    with _sigint_handler(lambda signum, frame: held.append(signum)):
        yield held


@contextmanager
def interrupts_raise() -> Iterator[None]:
    """Within the block SIGINT raises KeyboardInterrupt at once, as in a plain cell.

    An awaited cell (step mode) runs under ipykernel's handler for async cells, which only asks the
    kernel's event loop to cancel the cell's task: while the cell blocks that loop with synchronous
    work (an LLM reply streaming, say), the Interrupt button would do nothing until the work is over.
    """
    with _sigint_handler(signal.default_int_handler):
        yield


@contextmanager
def _sigint_handler(handler: Any) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        previous = signal.signal(signal.SIGINT, handler)
    except (ValueError, OSError):  # not the main interpreter, or no signals here
        yield
        return
    try:
        yield
    finally:
        # None means a handler installed from C: Python's default is the closest thing to put back.
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
