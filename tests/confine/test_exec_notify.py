"""The kernel's side of the refused-starts record (twnb/confine/exec_notify.py), in a Python of its own
(a seccomp filter is never lifted): when the listener cannot be handed over, the process still starts,
says in one line that starts go unrecorded, and each program start fails, for no one can let it go."""

from __future__ import annotations

import subprocess
import sys

import pytest

from twnb.confine import seccomp

pytestmark = pytest.mark.skipif(not seccomp.supported(), reason="the exec filter is x86_64 Linux only")

_NO_SUPERVISOR = """
import ctypes, os, subprocess
ctypes.CDLL(None).prctl(38, 1, 0, 0, 0)  # no_new_privs, as Landlock sets it in the kernel
os.environ["TWNB_CONFINE_EXEC_HANDOFF"] = "987"  # no such descriptor: the hand-over fails
from twnb.confine.exec_notify import hand_over_from_environ
print(hand_over_from_environ())
try:
    subprocess.run(["/bin/sh", "-c", "echo ran"])
except OSError as error:
    print(error.errno)
"""


def test_a_listener_handed_to_no_one_makes_every_program_start_fail() -> None:
    run = subprocess.run([sys.executable, "-c", _NO_SUPERVISOR], capture_output=True, text=True, timeout=60)
    assert (run.stdout.split(), "program starts are refused but not recorded" in run.stderr) == (
        ["False", "38"],  # ENOSYS: the filter has no listener
        True,
    )
