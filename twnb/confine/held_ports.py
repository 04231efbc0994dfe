"""The kernel's side of the ports its launcher held (launcher.py, `hold_kernel_ports`): closed once
the kernel's own ZeroMQ sockets listen on all five.

The launcher binds the connection file's ports as it starts and keeps them bound through its exec, so
no other process is handed one before the kernel binds it. Once the kernel listens on them they have
done their work; kept, they would stay open in the kernel (and in every process it forks) for its
life. `inside.py` runs `release_when_listening` in a thread of its own after ipykernel's
`initialize` (which binds the shell, iopub, stdin and control sockets, and starts the heartbeat's
thread, which binds its own; about 10 ms until all five listen, not added to the start): it waits
until each port has a listening socket, then closes the held ones; one not listening in time leaves
them all open, as before. Nothing else in the kernel knows these descriptors, so closing them from
that thread races with nothing.

Only the standard library: the launcher imports the variable's name at every confined kernel's start.
"""

from __future__ import annotations

import contextlib
import os
import time

HELD_PORTS_ENV = "TWNB_CONFINE_HELD_PORTS"  # "FD:PORT,..." of the sockets the launcher held
_LISTEN = "0A"  # a socket's state in /proc/net/tcp
_WAIT_S = 10.0


def held_ports_value(held: list[tuple[int, int]]) -> str:
    """The variable's value for (descriptor, port) pairs."""
    return ",".join(f"{fd}:{port}" for fd, port in held)


def _held(value: str) -> list[tuple[int, int]]:
    pairs: list[tuple[int, int]] = []
    for item in value.split(","):
        fd, _, port = item.partition(":")
        pairs.append((int(fd), int(port)))
    return pairs


def listening_ports() -> set[int]:
    """The TCP ports a socket listens on in this network namespace."""
    ports: set[int] = set()
    for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        try:
            with open(table, encoding="ascii") as file:
                rows = file.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 3 and fields[3] == _LISTEN:
                ports.add(int(fields[1].rpartition(":")[2], 16))
    return ports


def _is_socket(fd: int) -> bool:
    try:
        return os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
    except OSError:
        return False


def release_when_listening(value: str | None, wait_s: float = _WAIT_S) -> bool:
    """Close the held sockets `value` names once each of their ports listens; False when none were
    named, the value does not parse, or a port did not listen within `wait_s` (then all stay open)."""
    if not value:
        return False
    try:
        held = _held(value)
    except ValueError:
        return False
    ports = {port for _, port in held}
    deadline = time.monotonic() + wait_s
    while not ports <= listening_ports():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.002)
    for fd, _ in held:
        if _is_socket(fd):  # the launcher's, inherited: nothing here opened another in its place
            with contextlib.suppress(OSError):
                os.close(fd)
    return True
