"""The kernels this test process started that are still running: its child processes whose command
is ipykernel's or the confined kernel's (as jupyter_client starts them), zombies left out."""

from __future__ import annotations

import os
from pathlib import Path

_KERNEL_COMMANDS = (b"ipykernel_launcher", b"ipykernel.kernelapp", b"twnb.confine")


def running_kernels() -> set[int]:
    me = os.getpid()
    kernels: set[int] = set()
    for task in os.listdir(f"/proc/{me}/task"):
        try:
            children = Path(f"/proc/{me}/task/{task}/children").read_text().split()
        except OSError:
            continue  # a thread that ended meanwhile
        for child in children:
            try:
                command = Path(f"/proc/{child}/cmdline").read_bytes()
                state = Path(f"/proc/{child}/stat").read_text().rpartition(")")[2].split()[0]
            except OSError:
                continue
            if state != "Z" and any(name in command for name in _KERNEL_COMMANDS):
                kernels.add(int(child))
    return kernels
