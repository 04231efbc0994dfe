"""A client's wait on a kernel's shell socket that looks again every slice, so that a reply whose
wake-up was missed is read within a slice, not at the end of the whole wait.

Why: a client that draws widgets (tests/notebook/nb_widget_frontend.py) sends comm messages (a view's
handshake, a click) on the shell socket while nbclient awaits the cell's execute_reply on that same
socket. With pyzmq's asyncio sockets (zmq.FD is edge-triggered) a reply that arrives after such a send
can go unnoticed until the wait's own timeout, when pyzmq's timed poll looks at the socket itself
(zmq_poll) and finds it: the cell then takes its whole timeout (90 s in test_remember_button.py) and
passes. Measured with pyzmq 27.3 and libzmq 4.3.5: a kernel showing 40 Remember offers, each clicked as
it is drawn, had 1-2 cells a run that each waited their full timeout; none with this wait."""

from __future__ import annotations

from queue import Empty
from time import monotonic
from typing import Any

SLICE_S = 0.25  # the longest a reply whose wake-up was missed waits


def look_again_every_slice(channel: Any) -> None:
    """`channel.get_msg(timeout)` (jupyter_client's AsyncZMQSocketChannel) waits in slices of SLICE_S:
    each slice's end polls the socket itself. Its contract is kept: a message, or Empty once `timeout`
    (None: no end) has passed."""
    wait = channel.get_msg

    async def get_msg(timeout: float | None = None) -> dict[str, Any]:
        deadline = None if timeout is None else monotonic() + timeout
        while True:
            left = None if deadline is None else deadline - monotonic()
            try:
                message: dict[str, Any] = await wait(
                    timeout=SLICE_S if left is None else max(0.0, min(SLICE_S, left))
                )
                return message
            except Empty:
                if left is not None and left <= SLICE_S:
                    raise

    channel.get_msg = get_msg
