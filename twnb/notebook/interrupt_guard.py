"""Holding Ctrl-C off while a Round's final display is written (docs/architecture.md, contract 6).

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


@contextmanager
def interrupts_held() -> Iterator[list[int]]:
    """Within the block SIGINT is recorded, not raised; the yielded list tells how many came.

    Only the main thread can set signal handlers; elsewhere the block runs unguarded.
    """
    held: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield held
        return
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    except (ValueError, OSError):  # not the main interpreter, or no signals here
        yield held
        return
    try:
        yield held
    finally:
        # None means a handler installed from C: Python's default is the closest thing to put back.
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
