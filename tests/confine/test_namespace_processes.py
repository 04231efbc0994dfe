"""The warden's end of what a kernel left running ends the processes of that user namespace, and of a
namespace nested in it, and never a process outside it (twnb/confine/leftover_processes.py,
twnb/config/namespace_processes.py).

Real processes in real user namespaces (`unshare --user --map-current-user`), standing for a kernel's
leftover children, beside a process of this test's own namespace standing for the user's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from twnb.confine.leftover_processes import end_leftovers

pytestmark = pytest.mark.skipif(shutil.which("unshare") is None, reason="no unshare(1) here")

# In a new user namespace: a sleep of that namespace, then (exec) a sleep in a namespace nested in it.
NESTED = "sleep 60 & exec unshare --user --map-current-user sleep 60"


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as file:
            return [int(child) for child in file.read().split()]
    except OSError:
        return []


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            data = file.read()
    except OSError:
        return False
    return data[data.rindex(b")") + 2 :].split()[0] not in (b"Z", b"X")


@pytest.fixture
def processes() -> Iterator[tuple[str, int, int, int]]:
    """(the namespace, its sleep, the nested namespace's sleep, the user's own sleep)."""
    theirs = subprocess.Popen(["unshare", "--user", "--map-current-user", "sh", "-c", NESTED])
    users = subprocess.Popen(["sleep", "60"])
    try:
        deadline = time.monotonic() + 30
        while not _children(theirs.pid) or Path(f"/proc/{theirs.pid}/comm").read_text().strip() != "sleep":
            assert time.monotonic() < deadline, "the namespaces were not made"
            time.sleep(0.02)
        (outer,) = _children(theirs.pid)
        namespace = os.readlink(f"/proc/{outer}/ns/user")
        assert os.readlink(f"/proc/{theirs.pid}/ns/user") != namespace  # nested, not the same
        yield namespace, outer, theirs.pid, users.pid
    finally:
        for process in (theirs, users):
            process.kill()
            process.wait()


def test_the_namespaces_processes_are_ended_and_counted(processes: tuple[str, int, int, int]) -> None:
    namespace, outer, nested, _users = processes
    leftovers = end_leftovers(namespace, grace_s=0.2)
    time.sleep(0.1)
    assert not _running(outer) and not _running(nested)
    assert len(leftovers.ended) == 2 and leftovers.remaining == 0


def test_a_process_outside_the_namespace_is_never_signalled(processes: tuple[str, int, int, int]) -> None:
    namespace, _outer, _nested, users = processes
    end_leftovers(namespace, grace_s=0.2)
    time.sleep(0.1)
    assert _running(users)


def test_the_line_says_how_many() -> None:
    from twnb.confine.leftover_processes import Leftovers

    said = Leftovers(ended={(1, 2), (3, 4)}).line()
    assert said == "twnb-confined: the kernel has ended; ended 2 processes it left running"
    assert Leftovers().line() is None
