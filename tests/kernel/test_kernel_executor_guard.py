"""The runtime guard and the time limit inside a separate kernel (KernelExecutor): refused, stopped and
recorded there as on the live shell, the kernel's variables kept and the kernel never restarted."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from twnb.kernel import KernelExecutor, KernelSetup

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KernelExecutor]:
    workdir = tmp_path_factory.mktemp("kernel-executor-guard")
    # the guard itself is under test (what it lets through runs): the kernel is not confined by the OS
    with KernelExecutor(workdir, kernel=KernelSetup(env={"TWNB_CONFINE_KERNELS": "false"})) as executor:
        yield executor


@pytest.fixture
def with_users_variable(kernel):
    """A variable the kernel's own user made (a cell twnb did not announce), not generated code."""
    assert kernel._execute_quietly("keep = 41").get("status") == "ok"
    return kernel


def _kept(kernel) -> bool:
    return kernel.run("keep").result == "41"


def test_the_guard_is_set_up_in_the_kernel(kernel):
    assert kernel.guard_missing == ""
    assert not any("could not be set up" in note for note in kernel.run("1 + 1").notes)


@pytest.mark.parametrize(
    "code",
    [
        "import os\nos.system('touch made-by-shell')",
        "import IPython\nIPython.InteractiveShell.instance().system('touch made-by-shell')",
        "import threading, subprocess\n"
        "t = threading.Thread(target=subprocess.run, args=(['touch', 'made-by-shell'],))\n"
        "t.start()\nt.join()",
    ],
    ids=["os-system", "shell-system", "thread"],
)
def test_a_process_is_refused_in_the_kernel(with_users_variable, code):
    kernel = with_users_variable
    result = kernel.run(code)
    assert result.status == "refused", result
    assert result.refusals and result.refusals[0].rule == "process"
    assert not (kernel.workdir / "made-by-shell").exists()
    assert not result.kernel_restarted and _kept(kernel)


@pytest.mark.parametrize(
    "call",
    ["__twnb_guard.report_json()", "__twnb_guard.expect('0' * 64, False, None, [])"],
    ids=["report_json", "expect"],
)
def test_the_code_cannot_end_its_own_guarded_run(with_users_variable, call):
    kernel = with_users_variable
    result = kernel.run(f"{call}\nimport os\nos.system('touch made-by-shell')")
    assert result.status == "refused", result
    assert result.refusals[0].rule == "code"
    assert not (kernel.workdir / "made-by-shell").exists()
    assert _kept(kernel) and kernel.run("6 * 7").result == "42"


def test_the_refusal_names_the_line_of_the_code(kernel):
    result = kernel.run("x = 1\nimport os\nos.kill(os.getpid(), 15)")
    (refusal,) = result.refusals
    assert (refusal.rule, refusal.line, refusal.source) == ("signal", 3, "os.kill(os.getpid(), 15)")
    assert kernel.run("6 * 7").result == "42"


def test_resetting_or_clearing_the_namespace_keeps_the_users_variables(with_users_variable):
    kernel = with_users_variable
    assert kernel.run("get_ipython().reset(new_session=False)").status == "refused"
    assert _kept(kernel)
    result = kernel.run("get_ipython().user_ns.clear()")
    assert result.status == "refused" and "keep" in result.refusals[0].message
    assert _kept(kernel)


def test_code_that_swallows_interrupts_is_stopped_without_a_restart(with_users_variable):
    kernel = with_users_variable
    code = (
        "import time\nwhile True:\n    try:\n        time.sleep(0.05)\n"
        "    except BaseException:\n        pass"
    )
    result = kernel.run(code, timeout=1.0)
    assert result.status == "timeout"
    assert result.duration_s < 1.0 + 5
    assert not result.kernel_restarted and _kept(kernel)


def test_files_are_the_ones_the_code_wrote_wherever_it_went(kernel):
    writer = threading.Timer(0.3, (kernel.workdir / "not-ours.txt").write_text, args=("x",))
    writer.start()
    code = (
        "import os, time\nos.makedirs('sub', exist_ok=True)\nos.chdir('sub')\n"
        "open('inside.txt', 'w').write('x')\nos.chdir('..')\ntime.sleep(1.0)"
    )
    result = kernel.run(code)
    writer.join()
    assert result.files_created == [str((kernel.workdir / "sub" / "inside.txt").resolve())]


def test_without_verification_nothing_is_refused(kernel):
    kernel.guarded = False
    try:
        result = kernel.run("import os\nstatus = os.system('true')\nstatus")
    finally:
        kernel.guarded = True
    assert result.status == "success" and result.result == "0"


def test_a_cell_of_another_client_is_not_guarded(kernel):
    # An attached kernel serves its notebook too: only the cell twnb announced is armed.
    kernel._kc.execute("import os\nother_status = os.system('true')")
    kernel.run("1 + 1")
    assert kernel.run("other_status").result == "0"


def test_active_output_is_recorded_as_text(kernel):
    result = kernel.run(
        "from IPython.display import display, HTML\ndisplay(HTML('<script>alert(1)</script>'))"
    )
    (recorded,) = [o["data"] for o in result.outputs if o["output_type"] == "display_data"]
    assert set(recorded) == {"text/plain"} and "<script>alert(1)</script>" in recorded["text/plain"]
    assert any("held active content" in note for note in result.notes)
