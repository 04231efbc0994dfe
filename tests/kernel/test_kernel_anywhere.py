"""KernelExecutor with kernels it did not start: any kernelspec by name, a running kernel attached by
its connection file (never shut down), and a kernel whose files are elsewhere (treated as remote)."""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from twnb.kernel import KernelExecutor, KernelSetup, KernelStartError

pytestmark = pytest.mark.slow


class RunningKernel:
    """A kernel the test starts itself (as a notebook server would), in `cwd`."""

    def __init__(self, cwd: Path) -> None:
        from twnb.kernel import UnixSocketKernelManager
        from twnb.kernel.separate.this_python import KERNEL_NAME, ThisPythonKernelSpecs

        self.cwd = cwd
        self.km = UnixSocketKernelManager(
            kernel_name=KERNEL_NAME, kernel_spec_manager=ThisPythonKernelSpecs()
        )
        self.km.start_kernel(cwd=str(cwd), env=dict(os.environ))
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)

    def run(self, code: str) -> None:
        reply = self.kc.execute_interactive(code, timeout=60, output_hook=lambda msg: None)
        assert reply["content"]["status"] == "ok", reply["content"]

    def stop(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


@pytest.fixture
def running_kernel(tmp_path: Path) -> Iterator[RunningKernel]:
    cwd = tmp_path / "kernel-side"
    cwd.mkdir()
    kernel = RunningKernel(cwd)
    yield kernel
    kernel.stop()


def test_an_attached_kernel_keeps_its_variables_and_outlives_the_executor(running_kernel, tmp_path):
    running_kernel.run("already_there = 41")
    with KernelExecutor(
        tmp_path, kernel=KernelSetup(connection_file=running_kernel.km.connection_file)
    ) as executor:
        result = executor.run("answer = already_there + 1\nanswer")
    assert (result.status, result.result) == ("success", "42")
    assert result.variables_of_kind("created") == ["answer"]
    assert running_kernel.km.is_alive()
    running_kernel.run("assert answer == 42")


def test_a_local_kernel_is_found_to_share_our_filesystem(running_kernel, tmp_path):
    with KernelExecutor(
        tmp_path, kernel=KernelSetup(connection_file=running_kernel.km.connection_file)
    ) as executor:
        place = executor.place
        result = executor.run("open('made-here.txt', 'w').write('x')")
    assert place is not None
    assert (place.hostname, place.cwd, place.shares_filesystem) == (
        socket.gethostname(),
        str(running_kernel.cwd),
        True,
    )
    assert result.artifacts == [str(running_kernel.cwd / "made-here.txt")]


def test_a_time_limit_interrupts_an_attached_kernel_without_ending_it(running_kernel, tmp_path):
    with KernelExecutor(
        tmp_path, kernel=KernelSetup(connection_file=running_kernel.km.connection_file)
    ) as executor:
        stopped = executor.run("import time\nkept = 1\ntime.sleep(60)", timeout=1.5)
        after = executor.run("kept + 1")
    assert stopped.status == "timeout" and not stopped.kernel_restarted
    assert (after.status, after.result) == ("success", "2")


def test_files_written_in_a_kernel_elsewhere_come_back_through_it(running_kernel, tmp_path):
    ours = tmp_path / "notebook-side"
    ours.mkdir()
    code = (
        "import os\n"
        "os.makedirs('out', exist_ok=True)\n"
        "open('out/small.csv', 'w').write('day,total\\n1,10\\n')\n"
        "open('big.bin', 'wb').write(b'0' * 3_000_000)\n"
    )
    with KernelExecutor(
        ours, kernel=KernelSetup(connection_file=running_kernel.km.connection_file, shares_filesystem=False)
    ) as executor:
        result = executor.run(code)
    assert result.status == "success"
    assert result.artifacts == [str(ours / "out" / "small.csv")]
    assert (ours / "out" / "small.csv").read_text() == "day,total\n1,10\n"
    where = f"{socket.gethostname()}:{running_kernel.cwd / 'big.bin'} (3,000,000 bytes)"
    assert any(note.startswith(where) and "stays there" in note for note in result.notes)
    assert not (ours / "big.bin").exists()
    assert not any(str(running_kernel.cwd) in path for path in result.artifacts)


def test_a_missing_connection_file_is_a_clear_error(tmp_path):
    with pytest.raises(KernelStartError, match=r"No connection file at .*jupyter --runtime-dir"):
        KernelExecutor(tmp_path, kernel=KernelSetup(connection_file=tmp_path / "kernel-gone.json")).start()


def test_any_kernelspec_runs_by_name(tmp_path, monkeypatch):
    spec_dir = tmp_path / "jupyter" / "kernels" / "twnb-test-python"
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "twnb test kernel",
        "language": "python",
        "env": {"TWNB_TEST_KERNELSPEC": "yes"},
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    workdir = tmp_path / "work"
    workdir.mkdir()
    with KernelExecutor(workdir, kernel_name="twnb-test-python") as executor:
        result = executor.run("import os\nos.environ['TWNB_TEST_KERNELSPEC']")
    assert (result.status, result.result) == ("success", "'yes'")
