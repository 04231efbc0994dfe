"""`twnb export RECEIVED.ipynb --execute` of a notebook whose code leaves a process running after its
kernel (a forked child that `setsid`s out of the kernel's process group and ignores SIGTERM): the
confined kernel's warden ends it once the kernel is shut down, so the run does not wait 10 s for the
end and say it was "not finished", and the child does not run on (twnb/confine/leftover_processes.py,
twnb/config/kernel_end.py).

One real run (a subprocess, a real confined kernel) for the module; each test reads one fact of it.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.confined_kernel import needs_landlock
from support.replay_rounds import code_round, conversation, stdout
from support.twnb_cli import run_twnb

from twnb.memory import save_conversation

pytestmark = [pytest.mark.slow, needs_landlock, pytest.mark.timeout(300)]

LEAVE_A_CHILD = """\
import os, signal, time
if os.fork() == 0:
    os.setsid()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    stat = open('/proc/self/stat').read()
    open('child.txt', 'w').write(str(os.getpid()) + ' ' + stat[stat.rindex(')') + 2:].split()[19])
    while True:
        time.sleep(1)
time.sleep(0.5)
print('done')
"""


@dataclass
class Executed:
    status: int
    said: str
    seconds: float
    notebook: Path


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Executed]:
    root = tmp_path_factory.mktemp("leaves-a-child")
    notebook, sender = root / "notebook", root / "sender"
    for folder in (notebook, sender):
        folder.mkdir()
    save_conversation(
        conversation(code_round("Start a helper", LEAVE_A_CHILD, [stdout("done\n")])), sender / "conv.yaml"
    )
    assert run_twnb(sender, "export", "conv.yaml", "-o", "received.ipynb").returncode == 0
    shutil.copy(sender / "received.ipynb", notebook / "received.ipynb")
    began = time.monotonic()
    done = run_twnb(notebook, "export", "received.ipynb", "--execute", "--no-verify")
    yield Executed(done.returncode, done.stdout + done.stderr, time.monotonic() - began, notebook)
    if (notebook / "child.txt").exists():  # a failed end must not leave the child to other tests
        pid, start = (notebook / "child.txt").read_text().split()
        if _alive(int(pid), int(start)):
            os.kill(int(pid), 9)


def _alive(pid: int, start: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            data = file.read()
    except OSError:
        return False
    fields = data[data.rindex(b")") + 2 :].split()
    return int(fields[19]) == start and fields[0] not in (b"Z", b"X")


def test_the_cell_ran_in_a_confined_kernel_and_left_its_child(executed: Executed) -> None:
    assert "code cell in a fresh confined kernel in" in executed.said and "1 of 1 cells reproduced." in (
        executed.said
    )
    assert (executed.notebook / "child.txt").exists()


def test_the_run_does_not_say_the_end_was_not_finished(executed: Executed) -> None:
    assert "not finished after" not in executed.said


def test_the_run_says_it_ended_the_process_the_kernel_left(executed: Executed) -> None:
    assert (
        "Confined kernel's end: ended 1 process the kernel left running (a child its code started "
        "outlived it)."
    ) in executed.said


def test_the_child_does_not_run_on_after_the_run(executed: Executed) -> None:
    pid, start = (executed.notebook / "child.txt").read_text().split()
    assert not _alive(int(pid), int(start))
