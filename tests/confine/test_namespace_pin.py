"""A user namespace's number names an ended kernel's namespace alone while its warden holds it
(twnb/confine/namespace_pin.py): a namespace made after the kernel ended does not get the number, so
the warden's end (leftover_processes.py) and the quarantine's wait never take another kernel's
processes for the ended one's.

Real processes in real user namespaces (`unshare --user`), standing for the ended kernel and for
another confined kernel started just after; and a real confined kernel, whose warden holds its
namespace.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakellm import FakeLLMServer
from support.confined_kernel import ConfinedKernel, kernel_env, make_places, needs_landlock

from twnb.config import FolderQuarantine, namespace_members
from twnb.confine.namespace_pin import pin_user_namespace

needs_unshare = pytest.mark.skipif(shutil.which("unshare") is None, reason="no unshare(1) here")
FREED_S = 0.5  # an ended namespace is freed (its number free again) within this: measured 0.3 s


def _in_a_namespace() -> tuple[subprocess.Popen[bytes], str]:
    """A process in a new user namespace, and that namespace's name (`user:[N]`)."""
    own = os.readlink("/proc/self/ns/user")
    process = subprocess.Popen(["unshare", "--user", "sleep", "60"])
    deadline = time.monotonic() + 30
    while (name := os.readlink(f"/proc/{process.pid}/ns/user")) == own:
        assert time.monotonic() < deadline, "the namespace was not made"
        time.sleep(0.01)
    return process, name


def _has_members(namespace: str) -> bool:
    found = list(namespace_members(namespace))
    for member in found:
        os.close(member.pidfd)
    return bool(found)


@pytest.fixture
def later() -> Iterator[list[subprocess.Popen[bytes]]]:
    """The processes of namespaces made after the first ended (killed after the test)."""
    made: list[subprocess.Popen[bytes]] = []
    yield made
    for process in made:
        process.kill()
        process.wait()


@needs_unshare
def test_a_namespace_made_after_a_held_one_ended_does_not_get_its_number(
    later: list[subprocess.Popen[bytes]],
) -> None:
    ended, namespace = _in_a_namespace()
    pidfd = os.pidfd_open(ended.pid)
    held = pin_user_namespace(ended.pid, pidfd)
    assert held is not None
    try:
        ended.kill()
        ended.wait()
        time.sleep(FREED_S)
        for _ in range(3):  # the lowest free numbers: the ended one's first, were it free
            process, name = _in_a_namespace()
            later.append(process)
            assert name != namespace
        assert not _has_members(namespace)  # nothing of the later ones counts as the ended one's
    finally:
        os.close(held)
        os.close(pidfd)


@needs_unshare
def test_an_ended_process_gives_no_namespace_to_hold() -> None:
    ended, _namespace = _in_a_namespace()
    pidfd = os.pidfd_open(ended.pid)
    try:
        ended.kill()
        ended.wait()
        assert pin_user_namespace(ended.pid, pidfd) is None
    finally:
        os.close(pidfd)


@pytest.mark.slow
@needs_landlock
def test_the_warden_holds_its_kernels_namespace_while_the_kernel_runs(
    tmp_path: Path, fake_server: FakeLLMServer
) -> None:
    places = make_places(tmp_path)
    kernel = ConfinedKernel(
        places, kernel_env(places, OPENAI_BASE_URL=fake_server.base_url, TWNB_MODEL="fake-model")
    )
    try:
        namespace = kernel.value("__import__('os').readlink('/proc/self/ns/user')")
        record = FolderQuarantine(places.notebook, {"HOME": str(places.home)}).record_dir / "record.json"
        (session,) = json.loads(record.read_text())["sessions"]
        warden = int(session["warden"][0])
        deadline = time.monotonic() + 30
        while namespace not in _open_namespaces(warden):  # the launcher said it before the exec
            assert time.monotonic() < deadline, f"the warden holds {_open_namespaces(warden)}"
            time.sleep(0.05)
    finally:
        kernel.shutdown()


def _open_namespaces(pid: int) -> list[str]:
    names = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            names.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            continue
    return [name for name in names if name.startswith("user:[")]
