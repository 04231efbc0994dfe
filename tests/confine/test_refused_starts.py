"""The supervisor outside the confined kernel (twnb/confine/exec_supervisor.py): every program start the
kernel's code tries, by any route, fails at the operating system and is recorded in the file the
starter named (`--refused-record`), even where nothing raises in the kernel (`os.system` and libc's
`system` return 127). A supervisor that is gone makes program starts fail, never succeed.

Real confined kernels (Landlock, seccomp user notification); the attacks as a stranger's cell writes them.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.confined_kernel import ConfinedKernel, Places, kernel_env, make_places, needs_landlock

from twnb.confine import RefusedStartsRecord, refused_programs
from twnb.confine.exec_supervisor import PROCESS_NAME, RECORD_OPTION, UNREAD_HIDDEN, unread_program

pytestmark = [pytest.mark.slow, needs_landlock, pytest.mark.timeout(180)]


def _start(root: Path, record: Path) -> ConfinedKernel:
    places = make_places(root)
    return ConfinedKernel(places, kernel_env(places), extra=(RECORD_OPTION, str(record)))


@pytest.fixture(scope="module")
def recorded(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[ConfinedKernel, RefusedStartsRecord]]:
    with RefusedStartsRecord() as record:
        kernel = _start(tmp_path_factory.mktemp("refused-starts"), record.path)
        try:
            yield kernel, record
        finally:
            kernel.shutdown()


def _tried(kernel: ConfinedKernel, record: RefusedStartsRecord, code: str) -> tuple[str, list[str]]:
    """Run `code`; what it printed (the error's lines too) and the programs recorded while it ran."""
    record.read_new()
    shown = kernel.run(code)
    return shown, refused_programs(record.read_new())


def _marker(places: Places, name: str) -> Path:
    return places.notebook / name


def test_the_kernels_start_tries_no_program(tmp_path: Path) -> None:
    with RefusedStartsRecord() as record:
        kernel = _start(tmp_path, record.path)
        try:
            kernel.run("pass")  # the kernel has started all it starts by the time it answers
            assert record.read_new() == []
        finally:
            kernel.shutdown()


def test_os_system_runs_nothing_and_is_recorded_with_its_program(recorded) -> None:
    kernel, record = recorded
    marker = _marker(kernel.places, "by-os-system")
    shown, programs = _tried(kernel, record, f"import os\nprint(os.system('touch {marker}'))")
    assert (marker.exists(), shown.strip() != "0", programs) == (False, True, ["/bin/sh"])


def test_libc_system_through_ctypes_runs_nothing_and_is_recorded(recorded) -> None:
    kernel, record = recorded
    marker = _marker(kernel.places, "by-ctypes")
    _, programs = _tried(kernel, record, f"import ctypes\nctypes.CDLL(None).system(b'touch {marker}')")
    assert (marker.exists(), programs) == (False, ["/bin/sh"])


def test_posix_spawn_runs_nothing_and_is_recorded(recorded) -> None:
    kernel, record = recorded
    marker = _marker(kernel.places, "by-spawn")
    code = f"import os\nos.waitpid(os.posix_spawn('/bin/sh', ['sh', '-c', 'touch {marker}'], {{}}), 0)"
    _, programs = _tried(kernel, record, code)
    assert (marker.exists(), programs) == (False, ["/bin/sh"])


def test_a_program_found_along_path_is_recorded_once_as_the_program_found(recorded) -> None:
    kernel, record = recorded
    _, programs = _tried(kernel, record, "import subprocess\nsubprocess.run(['touch', 'by-path'])")
    assert (programs, _marker(kernel.places, "by-path").exists()) == ([shutil.which("touch")], False)


def test_execveat_of_an_open_program_is_recorded_by_its_path(recorded) -> None:
    kernel, record = recorded
    marker = _marker(kernel.places, "by-fexecve")
    code = (
        "import os\n"
        "fd = os.open('/bin/sh', os.O_RDONLY)\n"
        "if os.fork() == 0:\n"
        f"    try:\n        os.execve(fd, ['sh', '-c', 'touch {marker}'], {{}})\n"
        "    finally:\n        os._exit(9)\n"
        "os.wait()"
    )
    _, programs = _tried(kernel, record, code)
    assert (marker.exists(), programs) == (False, [os.path.realpath("/bin/sh")])


def test_a_process_that_made_itself_non_dumpable_runs_nothing_and_is_recorded_with_its_program(
    recorded,
) -> None:
    """PR_SET_DUMPABLE 0 keeps same-user processes out of /proc/PID/mem, but not the supervisor: it is
    in the user namespace that owns the kernel's, with CAP_SYS_PTRACE over it."""
    kernel, record = recorded
    marker = _marker(kernel.places, "by-non-dumpable")
    code = (
        "import ctypes, os\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    libc = ctypes.CDLL(None)\n"
        "    libc.prctl(4, 0, 0, 0, 0)\n"  # PR_SET_DUMPABLE 0
        f"    os.system('touch {marker}')\n"
        "    os._exit(libc.prctl(3, 0, 0, 0, 0))\n"  # PR_GET_DUMPABLE: 0 while it tried
        "print(os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]))"
    )
    shown, programs = _tried(kernel, record, code)
    assert (shown.strip(), marker.exists(), programs) == ("0", False, ["/bin/sh"])


# a start whose path is in secret memory (memfd_secret: out of the kernel's direct map, so no other
# process can read it, while the caller's own execve can): the child's exit status is the exec's errno
_SECRET_PATH_EXEC = """
import ctypes, errno, mmap, os
child = os.fork()
if child == 0:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(447, 0)  # memfd_secret
    if fd < 0:
        os._exit(200)
    os.ftruncate(fd, 4096)
    page = mmap.mmap(fd, 4096)
    page[:8] = b"/bin/sh\\0"
    path = ctypes.addressof(ctypes.c_char.from_buffer(page))
    argv = (ctypes.c_char_p * 4)(b"sh", b"-c", b"touch MARKER", None)
    libc.syscall(59, ctypes.c_void_p(path), argv, None)  # execve
    os._exit(ctypes.get_errno())
print(os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]))
"""


def test_a_start_whose_path_no_one_can_read_runs_nothing_and_is_recorded_saying_so(recorded) -> None:
    kernel, record = recorded
    marker = _marker(kernel.places, "by-secret-path")
    shown, programs = _tried(kernel, record, _SECRET_PATH_EXEC.replace("MARKER", str(marker)))
    if shown.strip() == "200":
        pytest.skip("this kernel has no memfd_secret")
    assert (shown.strip(), marker.exists(), programs) == ("13", False, [unread_program(UNREAD_HIDDEN)])


def test_a_process_trying_again_and_again_is_recorded_once(recorded) -> None:
    kernel, record = recorded
    code = (
        "import os\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    for _ in range(200):\n"
        "        try:\n            os.execv('/bin/sh', ['sh', '-c', 'true'])\n"
        "        except OSError:\n            pass\n"
        "    os._exit(0)\n"
        "os.waitpid(child, 0)"
    )
    record.read_new()
    kernel.run(code)
    assert [start.program for start in record.read_new()] == ["/bin/sh"]


def test_the_kernel_cannot_take_a_seccomp_filter_that_would_answer_for_the_supervisor(recorded) -> None:
    kernel, _ = recorded
    errors = kernel.value(
        "(lambda ct: (lambda libc: ("
        "libc.prctl(22, 2, 0, 0, 0), ct.get_errno(), libc.syscall(317, 1, 8, 0), ct.get_errno()"
        "))(ct.CDLL(None, use_errno=True)))(__import__('ctypes'))"
    )
    assert errors == (-1, 1, -1, 1)  # EPERM, before the filter's own arguments are looked at


def test_the_kernel_holds_no_listener_of_its_exec_filter(recorded) -> None:
    kernel, _ = recorded
    kernel.run("import os")
    links = kernel.value("[os.path.realpath(f'/proc/self/fd/{fd}') for fd in os.listdir('/proc/self/fd')]")
    assert [link for link in links if "seccomp" in link] == []


def test_the_kernels_environment_does_not_name_the_handover(recorded) -> None:
    kernel, _ = recorded
    assert kernel.value("[n for n in __import__('os').environ if n.startswith('TWNB_CONFINE_')]") == []


def _supervisor_of(kernel: ConfinedKernel) -> int:
    pid = kernel.km.provisioner.process.pid  # the launcher, which became the kernel by exec
    for task in os.listdir(f"/proc/{pid}/task"):
        for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split():
            if Path(f"/proc/{child}/comm").read_bytes().strip() == PROCESS_NAME:
                return int(child)
    raise AssertionError("the confined kernel has no supervisor")


def test_with_the_supervisor_gone_a_program_start_still_fails(tmp_path: Path) -> None:
    with RefusedStartsRecord() as record:
        kernel = _start(tmp_path, record.path)
        try:
            supervisor = _supervisor_of(kernel)
            os.kill(supervisor, signal.SIGKILL)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and os.path.exists(f"/proc/{supervisor}/fd/0"):
                time.sleep(0.05)
            marker = _marker(kernel.places, "after-the-supervisor")
            shown = kernel.run(f"import os\nprint(os.system('touch {marker}'))")
            assert (marker.exists(), shown.strip() != "0") == (False, True)
        finally:
            kernel.shutdown()


def test_a_record_the_kernel_could_write_stops_the_launcher_in_one_line(tmp_path: Path) -> None:
    places = make_places(tmp_path)
    inside = places.notebook / "refused-starts.jsonl"
    with pytest.raises(RuntimeError) as stopped:
        ConfinedKernel(places, kernel_env(places), extra=(RECORD_OPTION, str(inside)))
    assert "is in a folder the kernel may write" in str(stopped.value) and not inside.exists()


def test_without_a_record_named_a_start_whose_path_no_one_can_read_is_a_line_saying_so(
    confined: ConfinedKernel,
) -> None:
    marker = _marker(confined.places, "by-secret-path-logged")
    shown = confined.run(_SECRET_PATH_EXEC.replace("MARKER", str(marker)))
    if shown.strip() == "200":
        pytest.skip("this kernel has no memfd_secret")
    said = f"twnb-confined: running {unread_program(UNREAD_HIDDEN)} was refused (process "
    assert (marker.exists(), said in confined.stderr()) == (False, True)
