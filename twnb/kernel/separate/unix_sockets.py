"""Kernel managers whose kernel talks to twnb over UNIX sockets (ZMQ's `ipc` transport), not TCP ports.

Over TCP, jupyter_client chooses each of a kernel's five ports by binding port 0 and closing the
socket; the kernel binds them a second or so later, once Python has started. In between, any other
process on the machine (another kernel being started, a server, an outgoing connection) can be given
the same port, and the kernel fails at start on ZMQ's "Address already in use" (jupyter_client's port
cache only covers the kernels of one process). UNIX sockets are files at paths no one else chooses:
no such race (tests/kernel_port_stress.py counts both).

The sockets are PREFIX-1 ... PREFIX-5 in the temporary folder (a short path: a socket's holds at most
107 bytes), PREFIX random; jupyter_client removes them at shutdown. Whoever can connect to them still
needs the connection file's key, as over loopback TCP, which every local user can reach.

Only for ipykernel on this machine: the confined kernel keeps TCP (its seccomp filter refuses UNIX
sockets), as do kernels of other languages (not all of them implement `ipc`), and Windows, where
jupyter_client's `ipc` transport is not supported.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from typing import Any

from jupyter_client.manager import AsyncKernelManager, KernelManager

# ZMQ's ipc transport where the system has UNIX sockets jupyter_client can use; TCP elsewhere
DEFAULT_TRANSPORT = "ipc" if os.name == "posix" else "tcp"

# A UNIX socket's path holds at most 107 bytes (Linux; 103 on macOS); the kernel adds "-N" to the prefix
MAX_PREFIX_BYTES = 96


def socket_prefix() -> str:
    """A new path prefix for one kernel's sockets, in the temporary folder (in /tmp when that folder's
    path is too long for a socket)."""
    name = f"twnb-kernel-{uuid.uuid4().hex[:16]}"
    prefix = os.path.join(tempfile.gettempdir(), name)
    return prefix if len(os.fsencode(prefix)) <= MAX_PREFIX_BYTES else os.path.join("/tmp", name)


class UnixSocketKernelManager(KernelManager):
    """jupyter_client's KernelManager, its kernel's channels UNIX sockets (`transport="tcp"` or an
    `ip` may still be given)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("transport", DEFAULT_TRANSPORT)
        super().__init__(**kwargs)

    def _ip_default(self) -> str:
        return socket_prefix() if self.transport == "ipc" else str(super()._ip_default())


class AsyncUnixSocketKernelManager(AsyncKernelManager):
    """The same for asynchronous callers, such as nbclient (`kernel_manager_class=` or `km=`)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("transport", DEFAULT_TRANSPORT)
        super().__init__(**kwargs)

    def _ip_default(self) -> str:
        return socket_prefix() if self.transport == "ipc" else str(super()._ip_default())
