"""Threads a Round's code starts and leaves running: named in one line (the record's notes and the cell)
when the code ends, stopped at the time limit and on interrupt, and the user's own threads left alone;
on the live shell (a real kernel's own InteractiveShell) and in a separate kernel (KernelExecutor)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest

from twnb.kernel import KernelExecutor, KernelSetup

pytestmark = pytest.mark.slow

# A spinning thread counting in the kernel, as a model writes "endless code" beside its answer.
SPIN = (
    "import threading, time\n"
    "counter = [0]\n"
    "def spin():\n"
    "    while counter[-1] is not None:  # never ends by itself; the test's cleanup appends None\n"
    "        counter[0] += 1\n"
)
STOP_SPIN = "counter.append(None)"
START_SPIN = SPIN + "threading.Thread(target=spin, daemon=True).start()\n"
# Through a library that starts the thread itself (verification refuses it as it refuses threading:
# these runs are not verified, as code verification missed or a person allowed).
START_SPIN_AS_JOB = (
    SPIN + "from IPython.lib.backgroundjobs import BackgroundJobManager\nBackgroundJobManager().new(spin)\n"
)


def _counting(read: Callable[[], object]) -> bool:
    """Whether the counter read by `read()` still goes up over 0.3 s."""
    first = read()
    time.sleep(0.3)
    return read() != first


def _note_lines(text: str, word: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("twnb: ") and word in line]


# -- the live shell -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (START_SPIN + "'done'", "success"),
        (START_SPIN_AS_JOB + "'done'", "success"),
        (START_SPIN + "1 / 0", "error"),
    ],
    ids=["threading", "background-job", "failed"],
)
def test_a_thread_left_running_is_named_in_the_record_and_in_one_line_of_the_cell(live_kernel, code, status):
    result = live_kernel.run_case(code, timeout=30)
    try:
        assert result["status"] == status
        (note,) = [n for n in result["notes"] if "thread" in n]
        assert "spin" in note and "still running" in note
        assert len(_note_lines(live_kernel.shown_streams().get("stderr", ""), "spin")) == 1
        assert _counting(lambda: live_kernel.evaluate("counter[0]"))  # finished code's threads run on
    finally:
        live_kernel.execute(STOP_SPIN)


def test_a_spinning_thread_is_stopped_at_the_time_limit_and_the_round_says_so(live_kernel):
    result = live_kernel.run_case(START_SPIN + "time.sleep(30)", timeout=1.0)
    try:
        assert result["status"] == "timeout"
        (note,) = [n for n in result["notes"] if "thread" in n]
        assert "stopped at the time limit" in note and "spin" in note
        assert len(_note_lines(live_kernel.shown_streams().get("stderr", ""), "spin")) == 1
        assert not _counting(lambda: live_kernel.evaluate("counter[0]"))
        assert live_kernel.answers()
    finally:
        live_kernel.execute(STOP_SPIN)


def test_a_spinning_thread_is_stopped_when_the_user_interrupts_the_round(live_kernel):
    timer = threading.Timer(1.5, live_kernel.km.interrupt_kernel)  # the notebook's Interrupt button
    timer.start()
    result = live_kernel.run_case(START_SPIN + "time.sleep(30)", timeout=30)
    timer.join()
    try:
        assert result["status"] == "interrupted"
        (note,) = [n for n in result["notes"] if "thread" in n]
        assert "stopped on interrupt" in note and "spin" in note
        assert not _counting(lambda: live_kernel.evaluate("counter[0]"))
    finally:
        live_kernel.execute(STOP_SPIN)


def test_a_thread_blocked_in_c_is_said_to_be_still_running_past_the_time_limit(live_kernel):
    code = "import threading, time\ndef nap():\n    time.sleep(30)\n"
    code += "threading.Thread(target=nap, daemon=True).start()\ntime.sleep(30)"
    result = live_kernel.run_case(code, timeout=1.0)
    assert result["status"] == "timeout"
    (note,) = [n for n in result["notes"] if "thread" in n]
    assert "could not be stopped at the time limit" in note and "nap" in note and "still running" in note


# The code's own pool: its worker threads are the library's (concurrent.futures).
POOL = "from concurrent.futures import ThreadPoolExecutor\npool = ThreadPoolExecutor(1)\n"


def test_an_idle_pool_worker_the_code_started_is_not_named(live_kernel):
    result = live_kernel.run_case(POOL + "pool.submit(sum, [1, 2]).result()", timeout=30)
    assert result["status"] == "success"
    assert not any("thread" in note for note in result["notes"])


def test_the_codes_work_in_a_pool_is_stopped_at_the_time_limit_and_the_pool_serves_on(live_kernel):
    result = live_kernel.run_case(SPIN + POOL + "pool.submit(spin)\ntime.sleep(30)", timeout=1.0)
    try:
        assert result["status"] == "timeout"
        (note,) = [n for n in result["notes"] if "thread" in n]
        assert "stopped at the time limit" in note and "from a library" in note
        assert not _counting(lambda: live_kernel.evaluate("counter[0]"))
        assert live_kernel.evaluate("pool.submit(sum, [1, 2]).result(timeout=5)") == 3
    finally:
        live_kernel.execute(STOP_SPIN)


def test_a_thread_the_users_own_cell_started_is_left_alone(live_kernel):
    live_kernel.execute(
        "import threading\nmine = [0]\ndef user_spin():\n    while mine[-1] is not None:\n"
        "        mine[0] += 1\nthreading.Thread(target=user_spin, daemon=True).start()"
    )
    try:
        result = live_kernel.run_case("import time\ntime.sleep(30)", timeout=1.0)
        assert result["status"] == "timeout"
        assert not any("thread" in note for note in result["notes"])
        assert _counting(lambda: live_kernel.evaluate("mine[0]"))
    finally:
        live_kernel.execute("mine.append(None)")


# -- a separate kernel ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KernelExecutor]:
    workdir = tmp_path_factory.mktemp("round-threads")
    # the guard itself is under test: the kernel is not confined by the OS
    with KernelExecutor(workdir, kernel=KernelSetup(env={"TWNB_CONFINE_KERNELS": "false"})) as executor:
        yield executor


def test_a_separate_kernels_thread_left_running_is_named_in_the_record_and_the_cell(kernel, capsys):
    result = kernel.run(START_SPIN_AS_JOB + "'done'")
    try:
        assert result.status == "success"
        (note,) = [n for n in result.notes if "thread" in n]
        assert "spin" in note and "still running" in note
        assert len(_note_lines(capsys.readouterr().err, "spin")) == 1
    finally:
        kernel._execute_quietly(STOP_SPIN)


def test_a_separate_kernels_spinning_thread_is_stopped_at_the_time_limit(kernel):
    result = kernel.run(START_SPIN + "time.sleep(30)", timeout=1.0)
    try:
        assert result.status == "timeout"
        (note,) = [n for n in result.notes if "thread" in n]
        assert "stopped at the time limit" in note and "spin" in note
        assert not _counting(lambda: kernel.run("counter[0]").result)
    finally:
        kernel._execute_quietly(STOP_SPIN)


def test_a_separate_kernels_spinning_thread_is_stopped_when_the_user_interrupts(kernel):
    timer = threading.Timer(1.5, lambda: kernel._km.interrupt_kernel())  # the notebook's Interrupt button
    timer.start()
    result = kernel.run(START_SPIN + "time.sleep(30)", timeout=30)
    timer.join()
    try:
        assert result.status == "interrupted"
        (note,) = [n for n in result.notes if "thread" in n]
        assert "stopped on interrupt" in note and "spin" in note
        assert not _counting(lambda: kernel.run("counter[0]").result)
    finally:
        kernel._execute_quietly(STOP_SPIN)


def test_a_thread_the_separate_kernels_user_started_is_left_alone(kernel):
    kernel._execute_quietly(
        "import threading\nmine = [0]\ndef user_spin():\n    while mine[-1] is not None:\n"
        "        mine[0] += 1\nthreading.Thread(target=user_spin, daemon=True).start()"
    )
    try:
        result = kernel.run("import time\ntime.sleep(30)", timeout=1.0)
        assert result.status == "timeout"
        assert not any("thread" in note for note in result.notes)
        assert _counting(lambda: kernel.run("mine[0]").result)
    finally:
        kernel._execute_quietly("mine.append(None)")
