"""The confined kernel keeps TCP (its seccomp filter refuses UNIX sockets), and jupyter_client finds its
five ports free by binding and closing each: another process can take one before the kernel binds it,
and the kernel then failed on "Address already in use" and hung until the starter's timeout (60-90 s).
The launcher holds the ports from its start until the kernel binds them; one already taken when it
starts ends it at once with one line naming the port, and KernelExecutor tries once more, new ports,
as do twnb's nbclient runs (`twnb export --execute`, `twnb eval`'s case notebooks, `twnb demo --live`),
which say so in one line.

Real confined kernels: the launcher started by jupyter_client as Jupyter starts the kernelspec, and
KernelExecutor. A port of the connection file is made to be one the test holds (listening, as another
process's server would) through jupyter_client's port cache, the one place it picks them."""

from __future__ import annotations

import contextlib
import ctypes
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from jupyter_client.connect import LocalPortCache
from jupyter_client.manager import KernelManager
from support.child_kernels import running_kernels
from support.confined_kernel import ConfinedKernel, ConfinedSpecs, kernel_env, make_places, needs_landlock
from support.nb_rounds import analysis_round

from twnb.cli import main
from twnb.confine import CONFINED_KERNEL_NAME, PORT_TAKEN_EXIT, confined_kernel_argv
from twnb.confine.held_ports import listening_ports
from twnb.demo.demo_notebook import DEMO_MODEL
from twnb.demo.runner import KernelChoice, run_demo
from twnb.evaluation.case_notebook import CaseNotebook
from twnb.kernel import KernelExecutor, KernelSetup, KernelStartError
from twnb.kernel.separate.kernel_start import LOST_PORT_RETRY
from twnb.memory import Conversation, save_conversation

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), needs_landlock]

# Far below the 60-90 s a kernel that lost a port took to fail, far above a launcher's start (~0.3 s)
# and a confined kernel's (~3 s) on a loaded 2-core machine.
FAST_S = 30
_PORTS = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port another process's server listens on, for the whole test."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        yield int(server.getsockname()[1])


def _hand_out_first(monkeypatch: pytest.MonkeyPatch, port: int, times: int) -> list[int]:
    """jupyter_client's port cache hands out `port` as the shell port (the first of the five it is
    asked for) of each of the first `times` kernels, and free ones as usual otherwise; the ports
    handed out."""
    real = LocalPortCache.find_available_port
    handed: list[int] = []

    def find_available_port(cache: LocalPortCache, ip: str) -> int:
        chosen = port if len(handed) % 5 == 0 and len(handed) < 5 * times else real(cache, ip)
        handed.append(chosen)
        return chosen

    monkeypatch.setattr(LocalPortCache, "find_available_port", find_available_port)
    return handed


def test_the_launcher_ends_at_once_naming_a_port_another_process_took(
    tmp_path: Path, taken_port: int
) -> None:
    places = make_places(tmp_path)
    km = KernelManager(kernel_name=CONFINED_KERNEL_NAME, kernel_spec_manager=ConfinedSpecs())
    km.cache_ports = False  # the ports already set are kept, the others found free
    km.shell_port = taken_port  # as if another process took it after jupyter_client chose it
    stderr_path = tmp_path / "stderr.txt"
    started = time.monotonic()
    with stderr_path.open("w") as stderr:
        km.start_kernel(cwd=str(places.notebook), env=kernel_env(places), stderr=stderr)
    try:
        process: Any = km.provisioner.process  # type: ignore[union-attr]
        status = process.wait(timeout=FAST_S)
        took = time.monotonic() - started
    finally:
        km.shutdown_kernel(now=True)
    (line,) = stderr_path.read_text().splitlines()
    assert status == PORT_TAKEN_EXIT, line
    assert took < FAST_S
    assert f"port {taken_port} of the connection file (shell_port) is taken by another process" in line
    assert line.startswith("twnb-confined: not started: ")


def _assert_ends_saying_its_port_was_taken(tmp_path: Path, which: str) -> None:
    """A confined kernel started on a port (`which`: the KernelManager's attribute) that another
    process, bound as a launcher binds, listens on first once the launcher holds it: it ends with
    PORT_TAKEN_EXIT and one line naming the port, never a traceback."""
    places = make_places(tmp_path)
    with socket.socket() as other:  # the other process's socket, bound as its launcher binds
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        other.bind(("127.0.0.1", 0))
        port = int(other.getsockname()[1])
        km = KernelManager(kernel_name=CONFINED_KERNEL_NAME, kernel_spec_manager=ConfinedSpecs())
        km.cache_ports = False  # the ports already set are kept, the others found free
        setattr(km, which, port)
        stderr_path = tmp_path / "stderr.txt"
        with stderr_path.open("w") as stderr:
            km.start_kernel(cwd=str(places.notebook), env=kernel_env(places), stderr=stderr)
        try:
            process: Any = km.provisioner.process  # type: ignore[union-attr]
            deadline = time.monotonic() + FAST_S
            while not _held_on({port}, process.pid):  # the launcher holds it, beside the other
                assert process.poll() is None and time.monotonic() < deadline, stderr_path.read_text()
                time.sleep(0.002)
            other.listen(1)  # the other kernel listens first
            status = process.wait(timeout=FAST_S)
        finally:
            km.shutdown_kernel(now=True)
    said = stderr_path.read_text()
    assert status == PORT_TAKEN_EXIT, said
    lines = [line for line in said.splitlines() if line.startswith("twnb-confined: not started: ")]
    assert len(lines) == 1 and "taken by another process before the kernel listened on it" in lines[0], said
    assert f"tcp://127.0.0.1:{port}" in lines[0] and "Traceback" not in said


def test_a_kernel_whose_held_port_another_kernel_listens_on_first_ends_at_once_saying_so(
    tmp_path: Path,
) -> None:
    """The launcher's hold (SO_REUSEADDR, not listening) keeps a port from a plain bind and from the
    system's choice of a free port, not from another process that binds it with SO_REUSEADDR too:
    another confined launcher, or a kernel's ZeroMQ socket, whose jupyter_client was handed the same
    free port a moment before. Once that one listens, this kernel's own bind fails: it ends with
    PORT_TAKEN_EXIT (the starters try new ports), not a traceback and a kernel that died. Seen once in
    10 runs of tests/confine on one CPU (`taskset -c 0`), in another test's second start."""
    _assert_ends_saying_its_port_was_taken(tmp_path, "shell_port")


def test_a_kernel_whose_heartbeat_port_another_kernel_listens_on_first_ends_at_once_saying_so(
    tmp_path: Path,
) -> None:
    """The heartbeat's port, bound by ipykernel in the heartbeat's own thread: the kernel ran on
    without a heartbeat, and no starter tried again. It ends as on the other ports' loss."""
    _assert_ends_saying_its_port_was_taken(tmp_path, "hb_port")


def test_a_separate_kernel_that_lost_a_port_starts_on_new_ports(
    tmp_path: Path, taken_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    places = make_places(tmp_path)
    handed = _hand_out_first(monkeypatch, taken_port, times=1)
    started = time.monotonic()
    with KernelExecutor(places.notebook, kernel=KernelSetup(env={"HOME": str(places.home)})) as kernel:
        took = time.monotonic() - started
        result = kernel.run("import os\nprint('confined' if os.environ.get('TWNB_CONFINED') else 'not')")
    assert result.stdout.strip() == "confined", result.error
    assert handed.count(taken_port) == 1 and len(handed) == 10  # two kernels' five ports each
    assert took < FAST_S


def _launchers() -> set[int]:
    """This process's children that run the confined launcher (or the kernel it became): not one
    forked a moment ago that still holds copies of this process's sockets until its exec."""
    pids: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError):
            for pid in Path(f"/proc/self/task/{task}/children").read_text().split():
                with contextlib.suppress(OSError):
                    if b"twnb.confine" in Path(f"/proc/{pid}/cmdline").read_bytes():
                        pids.add(int(pid))
    return pids


@contextlib.contextmanager
def _heartbeat_port_taken_once(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """jupyter_client hands the first kernel a heartbeat port that another process's socket is bound
    to (SO_REUSEADDR, as another launcher binds); that one listens as soon as a child of this process
    (the first kernel's launcher) holds it. The ports handed out."""
    real = LocalPortCache.find_available_port
    handed: list[int] = []
    with socket.socket() as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        other.bind(("127.0.0.1", 0))
        port = int(other.getsockname()[1])

        def find_available_port(cache: LocalPortCache, ip: str) -> int:
            handed.append(port if len(handed) == 3 else real(cache, ip))  # the fourth: hb_port
            return handed[-1]

        def held(pid: int) -> bool:
            try:
                return bool(_held_on({port}, pid))
            except OSError:  # ended meanwhile
                return False

        def listen_once_held() -> None:
            deadline = time.monotonic() + FAST_S
            while time.monotonic() < deadline:
                if any(held(pid) for pid in _launchers()):
                    other.listen(1)  # the other kernel listens first
                    return
                time.sleep(0.002)

        monkeypatch.setattr(LocalPortCache, "find_available_port", find_available_port)
        watcher = threading.Thread(target=listen_once_held, daemon=True)
        watcher.start()
        yield handed
        watcher.join()


def test_a_separate_kernel_that_lost_its_heartbeat_port_starts_on_new_ports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    places = make_places(tmp_path)
    started = time.monotonic()
    setup = KernelSetup(env={"HOME": str(places.home)})
    with (
        _heartbeat_port_taken_once(monkeypatch) as handed,
        KernelExecutor(places.notebook, kernel=setup) as kernel,
    ):
        took = time.monotonic() - started
        result = kernel.run("print(6 * 7)")
    said = capfd.readouterr().err  # the kernels' stderr is this process's
    assert result.stdout.strip() == "42", result.error
    assert len(handed) == 10  # two kernels' five ports each: the first ended, the second runs
    (line,) = [line for line in said.splitlines() if line.startswith("twnb-confined: not started: ")]
    assert "before the kernel listened on it" in line, said  # the first kernel's own bind, not its launcher's
    assert f"addr='tcp://127.0.0.1:{handed[3]}'" in line, said  # of its heartbeat
    assert took < FAST_S


def test_a_separate_kernel_that_lost_a_port_twice_fails_at_once_saying_so(
    tmp_path: Path, taken_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    places = make_places(tmp_path)
    handed = _hand_out_first(monkeypatch, taken_port, times=2)
    executor = KernelExecutor(places.notebook, kernel=KernelSetup(env={"HOME": str(places.home)}))
    started = time.monotonic()
    with pytest.raises(KernelStartError, match="lost a port of its connection file to another process twice"):
        executor.start()
    assert time.monotonic() - started < FAST_S
    assert handed.count(taken_port) == 2 and len(handed) == 10


# --- twnb's nbclient runs: `twnb export --execute`, `twnb eval`'s case notebook, `twnb demo --live` ---


def test_export_execute_starts_a_kernel_that_lost_a_port_once_more_and_says_so(
    tmp_path: Path, taken_port: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    places = make_places(tmp_path)
    save_conversation(_one_round(), places.notebook / "conv.yaml")
    monkeypatch.chdir(places.notebook)
    monkeypatch.setenv("HOME", str(places.home))
    handed = _hand_out_first(monkeypatch, taken_port, times=1)
    started = time.monotonic()
    status = main(["export", "conv.yaml", "--execute", "-o", "out.ipynb"])
    took = time.monotonic() - started
    said = capsys.readouterr().out
    assert (status, said.count(LOST_PORT_RETRY), "1 of 1 cells reproduced" in said) == (0, 1, True), said
    assert handed.count(taken_port) == 1 and len(handed) == 10
    assert took < FAST_S * 2


def test_export_execute_that_lost_a_port_twice_stops_at_once_saying_so(
    tmp_path: Path, taken_port: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    places = make_places(tmp_path)
    save_conversation(_one_round(), places.notebook / "conv.yaml")
    monkeypatch.chdir(places.notebook)
    monkeypatch.setenv("HOME", str(places.home))
    _hand_out_first(monkeypatch, taken_port, times=2)
    started = time.monotonic()
    main(["export", "conv.yaml", "--execute", "-o", "out.ipynb"])
    said = capsys.readouterr().out
    assert "lost a port of its connection file to another process twice in a row" in said, said
    assert time.monotonic() - started < FAST_S


def test_an_eval_cases_kernel_that_lost_a_port_starts_on_new_ports_and_says_so(
    tmp_path: Path, taken_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    places = make_places(tmp_path)
    handed = _hand_out_first(monkeypatch, taken_port, times=1)
    lines: list[str] = []
    notebook = CaseNotebook(
        places.notebook, "case.ipynb", kernel_env(places), 60, confined_kernel_argv(), lines.append
    )
    with notebook:
        outputs = notebook.run_quietly(
            "import os\nprint('confined' if os.environ.get('TWNB_CONFINED') else '')"
        )
    assert [o.get("text") for o in outputs] == ["confined\n"]
    assert lines == [LOST_PORT_RETRY]
    assert handed.count(taken_port) == 1 and len(handed) == 10


def test_the_live_demos_kernel_that_lost_a_port_starts_on_new_ports_and_says_so(
    tmp_path: Path, taken_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    places = make_places(tmp_path)
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import os\nprint('confined' if os.environ.get('TWNB_CONFINED') else '')")
    ]
    for name, value in kernel_env(places, TWNB_MODEL=DEMO_MODEL).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("TWNB_REPLAY", raising=False)
    handed = _hand_out_first(monkeypatch, taken_port, times=1)
    lines: list[str] = []
    result = run_demo(
        tmp_path / "out",
        live=True,
        kernel_choice=KernelChoice(confine=True),
        notebook=nb,
        progress=lines.append,
    )
    ran = nbformat.read(result.notebook, as_version=4).cells[0].outputs
    assert [o.get("text") for o in ran] == ["confined\n"]
    assert lines.count(LOST_PORT_RETRY) == 1, lines
    assert handed.count(taken_port) == 1 and len(handed) == 10


def test_an_eval_cases_kernel_that_lost_its_heartbeat_port_starts_on_new_ports_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    places = make_places(tmp_path)
    lines: list[str] = []
    notebook = CaseNotebook(
        places.notebook, "case.ipynb", kernel_env(places), 60, confined_kernel_argv(), lines.append
    )
    with _heartbeat_port_taken_once(monkeypatch) as handed, notebook:
        outputs = notebook.run_quietly("print(6 * 7)")
    assert [o.get("text") for o in outputs] == ["42\n"]
    assert lines == [LOST_PORT_RETRY]
    assert len(handed) == 10


def _one_round() -> Conversation:
    conversation = Conversation.init()
    conversation.add_round(analysis_round())
    return conversation


def test_the_tests_own_confined_kernels_start_once_more_when_the_launcher_lost_a_port(
    tmp_path: Path, taken_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tests/support/confined_kernel.py tells the lost port by the launcher's exit status."""
    places = make_places(tmp_path)
    _hand_out_first(monkeypatch, taken_port, times=1)
    kernel = ConfinedKernel(places, kernel_env(places))
    try:
        assert (kernel.ports_lost, kernel.value("6 * 7")) == (1, 42)
        assert f"port {taken_port} of the connection file (shell_port) is taken" in kernel.stderr()
    finally:
        kernel.shutdown()


def _held_on(ports: set[int], pid: int) -> list[int]:
    """The ports of `ports` that a socket of process `pid` is bound to without listening or being
    connected: a hold like the launcher's (read through copies of its descriptors, pidfd_getfd)."""
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = os.pidfd_open(pid)
    held: list[int] = []
    try:
        for name in os.listdir(f"/proc/{pid}/fd"):
            try:
                if not os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                    continue
            except OSError:
                continue  # closed meanwhile
            fd = libc.syscall(438, pidfd, int(name), 0)  # pidfd_getfd
            if fd < 0:
                continue
            with socket.socket(fileno=fd) as sock:
                if sock.family not in (socket.AF_INET, socket.AF_INET6):
                    continue
                port = sock.getsockname()[1]
                listening = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
                try:
                    sock.getpeername()
                    connected = True
                except OSError:
                    connected = False
                if port in ports and not listening and not connected:
                    held.append(port)
    finally:
        os.close(pidfd)
    return held


def test_once_the_kernel_listens_no_process_holds_its_ports_any_more(confined: ConfinedKernel) -> None:
    """The launcher's hold is for the moment between jupyter_client choosing the ports and the kernel
    binding them: closed in the kernel once it listens, and never kept by the processes it forked."""
    kernel_pid = confined.km.provisioner.process.pid  # type: ignore[union-attr]
    ports = {int(confined.km.get_connection_info()[name]) for name in _PORTS}
    # the kernel closes them from a thread of its own, beside its start: waited for here
    confined.run(
        "import threading\n[t.join(30) for t in threading.enumerate() if t.name == 'twnb-held-ports']"
    )
    children = [
        int(child)
        for task in os.listdir(f"/proc/{kernel_pid}/task")
        for child in Path(f"/proc/{kernel_pid}/task/{task}/children").read_text().split()
    ]
    assert len(children) == 2  # the warden (key proxy) and the supervisor of program starts
    assert {pid: _held_on(ports, pid) for pid in [kernel_pid, *children]} == {
        pid: [] for pid in [kernel_pid, *children]
    }
    assert ports <= listening_ports()  # the kernel listens on each


def test_an_eval_cases_kernel_has_ended_when_its_notebook_closes(tmp_path: Path) -> None:
    """`twnb eval` scores a case with its kernel shut down (case_run.py): nbclient shuts down only
    kernels of managers it made, so the case's notebook ends its own."""
    places = make_places(tmp_path)
    before = running_kernels()
    with CaseNotebook(
        places.notebook, "case.ipynb", kernel_env(places), 60, confined_kernel_argv()
    ) as notebook:
        notebook.run_quietly("pass")
        started = running_kernels() - before
    assert (len(started), running_kernels() - before) == (1, set())
