"""Code that awaits at its top level, stopped at its time limit in a separate kernel (KernelExecutor)
as a loop is: with the time limit's message, the kernel alive, its variables kept, the next code run.

ipykernel runs such a cell as an asyncio task of its own; while it waits the main thread runs the event
loop, where a KeyboardInterrupt used to leave the loop and end the kernel (exit code 0).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from twnb.kernel import KernelExecutor, KernelSetup

pytestmark = pytest.mark.slow

SLEEP_PAST_THE_LIMIT = "import asyncio\nawait asyncio.sleep(20)"

# Each awaits past its 1 s limit in another way.
AWAITING = {
    "sleep": SLEEP_PAST_THE_LIMIT,
    "cpu-loop-in-a-coroutine": "async def spin():\n    while True:\n        pass\nawait spin()",
    "sleep-zero-loop": "import asyncio\nwhile True:\n    await asyncio.sleep(0)",
    "gather": "import asyncio\nawait asyncio.gather(asyncio.sleep(20), asyncio.sleep(30))",
    "another-task": "import asyncio\ntask = asyncio.ensure_future(asyncio.sleep(20))\nawait task",
    "swallows-every-interrupt": "import asyncio\nwhile True:\n    try:\n"
    "        await asyncio.sleep(0.05)\n    except BaseException:\n        pass",
    "sigint-ignored": "import os\nos.sys.modules['signal'].signal(2, 1)\n" + SLEEP_PAST_THE_LIMIT,
}


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KernelExecutor]:
    workdir = tmp_path_factory.mktemp("kernel-await-limit")
    with KernelExecutor(workdir, kernel=KernelSetup(env={"TWNB_CONFINE_KERNELS": "false"})) as executor:
        yield executor


@pytest.fixture
def with_users_variable(kernel: KernelExecutor) -> KernelExecutor:
    """A variable the kernel's own user made before the Round (a cell twnb did not announce)."""
    assert kernel._execute_quietly("kept_through_the_limit = [1, 2, 3]").get("status") == "ok"
    return kernel


def _pid(kernel: KernelExecutor) -> int:
    return int(kernel._expression("__import__('os').getpid()"))


def test_an_awaiting_cell_past_its_limit_leaves_the_kernel_process_alive(kernel):
    before = _pid(kernel)
    result = kernel.run(SLEEP_PAST_THE_LIMIT, timeout=1.0)
    assert not result.kernel_restarted, result.notes
    assert _pid(kernel) == before


def test_an_awaiting_cell_past_its_limit_keeps_the_users_variables(with_users_variable):
    with_users_variable.run(SLEEP_PAST_THE_LIMIT, timeout=1.0)
    assert with_users_variable.run("kept_through_the_limit").result == "[1, 2, 3]"


def test_an_awaiting_cell_is_stopped_with_the_time_limits_message_like_a_loop(kernel):
    awaiting = kernel.run(SLEEP_PAST_THE_LIMIT, timeout=1.0)
    loop = kernel.run("while True:\n    pass", timeout=1.0)
    assert awaiting.status == loop.status == "timeout"
    assert awaiting.error is not None and loop.error is not None
    assert (awaiting.error.ename, awaiting.error.evalue) == (loop.error.ename, loop.error.evalue)
    assert "await asyncio.sleep(20)" in awaiting.error.traceback
    assert "KeyboardInterrupt" in awaiting.error.traceback


def test_an_awaiting_cell_is_stopped_soon_after_its_limit(kernel):
    result = kernel.run(SLEEP_PAST_THE_LIMIT, timeout=1.0)
    assert result.status == "timeout"
    assert result.duration_s < 1.0 + 3  # not the client's interrupt, 6 s past the limit


def test_the_next_round_runs_after_an_awaiting_cell_was_stopped(kernel):
    kernel.run(SLEEP_PAST_THE_LIMIT, timeout=1.0)
    result = kernel.run("import asyncio\nawait asyncio.sleep(0.1)\n6 * 7", timeout=5.0)
    assert (result.status, result.result) == ("success", "42")


@pytest.mark.parametrize("code", list(AWAITING.values()), ids=list(AWAITING))
def test_every_way_of_awaiting_past_the_limit_is_stopped_and_the_kernel_keeps_its_variables(
    with_users_variable, code
):
    kernel = with_users_variable
    result = kernel.run(code, timeout=1.0)
    assert result.status == "timeout", result
    assert not result.kernel_restarted, result.notes
    assert result.duration_s < 1.0 + 5
    assert kernel.run("kept_through_the_limit").result == "[1, 2, 3]"


def test_the_users_interrupt_of_an_awaiting_cell_keeps_the_kernel(with_users_variable):
    kernel = with_users_variable
    timer = threading.Timer(1.5, kernel._km.interrupt_kernel)  # the notebook's Interrupt button
    timer.start()
    result = kernel.run(SLEEP_PAST_THE_LIMIT, timeout=30)
    timer.join()
    assert result.status == "interrupted", result
    assert not result.kernel_restarted, result.notes
    assert kernel.run("kept_through_the_limit").result == "[1, 2, 3]"


# The live shell (a %%taskweaver Round on the notebook's own kernel): the executor runs the code with
# `shell.run_cell` from inside the cell that asked, whose event loop is already running, so code that
# awaits at its top level is not started (twnb/kernel/live/busy_loop.py; the Round's side:
# tests/notebook/test_await_in_rounds.py). Nothing waits on the loop and no interrupt lands there: the
# kernel and its variables stay.


def test_on_the_live_shell_awaiting_code_leaves_the_kernel_answering(live_kernel):
    live_kernel.run_case(SLEEP_PAST_THE_LIMIT, timeout=1.0)
    assert live_kernel.answers()


def test_on_the_live_shell_awaiting_code_keeps_the_users_variables(live_kernel):
    live_kernel.execute("kept_on_the_live_shell = {'a': 1}")
    live_kernel.run_case(SLEEP_PAST_THE_LIMIT, timeout=1.0)
    assert live_kernel.evaluate("kept_on_the_live_shell") == {"a": 1}


def test_on_the_live_shell_the_next_round_runs_after_awaiting_code(live_kernel):
    live_kernel.run_case(SLEEP_PAST_THE_LIMIT, timeout=1.0)
    result = live_kernel.run_case("6 * 7", timeout=5.0)
    assert (result["status"], result["result"]) == ("success", "42")


def test_awaiting_code_that_swallows_every_interrupt_shows_where_it_was_stopped(kernel):
    # On 3.11 the stopper raises at an instruction no `except` covers; the loop's jump back after the
    # `except` has no line, and IPython cannot format a traceback with a line of None (it shows none).
    result = kernel.run(AWAITING["swallows-every-interrupt"], timeout=1.0)
    assert result.status == "timeout"
    assert result.error is not None
    assert "TimeLimitExceeded" in result.error.traceback
    assert "Cell In[" in result.error.traceback


def test_on_the_live_shell_awaiting_code_is_not_started_and_says_why_in_one_line(live_kernel):
    result = live_kernel.run_case("import asyncio\nnot_started = 1\n" + SLEEP_PAST_THE_LIMIT, timeout=1.0)
    assert (result["status"], result["error"]["ename"], result["error"]["traceback"]) == (
        "error",
        "TopLevelAwait",
        "",
    )
    assert "\n" not in result["error"]["evalue"]
    assert live_kernel.evaluate("'not_started' in globals()") is False
