"""Kernels of this Python talk over UNIX sockets, so that no other process can take their TCP ports
between jupyter_client's choice and the kernel's bind (twnb/kernel/separate/unix_sockets.py;
tests/kernel_port_stress.py counts that race)."""

from __future__ import annotations

import glob
import os

import pytest

from twnb.confine import confined_kernel_argv
from twnb.kernel import AsyncUnixSocketKernelManager, UnixSocketKernelManager, this_python_kernel_manager


@pytest.mark.slow
def test_a_kernel_answers_over_unix_sockets_which_are_removed_at_shutdown():
    km = UnixSocketKernelManager(kernel_name="python3")
    km.start_kernel()
    kc = km.client()
    try:
        kc.start_channels()
        kc.wait_for_ready(timeout=60)
        info = km.get_connection_info()
        sockets = sorted(glob.glob(f"{info['ip']}-*"))
        assert info["transport"] == "ipc"
        assert len(sockets) == 5 and all(os.path.exists(path) for path in sockets)
        assert kc.execute_interactive("6 * 7", timeout=30)["content"]["status"] == "ok"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert glob.glob(f"{info['ip']}-*") == []


def test_each_kernel_gets_sockets_of_its_own_at_a_path_short_enough_for_a_socket():
    first, second = UnixSocketKernelManager(), AsyncUnixSocketKernelManager()
    assert first.ip != second.ip
    assert all(os.path.isabs(km.ip) and len(os.fsencode(km.ip)) + 2 <= 107 for km in (first, second))


def test_this_pythons_kernel_uses_unix_sockets_and_the_confined_launcher_tcp():
    assert this_python_kernel_manager().transport == "ipc"
    assert this_python_kernel_manager(confined_kernel_argv()).transport == "tcp"


def test_a_tcp_kernel_may_still_be_asked_for():
    km = UnixSocketKernelManager(transport="tcp")
    assert km.transport == "tcp" and km.ip == "127.0.0.1"
