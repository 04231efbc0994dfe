"""`twnb export --check --existing CONNECTION_FILE`: the re-run happens in a kernel the test started,
which keeps what the cells made and is left running."""

from __future__ import annotations

import os

import pytest
from replay_data import DATA

from twnb.cli import main

pytestmark = pytest.mark.slow

REVISE = DATA / "codeinterpreter-revise.yaml"


@pytest.fixture
def running_kernel(tmp_path):
    from twnb.kernel import UnixSocketKernelManager
    from twnb.kernel.separate.this_python import KERNEL_NAME, ThisPythonKernelSpecs

    km = UnixSocketKernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=ThisPythonKernelSpecs())
    km.start_kernel(cwd=str(tmp_path), env=dict(os.environ))
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    yield km, kc
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def test_check_reruns_in_a_running_kernel_and_leaves_it_running(running_kernel, tmp_path, capsys):
    km, kc = running_kernel
    out = tmp_path / "out.ipynb"
    assert main(["export", str(REVISE), "-o", str(out), "--check", "--existing", km.connection_file]) == 0
    captured = capsys.readouterr()
    assert "2 of 2 cells reproduced." in captured.out
    assert f"in the running kernel of {km.connection_file}" in captured.err
    assert km.is_alive()
    reply = kc.execute_interactive("assert xs == [1, 2, 3, 4, 5]", timeout=30, output_hook=lambda msg: None)
    assert reply["content"]["status"] == "ok"  # the re-run's variables live in that kernel


def test_existing_without_execute_is_a_one_line_error(tmp_path, capsys):
    connection = tmp_path / "kernel-1.json"
    connection.write_text("{}")
    out = tmp_path / "out.ipynb"
    assert main(["export", str(REVISE), "-o", str(out), "--existing", str(connection)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--existing names the kernel to re-run in: add --execute or --check" in err
