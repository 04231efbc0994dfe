"""The heartbeat's port lost to another process: the kernel ends as it does on its other ports' loss.

ipykernel binds the shell, iopub, stdin and control ports in `initialize`, where inside.py catches a
port another process listened on first; the heartbeat's it binds in the heartbeat's own thread
(`Heartbeat.run`), whose ZeroMQ error (EADDRINUSE) only ended that thread: the kernel ran on without a
heartbeat, and a client that judges a kernel by it (one attached by its connection file) took it for
dead a second later. threading's excepthook is chained here (costing nothing unless a thread fails):
that error in that thread ends the kernel the same way, with PORT_TAKEN_EXIT and one line, so the
starters try once more on new ports. The bind comes about 10 ms after the thread starts, well before
the kernel first answers (its shell is made after it), so no starter has taken the kernel for ready.

Only the standard library: the layer does not import zmq (the error is told by its errno).
"""

from __future__ import annotations

import errno
import threading
from collections.abc import Callable
from typing import NoReturn


def end_on_a_lost_heartbeat(heartbeat: Callable[[], object], end: Callable[[Exception], NoReturn]) -> None:
    """Call `end` with the error of the thread `heartbeat()` gives (the kernel app's, once made) when
    it fails to bind its port (EADDRINUSE); any other thread's error goes where it went before."""
    previous = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        error = args.exc_value
        if (
            isinstance(error, Exception)
            and getattr(error, "errno", None) == errno.EADDRINUSE
            and args.thread is not None
            and args.thread is heartbeat()
        ):
            end(error)
        previous(args)

    threading.excepthook = hook
