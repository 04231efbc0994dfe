"""Risky step mode in a batch run (nbclient: a real kernel whose client draws no widgets): the code
graded safe runs, the first piece that would have asked is not run and ends the Round failed in one line
saying why and that approving needs a frontend; with --strict the batch stops with an error."""

from __future__ import annotations

from typing import Any

import pytest
from nbclient.exceptions import CellExecutionError
from support.nb_run import cell_text, llm_env, outputs_with, run_notebook
from support.nb_scripts import code, planner

from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow

SAFE = "total = 6 * 7"
OVERWRITE = "open('sales.csv', 'w').write('gone')"
WHY = (
    "Not run: risky mode would have asked before this code because it overwrites sales.csv, which "
    "exists (line 1: open('sales.csv', 'w').write('gone')); approving it needs a frontend that draws "
    "widgets (JupyterLab or Notebook 7), and this run has none."
)


def load(fake_llm: Any, *pieces: str) -> None:
    to_code = planner("Do it.", send_to="CodeInterpreter", step="1. compute 6 times 7")
    done = planner("Done.", send_to="User", step="2. report the answer", stop="Completed")
    fake_llm.load(
        {
            "Planner": [*[{"content": to_code} for _ in pieces], {"content": done}],
            "CodeInterpreter": [{"content": code(piece)} for piece in pieces],
        }
    )


def saved_round(nb: Any) -> dict[str, Any]:
    (output,) = outputs_with(nb, MIME_TYPE)
    payload: dict[str, Any] = output["data"][MIME_TYPE]
    return payload


def test_a_round_whose_code_is_all_safe_runs_to_the_end(fake_llm, tmp_path):
    load(fake_llm, SAFE)
    cells = ["%load_ext twnb", "%%taskweaver --step=risky\nDo it.", "print(total)"]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    assert saved_round(nb)["state"] == "finished"
    assert cell_text(nb.cells[2]).strip() == "42"


def test_the_first_piece_that_would_ask_is_not_run_and_the_round_fails_saying_why(fake_llm, tmp_path):
    (tmp_path / "sales.csv").write_text("a,b\n1,2\n")
    load(fake_llm, SAFE, OVERWRITE)
    cells = ["%load_ext twnb", "%%taskweaver --step=risky\nDo it.", "print(total)"]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    assert (tmp_path / "sales.csv").read_text() == "a,b\n1,2\n"
    round = saved_round(nb)
    assert round["state"] == "failed" and round["extra"]["failure_reason"] == WHY
    assert cell_text(nb.cells[2]).strip() == "42"  # the safe piece ran; the batch went on


def test_strict_makes_the_batch_fail_on_code_that_would_ask(fake_llm, tmp_path):
    (tmp_path / "sales.csv").write_text("a,b\n1,2\n")
    load(fake_llm, OVERWRITE)
    cells = ["%load_ext twnb", "%%taskweaver --step=risky --strict\nDo it.", "print('went on')"]
    with pytest.raises(CellExecutionError, match="RoundFailedError: Not run: risky mode would have asked"):
        run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    assert (tmp_path / "sales.csv").read_text() == "a,b\n1,2\n"


def test_the_step_setting_risky_runs_a_plain_cell_the_same_way(fake_llm, tmp_path):
    load(fake_llm, SAFE)
    cells = ["%load_ext twnb", "%%taskweaver\nDo it.", "print(total)"]
    nb, _ = run_notebook(tmp_path, cells, {**llm_env(fake_llm, tmp_path), "TWNB_STEP": "risky"})
    assert saved_round(nb)["state"] == "finished"
    assert cell_text(nb.cells[2]).strip() == "42"
