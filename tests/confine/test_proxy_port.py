"""The key proxy's port is never one of the kernel's: those are only written in the connection file
(free when Jupyter chose them, bound by the kernel later), and a proxy that took one would make the
kernel die at start on "Address already in use"."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from twnb.confine.launcher import _proxy_listener
from twnb.confine.plan import ConfinementError


def _ephemeral_ports() -> range:
    low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
    return range(int(low), int(high) + 1)


def test_the_proxy_takes_a_port_that_is_none_of_the_kernels():
    ports = list(_ephemeral_ports())
    kernel_ports = set(random.sample(ports, len(ports) // 2))  # half the ports the system hands out
    for _ in range(20):
        listener = _proxy_listener(kernel_ports)
        try:
            assert listener.getsockname()[1] not in kernel_ports
        finally:
            listener.close()


def test_no_free_port_besides_the_kernels_is_a_clear_refusal():
    with pytest.raises(ConfinementError, match="no free loopback port for the key proxy"):
        _proxy_listener(set(range(1, 65536)))
