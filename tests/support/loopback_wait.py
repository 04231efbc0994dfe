"""Waiting for a process a test started to listen on a loopback port."""

from __future__ import annotations

import socket
import subprocess
import time


def wait_until_listening(
    port: int, process: subprocess.Popen[bytes], what: str, timeout_s: float = 60
) -> None:
    """Return once 127.0.0.1:`port` accepts a connection; fail naming `what` when `process` ends or
    `timeout_s` passes first (the port is polled, never a guessed wait)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert process.poll() is None and time.monotonic() < deadline, f"{what} did not start"
            time.sleep(0.2)
