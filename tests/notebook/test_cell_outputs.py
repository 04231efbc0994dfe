"""What a Round leaves in its own cell, besides the Round: no red traceback, at most one quiet line.

Notebooks run by nbclient in a real kernel against the loopback LLM server, then read back as saved.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from support.nb_run import CANARY_KEY, llm_env, outputs_with, run_notebook
from support.nb_scripts import answer_round, code, failing_round

from twnb.kernel.capture.ansi import strip_ansi
from twnb.notebook.held_back import INTERRUPTED_CELLS
from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow

ASK = ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?"]
RAISES = "sales = {'revenue': [1, 2]}\nsales['sales']"
REVISED = "answer = 6 * 7\nanswer"


def _revised_round() -> dict:
    return {
        "Planner": answer_round()["Planner"],
        "CodeInterpreter": [{"content": code(RAISES)}, {"content": code(REVISED)}],
    }


def _quiet_lines(cell) -> list[str]:
    """The cell's outputs other than the Round's own display, as text."""
    return [
        out["data"]["text/plain"]
        for out in cell.outputs
        if out["output_type"] == "display_data" and MIME_TYPE not in out["data"]
    ]


def _execution_results(payload: dict) -> list[dict]:
    return [
        a["extra"]
        for post in payload["post_list"]
        for a in post["attachment_list"]
        if a["type"] == "execution_result" and a.get("extra")
    ]


def test_a_revised_attempt_leaves_no_error_output_in_the_cell(tmp_path, fake_llm):
    fake_llm.load(_revised_round())
    nb, _ = run_notebook(tmp_path, ASK, llm_env(fake_llm, tmp_path))
    cell = nb.cells[1]
    assert [o for o in cell.outputs if o["output_type"] == "error"] == []
    assert not any("\x1b[" in str(o.get("text", "")) for o in cell.outputs if o["output_type"] == "stream")


def test_a_revised_attempt_becomes_one_quiet_line(tmp_path, fake_llm):
    fake_llm.load(_revised_round())
    nb, _ = run_notebook(tmp_path, ASK, llm_env(fake_llm, tmp_path))
    assert _quiet_lines(nb.cells[1]) == ["attempt 1 raised KeyError: 'sales'; revised"]


def test_the_failed_attempts_traceback_is_kept_in_the_post(tmp_path, fake_llm):
    fake_llm.load(_revised_round())
    nb, _ = run_notebook(tmp_path, ASK, llm_env(fake_llm, tmp_path))
    (output,) = outputs_with(nb, MIME_TYPE)
    payload = output["data"][MIME_TYPE]
    assert payload["state"] == "finished"
    first, second = _execution_results(payload)
    (error,) = [o for o in first["outputs"] if o["output_type"] == "error"]
    assert error["ename"] == "KeyError" and "sales['sales']" in strip_ansi("\n".join(error["traceback"]))
    assert second["status"] == "success"


def test_a_round_that_fails_ends_with_one_clear_line(tmp_path, fake_llm):
    fake_llm.load(failing_round())
    nb, _ = run_notebook(tmp_path, ASK, llm_env(fake_llm, tmp_path))
    (line,) = _quiet_lines(nb.cells[1])
    assert line.startswith("Round failed: The LLM call failed")
    assert "\n" not in line and CANARY_KEY not in line
    assert [o for o in nb.cells[1].outputs if o["output_type"] == "error"] == []


def _interrupt_when(path: Path, deadline_s: float = 60) -> threading.Thread:
    """Press Interrupt once `path` holds the kernel's PID: SIGINT to the kernel, as Jupyter's Interrupt
    button does for a Python kernel (and Ctrl-C in a terminal)."""

    def press() -> None:
        end = time.monotonic() + deadline_s
        while time.monotonic() < end and not (path.exists() and path.read_text()):
            time.sleep(0.05)  # polling for the file, not waiting a guessed time
        # the file is written and closed by the Round's own code: it is running, so the interrupt
        # lands in it (in its sleep, or the instant before), with no guessed wait for the sleep
        os.kill(int(path.read_text()), signal.SIGINT)

    thread = threading.Thread(target=press, daemon=True)
    thread.start()
    return thread


def test_an_interrupted_round_reads_interrupted_with_one_traceback_inside_the_round(tmp_path, fake_llm):
    """... and the cell ends with one line saying the cells queued below were not run (as an
    interrupted plain cell ends with KeyboardInterrupt): the kernel drops them."""
    sleeper = "import os, time\nopen('started', 'w').write(str(os.getpid()))\ntime.sleep(60)"
    fake_llm.load({"Planner": answer_round()["Planner"][:1], "CodeInterpreter": [{"content": code(sleeper)}]})
    thread = _interrupt_when(tmp_path / "started")
    nb, _ = run_notebook(tmp_path, ASK, llm_env(fake_llm, tmp_path), allow_errors=True)
    thread.join(timeout=5)
    cell = nb.cells[1]
    (output,) = outputs_with(nb, MIME_TYPE)
    payload = output["data"][MIME_TYPE]
    assert payload["extra"]["failure_reason"].startswith("Interrupted")
    assert "Ctrl-C" not in payload["extra"]["failure_reason"]
    (error,) = [o for o in cell.outputs if o["output_type"] == "error"]
    assert error["traceback"] == [f"Cells below not run: {INTERRUPTED_CELLS}"]
    assert payload["extra"]["held_back_cells"] == INTERRUPTED_CELLS
    tracebacks = [o for r in _execution_results(payload) for o in r["outputs"] if o["output_type"] == "error"]
    assert [t["ename"] for t in tracebacks] == ["KeyboardInterrupt"]
    assert _quiet_lines(cell) == ["Interrupted; every post made so far is kept."]
