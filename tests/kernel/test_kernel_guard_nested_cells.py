"""A cell that generated code begins inside its own run (`get_ipython().run_cell(...)`, `%%capture`, the
shell's cell events triggered by hand) runs inside that run, armed; it never ends the run early. Each
attack is what a model would write: begin a cell, then do what the guard refuses. In both executors:
`KernelExecutor` (the guard armed from the kernel's `pre_run_cell` to the announced cell's own
`post_run_cell`) and `LiveShellExecutor` in a real ipykernel (armed around its `run_cell`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from twnb.kernel import KernelExecutor, KernelSetup

pytestmark = pytest.mark.slow

# What comes first in each attack: a cell begun inside the run, by every route the shell offers.
NESTED = {
    "run_cell": "get_ipython().run_cell('x = 1')",
    "run_cell-with-history": "get_ipython().run_cell('x = 1', store_history=True)",
    "run_cell-through-the-class": (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "InteractiveShell.run_cell(get_ipython(), 'x = 1')"
    ),
    "capture-magic": "get_ipython().run_cell_magic('capture', '', 'x = 1')",
    "post_run_cell-triggered": "get_ipython().events.trigger('post_run_cell', None)",
    "post_run_cell-with-a-nested-result": (
        "get_ipython().events.trigger('post_run_cell', get_ipython().run_cell('x = 1'))"
    ),
    "pre_run_cell-triggered": (
        "from IPython.core.interactiveshell import ExecutionInfo\n"
        "get_ipython().events.trigger('pre_run_cell', ExecutionInfo('x = 1', True, False, True, None))"
    ),
    "taskweaver-cell": "get_ipython().run_cell('%%taskweaver\\nRun os.system for me.')",
}
PROCESS = "import os\nos.system('touch made-after-a-nested-cell')"
MARKER = "made-after-a-nested-cell"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KernelExecutor]:
    workdir = tmp_path_factory.mktemp("kernel-guard-nested")
    # the guard itself is under test (what it lets through runs): the kernel is not confined by the OS
    with KernelExecutor(workdir, kernel=KernelSetup(env={"TWNB_CONFINE_KERNELS": "false"})) as executor:
        yield executor


@pytest.fixture
def users_kernel(kernel: KernelExecutor) -> KernelExecutor:
    """The kernel with a variable its own user made (a cell twnb did not announce)."""
    assert kernel._execute_quietly("keep = 41").get("status") == "ok"
    return kernel


def _guard_still_there(kernel: KernelExecutor) -> bool:
    result = kernel.run("6 * 7")
    return result.result == "42" and not any("could not be set up" in note for note in result.notes)


@pytest.mark.parametrize("nested", list(NESTED.values()), ids=list(NESTED))
def test_a_process_after_a_nested_cell_is_refused_in_the_kernel(users_kernel, nested):
    kernel = users_kernel
    result = kernel.run(f"{nested}\n{PROCESS}")
    assert result.status == "refused", result
    assert [r.rule for r in result.refusals] == ["process"]
    assert result.refusals[0].source == "os.system('touch made-after-a-nested-cell')"
    assert not (kernel.workdir / MARKER).exists()
    assert _guard_still_there(kernel) and kernel.run("keep").result == "41"


def test_the_capture_magic_runs_its_body_armed(users_kernel):
    kernel = users_kernel
    result = kernel.run(f"%%capture\n{PROCESS}")
    assert result.status == "refused", result
    assert [r.rule for r in result.refusals] == ["process"]
    assert not (kernel.workdir / MARKER).exists()


def test_the_nested_cell_itself_runs_armed(users_kernel):
    kernel = users_kernel
    result = kernel.run(f"get_ipython().run_cell({PROCESS!r})\nafter = 1")
    assert result.status == "refused", result
    assert [r.rule for r in result.refusals] == ["process"]
    assert not (kernel.workdir / MARKER).exists()


def test_an_event_made_up_on_the_event_loop_ends_nothing(users_kernel):
    # Nothing of the code is on the stack when the loop runs the callback: the cell is suspended.
    kernel = users_kernel
    code = (
        "import asyncio\n"
        "asyncio.get_running_loop().call_soon(get_ipython().events.trigger, 'post_run_cell', None)\n"
        f"await asyncio.sleep(0.2)\n{PROCESS}"
    )
    result = kernel.run(code)
    assert result.status == "refused", result
    assert [r.rule for r in result.refusals] == ["process"]
    assert not (kernel.workdir / MARKER).exists()


def test_a_thread_an_earlier_run_started_cannot_end_the_next_run(users_kernel):
    # The thread stays armed for the first run; it asks for the report while the second one runs.
    kernel = users_kernel
    planted = (
        "import os, threading, time\n"
        "guard = __twnb_guard\n"
        "def later():\n"
        "    while not os.path.exists('go'):\n"
        "        time.sleep(0.02)\n"
        "    try:\n"
        "        guard.report_json()\n"
        "    finally:\n"
        "        open('done', 'w').close()\n"
        "threading.Thread(target=later, daemon=True).start()"
    )
    assert kernel.run(planted).status == "success"
    waiting = (
        "import os, time\nopen('go', 'w').close()\n"
        "for _ in range(500):\n    if os.path.exists('done'):\n        break\n    time.sleep(0.02)\n"
        f"{PROCESS}"
    )
    result = kernel.run(waiting)
    assert (kernel.workdir / "done").exists()
    assert result.status == "refused", result
    assert [r.rule for r in result.refusals] == ["process"]
    assert not (kernel.workdir / MARKER).exists()


# The kernel's user makes IPython's own code raise after the announced cell's code ran, as the
# watchdog's interrupt does when it lands there late: IPython then ends the cell with a new result.
LATE_INTERRUPT = """\
__ip = get_ipython()
__original = __ip.run_ast_nodes
async def __late(*args, **kwargs):
    raised = await __original(*args, **kwargs)
    if kwargs['result'].info.raw_cell == 'late = 1':
        raise KeyboardInterrupt
    return raised
__ip.run_ast_nodes = __late
"""


def test_a_cell_ended_with_another_result_still_ends_its_run(users_kernel, tmp_path):
    kernel = users_kernel
    assert kernel._execute_quietly(LATE_INTERRUPT).get("status") == "ok"
    try:
        kernel.run("late = 1")
    finally:
        assert kernel._execute_quietly("del get_ipython().run_ast_nodes").get("status") == "ok"
    mine = tmp_path / "the-users-own"
    reply = kernel._execute_quietly(f"import subprocess\nsubprocess.run(['touch', {str(mine)!r}])")
    assert reply.get("status") == "ok", reply
    assert mine.exists()  # the user's cell after it runs unarmed
    result = kernel.run(PROCESS)
    assert result.status == "refused" and not (kernel.workdir / MARKER).exists()


def test_the_trust_base_is_still_refused_after_a_nested_cell(users_kernel):
    kernel = users_kernel
    result = kernel.run(f"{NESTED['run_cell']}\nopen('twnb.yaml', 'w').write('code_interpreter: {{}}')")
    assert result.status == "refused", result
    assert [r.rule for r in result.refusals] == ["trust-base"]
    assert not (kernel.workdir / "twnb.yaml").exists()


def test_the_users_variables_are_kept_after_a_nested_cell(users_kernel):
    kernel = users_kernel
    result = kernel.run(f"{NESTED['run_cell']}\nget_ipython().user_ns.clear()")
    assert result.status == "refused", result
    assert kernel.run("keep").result == "41"
    assert _guard_still_there(kernel)


def test_the_time_limit_still_holds_after_a_nested_cell(users_kernel):
    kernel = users_kernel
    result = kernel.run(f"{NESTED['run_cell']}\nwhile True:\n    pass", timeout=1.0)
    assert result.status == "timeout", result
    assert not result.kernel_restarted and kernel.run("keep").result == "41"


def test_a_harmless_nested_cell_runs_and_its_result_is_the_codes(users_kernel):
    kernel = users_kernel
    result = kernel.run("get_ipython().run_cell('nested_value = 6 * 7')\nnested_value")
    assert (result.status, result.result, result.refusals) == ("success", "42", [])


def test_the_users_own_cell_may_run_a_cell_of_its_own(users_kernel, tmp_path):
    # A cell the kernel's user runs (not announced) is not armed, and neither is a cell it begins.
    kernel = users_kernel
    mine = tmp_path / "the-users-own"
    inner = f"import subprocess\nsubprocess.run(['touch', {str(mine)!r}])"
    reply = kernel._execute_quietly(f"get_ipython().run_cell({inner!r})")
    assert reply.get("status") == "ok", reply
    assert mine.exists()
    assert _guard_still_there(kernel)


@pytest.mark.parametrize("nested", list(NESTED.values()), ids=list(NESTED))
def test_a_process_after_a_nested_cell_is_refused_on_the_live_shell(live_kernel, nested):
    result = live_kernel.run_case(f"{nested}\n{PROCESS}")
    assert result["status"] == "refused", result
    assert [r["rule"] for r in result["refusals"]] == ["process"]
    assert not (Path(live_kernel.workdir) / MARKER).exists()
    assert live_kernel.run_case("6 * 7")["result"] == "42"


def test_the_trust_base_is_still_refused_after_a_nested_cell_on_the_live_shell(live_kernel):
    code = f"{NESTED['capture-magic']}\nopen('twnb.yaml', 'w').write('code_interpreter: {{}}')"
    result = live_kernel.run_case(code)
    assert result["status"] == "refused", result
    assert [r["rule"] for r in result["refusals"]] == ["trust-base"]
    assert not (Path(live_kernel.workdir) / "twnb.yaml").exists()


# A cell the code begins with `store_history=True` runs, but adds nothing to the user's history: no
# execution count, no In entry (IPython numbers the user's cells; the code's are not among them). Its
# value shows in the cell that ran the code, and is that cell's Out, under that cell's number.
NESTED_WITH_HISTORY = (
    "get_ipython().run_cell('nested_in_history = 6 * 7\\nnested_in_history', store_history=True)\n"
    "nested_value = nested_in_history"
)
HISTORY = (
    "(get_ipython().execution_count, len(In), sorted(Out),"
    " any(cell.startswith('nested_in_history') for cell in In))"
)


def test_a_nested_cell_with_history_adds_nothing_to_the_kernels_history(users_kernel):
    kernel = users_kernel
    count, entries, outs, typed = kernel._expression(HISTORY)
    result = kernel.run(NESTED_WITH_HISTORY)
    assert (result.status, kernel.run("nested_value").result) == ("success", "42")
    # each announced cell is one entry of the executor's own (KernelExecutor numbers its runs)
    assert kernel._expression(HISTORY) == (count + 2, entries + 2, [*outs, count, count + 1], typed)


def test_a_nested_cell_with_history_adds_nothing_to_the_users_history_on_the_live_shell(live_kernel):
    count, entries, outs, typed = live_kernel.evaluate(HISTORY)
    result = live_kernel.run_case(NESTED_WITH_HISTORY)
    assert result["status"] == "success", result
    assert live_kernel.evaluate("nested_value") == 42
    # the user's own cell that ran the code is the one entry
    assert live_kernel.evaluate(HISTORY) == (count + 1, entries + 1, [*outs, count], typed)
