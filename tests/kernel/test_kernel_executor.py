"""KernelExecutor with a real separate kernel: run, errors, time limit, death and restart."""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from kernel_contract_cases import CONTRACT_CASES, CONTRACT_IDS

from twnb.kernel import Executor, KernelExecutor, KernelSetup, KernelStartError

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KernelExecutor]:
    workdir = tmp_path_factory.mktemp("kernel-executor")
    with KernelExecutor(
        workdir, kernel=KernelSetup(env={"MPLBACKEND": "module://matplotlib_inline.backend_inline"})
    ) as executor:
        yield executor


def test_is_an_executor(kernel):
    assert isinstance(kernel, Executor)


def test_runs_code_and_records_output_result_and_variables(kernel):
    result = kernel.run("total = 2 + 3\nprint('ran')\ntotal * 2")
    assert result.status == "success"
    assert result.stdout == "ran\n"
    assert result.result == "10"
    assert result.variables_of_kind("created") == ["total"]
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [nbformat.from_dict(o) for o in result.outputs]
    notebook = nbformat.v4.new_notebook(cells=[cell])
    nbformat.validate(notebook)


@pytest.mark.parametrize(("code", "status", "value", "stdout", "ename"), CONTRACT_CASES, ids=CONTRACT_IDS)
def test_taskweavers_executor_contract(kernel, code, status, value, stdout, ename):
    result = kernel.run(code)
    assert (result.status, result.result, result.stdout) == (status, value, stdout)
    if ename is None:
        assert result.error is None
    else:
        assert result.error is not None
        assert result.error.ename == ename and ename in result.error.traceback


def test_error_is_recorded_without_ansi(kernel):
    result = kernel.run("{}['missing']")
    assert result.status == "error"
    assert result.error is not None and result.error.ename == "KeyError"
    assert "\x1b" not in result.error.traceback


def test_time_limit_interrupts_and_kernel_keeps_its_variables(kernel):
    kernel.run("survivor = 'still here'")
    result = kernel.run("while True:\n    pass", timeout=1.0)
    assert result.status == "timeout"
    assert not result.kernel_restarted
    assert kernel.run("survivor").result == "'still here'"


def test_exit_does_not_end_the_kernel(kernel):
    result = kernel.run("exit()")
    assert result.status == "error"
    assert kernel.run("1 + 1").result == "2"


def test_kernel_death_is_reported_and_kernel_restarted(kernel):
    kernel.run("before_death = 1")
    kernel.guarded = False  # with the runtime guard, os._exit is refused (test_kernel_executor_guard.py)
    try:
        result = kernel.run("import os\nos._exit(1)")
    finally:
        kernel.guarded = True
    assert result.status == "kernel_died"
    assert result.kernel_restarted
    assert any("every variable is lost" in note for note in result.notes)
    assert "before_death" in result.variables_of_kind("deleted")
    after = kernel.run("'alive again'")
    assert after.status == "success" and after.result == "'alive again'"


def test_kernel_ignoring_the_interrupt_is_restarted(kernel):
    # Blocked in C with SIGINT ignored: neither the kernel's own watchdog nor an interrupt reaches it.
    code = "import os, time\nos.sys.modules['signal'].signal(2, 1)\ntime.sleep(30)"
    kernel.interrupt_grace_s, kernel.guard_grace_s = 0.5, 0.5
    try:
        result = kernel.run(code, timeout=0.5)
    finally:
        kernel.interrupt_grace_s, kernel.guard_grace_s = 5.0, 6.0
    assert result.status == "timeout" and result.kernel_restarted
    assert any("did not answer the interrupt" in note for note in result.notes)
    assert kernel.run("6 * 7").result == "42"


def test_kernel_killed_between_runs_is_restarted_before_the_next_code(kernel):
    kernel._km.signal_kernel(signal.SIGKILL)  # out of memory, say: nothing of ours was running
    deadline = time.monotonic() + 10
    while kernel.is_running and time.monotonic() < deadline:
        time.sleep(0.05)
    result = kernel.run("'ran in a fresh kernel'")
    assert result.status == "success" and result.result == "'ran in a fresh kernel'"
    assert result.kernel_restarted
    assert any("had stopped since the last run" in note for note in result.notes)


def test_figure_and_written_file_become_artifacts(kernel):
    code = (
        "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\n"
        "open('out.csv', 'w').write('a\\n1\\n')"
    )
    result = kernel.run(code)
    assert result.status == "success"
    png = [p for p in result.artifacts if p.endswith(".png")]
    assert len(png) == 1 and Path(png[0]).read_bytes()[:4] == b"\x89PNG"
    assert str(kernel.workdir.resolve() / "out.csv") in result.files_created


def test_only_this_requests_messages_are_collected(kernel):
    # Another client request queued just before ours: its output shares the iopub channel.
    kernel._kc.execute("import time\ntime.sleep(0.3)\nprint('other request')")
    result = kernel.run("print('mine')")
    assert result.stdout == "mine\n"


def test_namespace_summary_comes_from_the_kernel(kernel):
    kernel.run("import pandas as pd\nprices = pd.DataFrame({'p': [1.0]})\napi_token = 'abc-secret-value'")
    summary = kernel.namespace_summary()
    assert "- prices: DataFrame, shape (1, 1); columns: p (float64)" in summary
    assert "abc-secret-value" not in summary


def test_users_interrupt_is_not_a_timeout(kernel):
    timer = threading.Timer(1.0, lambda: kernel._km.interrupt_kernel())
    timer.start()
    result = kernel.run("import time\ntime.sleep(20)", timeout=30)
    timer.join()
    assert result.status == "interrupted"


def test_missing_working_directory_is_a_clear_error(tmp_path):
    with pytest.raises(KernelStartError, match="does not exist; create it first"):
        KernelExecutor(tmp_path / "nowhere").start()


def test_unknown_kernel_name_is_a_clear_error(tmp_path):
    with pytest.raises(KernelStartError, match="jupyter kernelspec list"):
        KernelExecutor(tmp_path, kernel_name="no-such-kernel-xyz").start()


def test_by_default_the_kernel_is_this_python_even_if_another_python3_is_registered(tmp_path, monkeypatch):
    spec = tmp_path / "jupyter" / "kernels" / "python3" / "kernel.json"
    spec.parent.mkdir(parents=True)
    spec.write_text(json.dumps({"argv": ["/bin/false", "{connection_file}"], "display_name": "x"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    with KernelExecutor(tmp_path) as executor:
        result = executor.run("import sys\nsys.executable")
    assert result.success and sys.executable in result.result
