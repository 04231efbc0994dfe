"""A confined kernel's code leaves a process running after the kernel (a forked child that `setsid`s
out of the kernel's process group, so Jupyter's kill of the group misses it): once the kernel's own
process has ended, its warden ends every other process of the kernel's user namespace (SIGTERM, a
short grace, SIGKILL) and does the end-of-kernel work at once (twnb/confine/leftover_processes.py).

Real confined kernels (the kernelspec's launcher, Landlock, seccomp) started with jupyter_client; each
attack written as a model would, and what is left judged from /proc, not from what is said: no
process of the kernel's user namespace, the child's own (pid, start time) gone, the warden's work
(the private folder removed, the session ended in the record) done within a few seconds.
"""

from __future__ import annotations

import json
import os
import platform
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.confined_kernel import ConfinedKernel, Places, make_places, needs_landlock

from twnb.config import FolderQuarantine, namespace_members

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), needs_landlock]

# Within this the warden has ended what was left and done its work: the grace (1 s), SIGKILL rounds,
# the quarantine's look; generous for a loaded machine, far below the 10 s a batch starter waits.
END_WITHIN_S = 8.0

# Each child writes its own (pid, start time) beside the notebook, then does what it does forever.
_CHILD = """\
import os, signal, time
if os.fork() == 0:
    os.setsid()
    {prepare}
    stat = open('/proc/self/stat').read()
    open({record!r}, 'w').write(str(os.getpid()) + ' ' + stat[stat.rindex(')') + 2:].split()[19])
    {body}
    os._exit(0)
"""
SLEEPS_FOREVER = {"prepare": "pass", "body": "while True: time.sleep(1)"}
IGNORES_SIGTERM = {
    "prepare": (
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n    import ctypes\n"
        "    ctypes.CDLL(None).prctl(15, b'kworker/0:1', 0, 0, 0)  # PR_SET_NAME: looks like the system's"
    ),
    "body": "while True: time.sleep(1)",
}
# The main thread exits alone (the exit system call, not exit_group), a thread runs on: /proc shows
# the process as a zombie, and a look at its state alone would take it for ended.
SYS_EXIT = {"x86_64": 60, "aarch64": 93}.get(platform.machine(), 60)
LEADER_EXITS_ALONE = {
    "prepare": (
        "import ctypes, threading\n"
        "    threading.Thread(target=lambda: [time.sleep(0.1) for _ in iter(int, 1)]).start()"
    ),
    "body": f"ctypes.CDLL(None).syscall({SYS_EXIT}, 0)",
}
# Each generation forks the next (a new session each time) and exits: a new pid all the time.
FORKS_IN_A_LOOP = {
    "prepare": "signal.signal(signal.SIGTERM, signal.SIG_IGN)",
    "body": "while True:\n        if os.fork():\n            os._exit(0)\n        os.setsid()",
}


def _namespace_pids(namespace: str) -> list[int]:
    """The pids whose user namespace is `namespace` and that run a thread, as /proc says (a zombie,
    exited and waiting for its parent, runs nothing; a leader that exited alone while its other
    threads run shows as a zombie, its threads do not)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{name}/ns/user") != namespace:
                continue
            tasks = os.listdir(f"/proc/{name}/task")
        except OSError:
            continue
        if any(_task_runs(f"/proc/{name}/task/{task}/stat") for task in tasks):
            found.append(int(name))
    return found


def _task_runs(stat: str) -> bool:
    try:
        with open(stat, "rb") as file:
            data = file.read()
    except OSError:
        return False
    return data[data.rindex(b")") + 2 :].split()[0] not in (b"Z", b"X")


def _seen_running(namespace: str, looks: int = 20) -> set[int]:
    """Every pid of `namespace` seen in `looks` looks 25 ms apart: a process that forks in a loop is
    under a new pid every few milliseconds, which one look can miss."""
    seen: set[int] = set()
    for _ in range(looks):
        seen.update(_namespace_pids(namespace))
        time.sleep(0.025)
    return seen


def _kill_all(namespace: str) -> None:
    """After a test, whatever it asserted: nothing of the namespace left on the machine (a process
    that forks in a loop would run on for good)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _seen_running(namespace, looks=4):
        for member in namespace_members(namespace):
            signal.pidfd_send_signal(member.pidfd, signal.SIGKILL)
            os.close(member.pidfd)


def _alive(pid: int, start: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            data = file.read()
    except OSError:
        return False
    fields = data[data.rindex(b")") + 2 :].split()
    return int(fields[19]) == start and fields[0] not in (b"Z", b"X")


def _wait_for(condition: Callable[[], bool], within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _child_record(places: Places) -> tuple[int, int]:
    path = places.notebook / "child.txt"
    assert _wait_for(lambda: path.exists() and path.read_text().strip() != "", 30), "the child never ran"
    pid, start = path.read_text().split()
    return int(pid), int(start)


class Started:
    """A confined kernel whose code left `child` running, shut down as Jupyter shuts it down."""

    def __init__(
        self, kernel_in: type[ConfinedKernel], tmp_path: Path, child: dict[str, str], started: list[str]
    ) -> None:
        self.places = make_places(tmp_path)
        self.kernel = kernel_in(self.places)
        self.private = self.kernel.private_folder()
        pid = self.kernel.km.provisioner.pid  # type: ignore[union-attr]
        self.namespace = os.readlink(f"/proc/{pid}/ns/user")
        started.append(self.namespace)
        code = _CHILD.format(record=str(self.places.notebook / "child.txt"), **child)
        assert self.kernel.execute(code)["status"] == "ok"
        self.child = _child_record(self.places)
        assert len(_seen_running(self.namespace)) >= 2  # the kernel, and what it left running

    def shut_down(self) -> float:
        """Shut the kernel down; the seconds until its warden removed the private folder (its last
        step), or a failure when it did not within END_WITHIN_S."""
        self.kernel.shutdown()
        began = time.monotonic()
        assert _wait_for(lambda: not self.private.exists(), END_WITHIN_S), (
            f"the warden's work was not done {END_WITHIN_S} s after the shutdown; its processes: "
            f"{_namespace_pids(self.namespace)}"
        )
        return time.monotonic() - began


@pytest.fixture
def namespaces() -> Iterator[list[str]]:
    """The tests' kernels' namespaces, emptied after each test whatever it found."""
    started: list[str] = []
    yield started
    for namespace in started:
        _kill_all(namespace)


@pytest.mark.parametrize(
    "child",
    [SLEEPS_FOREVER, IGNORES_SIGTERM, FORKS_IN_A_LOOP, LEADER_EXITS_ALONE],
    ids=["sleeps-forever", "ignores-sigterm-renamed", "forks-in-a-loop", "leader-exits-alone"],
)
def test_after_the_shutdown_no_process_of_the_kernel_is_left_and_the_end_is_done(
    kernel_in: type[ConfinedKernel], tmp_path: Path, child: dict[str, str], namespaces: list[str]
) -> None:
    started = Started(kernel_in, tmp_path, child, namespaces)
    started.shut_down()
    assert not _alive(*started.child)
    assert _seen_running(started.namespace) == set()


def test_the_end_says_how_many_it_ended_on_the_kernels_log_and_in_the_record(
    kernel_in: type[ConfinedKernel], tmp_path: Path, namespaces: list[str]
) -> None:
    started = Started(kernel_in, tmp_path, IGNORES_SIGTERM, namespaces)
    started.shut_down()
    assert "twnb-confined: the kernel has ended; ended 1 process it left running" in started.kernel.stderr()
    record_dir = FolderQuarantine(started.places.notebook, {"HOME": str(started.places.home)}).record_dir
    record = json.loads((record_dir / "record.json").read_text())
    assert record["sessions"] == [] and record["ended"][-1]["leftovers"] == 1


def test_a_restart_ends_the_old_kernels_child_and_the_new_kernel_runs(
    kernel_in: type[ConfinedKernel], tmp_path: Path, namespaces: list[str]
) -> None:
    started = Started(kernel_in, tmp_path, SLEEPS_FOREVER, namespaces)
    started.kernel.restart()
    assert _wait_for(lambda: not _alive(*started.child), END_WITHIN_S)
    assert _wait_for(lambda: _namespace_pids(started.namespace) == [], END_WITHIN_S)
    assert _seen_running(started.namespace) == set()
    assert started.kernel.value("6 * 7") == 42
    pid = started.kernel.km.provisioner.pid  # type: ignore[union-attr]
    assert os.readlink(f"/proc/{pid}/ns/user") != started.namespace  # a namespace of its own
