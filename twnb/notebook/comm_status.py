"""Widget messages handled while a step-mode cell awaits get the `idle` status a frontend waits for.

ipywidgets' frontend sends a widget's next state change only after the kernel reports `idle` for the
previous one (the model's `_pending_msgs` throttle); changes made meanwhile wait in a buffer. ipykernel
7.4 handles comm messages that arrive while an async cell awaits *concurrently*, and then publishes no
status for them (`dispatch_shell(..., concurrent=True)`). So the first change of a Textarea typed into
during step mode reached the kernel, and every later one waited in the browser's buffer for good: an
edit typed key by key ran as its first key, a typed plan reached the model as "1. M" (pasting worked:
one change).

While the step Round runs, `idle_after_concurrent_comms` wraps the kernel's `comm_msg` handler: a
message handled on the main thread (which, while the cell holds the main shell's lock, only a
concurrent dispatch can be) is followed by `idle` under its own parent, then `busy` under the cell's, so
the frontend's kernel status still says the cell runs. Messages a subshell thread handles get their
statuses from ipykernel as usual and are left alone.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def idle_after_concurrent_comms(kernel: Any) -> Iterator[None]:
    """For the duration: `idle` after each comm message the main thread handles concurrently."""
    handlers = getattr(kernel, "shell_handlers", None)
    publish = getattr(kernel, "_publish_status", None)
    original = handlers.get("comm_msg") if isinstance(handlers, dict) else None
    if original is None or publish is None or not hasattr(kernel, "get_parent"):
        yield  # a kernel this does not know: change nothing
        return
    assert isinstance(handlers, dict)
    cell_parent = kernel.get_parent("shell")
    main = threading.current_thread()

    def settle(msg: dict[str, Any]) -> None:
        if threading.current_thread() is main:
            publish("idle", "shell", parent=msg)
            publish("busy", "shell", parent=cell_parent)

    def handle(stream: Any, ident: Any, msg: dict[str, Any]) -> Any:
        try:
            result = original(stream, ident, msg)
        except BaseException:
            settle(msg)
            raise
        if inspect.isawaitable(result):
            return _settled_after(result, lambda: settle(msg))
        settle(msg)
        return result

    handlers["comm_msg"] = handle
    try:
        yield
    finally:
        if handlers.get("comm_msg") is handle:
            handlers["comm_msg"] = original


async def _settled_after(result: Any, settle: Callable[[], None]) -> Any:
    try:
        return await result
    finally:
        settle()
