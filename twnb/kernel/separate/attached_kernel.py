"""A kernel manager for a kernel someone else started, as nbclient takes one.

nbclient starts a kernel unless its manager says it has one, and only shuts down kernels of managers it
made itself; this manager has one (loaded from the connection file), interrupts it by message over the
control channel (no process of ours to signal) and refuses to shut it down or restart it.
"""

from __future__ import annotations

import os
from typing import Any

from jupyter_client.manager import AsyncKernelManager


class AttachedKernelManager(AsyncKernelManager):
    def __init__(self, connection_file: str | os.PathLike[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.load_connection_file(str(connection_file))

    @property
    def has_kernel(self) -> bool:
        return True

    async def is_alive(self) -> bool:  # type: ignore[override]
        # No process of ours to poll; nbclient tells a dead kernel by its client's heartbeat.
        return True

    async def interrupt_kernel(self) -> None:  # type: ignore[override]
        msg = self.session.msg("interrupt_request", content={})
        self._connect_control_socket()
        self.session.send(self._control_socket, msg)

    async def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:  # type: ignore[override]
        raise RuntimeError("twnb did not start this kernel and never shuts it down.")

    async def restart_kernel(self, now: bool = False, newports: bool = False, **kw: Any) -> None:  # type: ignore[override]
        raise RuntimeError("twnb did not start this kernel and never restarts it.")
