"""The widget-drawing client's wait for a shell reply (support/shell_wait.py) reads a reply whose wake-up
was missed within a slice, where jupyter_client's own wait holds it until its timeout.

The missed wake-up is made on purpose: the reply arrives while the event loop is busy, and reading the
socket's zmq.EVENTS then (libzmq handling its commands, as a send on the same socket does) clears the
edge-triggered zmq.FD the loop waits on. Real pyzmq sockets (a ROUTER standing for the kernel,
jupyter_client's asyncio channel on a DEALER), real jupyter_client messages."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq
import zmq.asyncio
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.session import Session
from support.shell_wait import SLICE_S, look_again_every_slice

WAIT_S = 60.0  # the wait's own timeout, as nbclient gives a cell's


@pytest.fixture
def kernel_side(tmp_path: Path) -> Iterator[tuple[zmq.Socket[Any], str]]:
    context = zmq.Context()
    router = context.socket(zmq.ROUTER)
    address = f"ipc://{tmp_path / 'shell'}"
    router.bind(address)
    try:
        yield router, address
    finally:
        router.close(linger=0)
        context.term()


async def _reply_with_its_wake_up_missed(
    router: zmq.Socket[Any], address: str, wrap: bool
) -> tuple[asyncio.Task[dict[str, Any]], AsyncZMQSocketChannel]:
    """A shell wait under way when the kernel's reply arrives and its wake-up is lost."""
    session = Session(key=b"")
    dealer = zmq.asyncio.Context.instance().socket(zmq.DEALER)
    dealer.connect(address)
    channel = AsyncZMQSocketChannel(dealer, session)
    if wrap:
        look_again_every_slice(channel)
    request = session.msg("kernel_info_request", {})
    channel.send(request)
    identity, *frames = router.recv_multipart()
    waiting = asyncio.ensure_future(channel.get_msg(timeout=WAIT_S))
    await asyncio.sleep(0.05)  # the wait is polling the socket
    reply = session.msg(
        "kernel_info_reply", {"status": "ok"}, parent=session.deserialize(frames[1:])["header"]
    )
    session.send(router, reply, ident=[identity])
    time.sleep(0.2)  # the loop is busy while the reply arrives...
    # ...and the socket's edge is cleared before it looks: by libzmq itself, as a send's does (a plain
    # shadow of the socket: the asyncio socket's own `get` would look again)
    zmq.Socket.shadow(dealer.underlying).get(zmq.EVENTS)
    return waiting, channel


async def _outcome(router: zmq.Socket[Any], address: str, wrap: bool) -> dict[str, Any] | None:
    waiting, channel = await _reply_with_its_wake_up_missed(router, address, wrap)
    try:
        return await asyncio.wait_for(asyncio.shield(waiting), 4 * SLICE_S + 1.0)
    except TimeoutError:
        return None
    finally:
        waiting.cancel()
        channel.close()


def test_the_sliced_wait_reads_a_reply_whose_wake_up_was_missed(
    kernel_side: tuple[zmq.Socket[Any], str],
) -> None:
    got = asyncio.run(_outcome(*kernel_side, wrap=True))
    assert got is not None and got["msg_type"] == "kernel_info_reply"


def test_jupyter_clients_own_wait_holds_such_a_reply_until_its_timeout(
    kernel_side: tuple[zmq.Socket[Any], str],
) -> None:
    # the gap the slices close: when pyzmq reads it without them, support/shell_wait.py can go
    assert asyncio.run(_outcome(*kernel_side, wrap=False)) is None
