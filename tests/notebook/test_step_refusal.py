"""Step mode where nobody can click: under nbclient it says why in one line and runs nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.nb_run import cell_text, llm_env, outputs_with, run_notebook
from support.nb_scripts import answer_round

pytestmark = pytest.mark.slow

WIDGET = "application/vnd.jupyter.widget-view+json"
PROBE = "print('made' if 'step_value' in globals() else 'nothing ran')"


def test_step_mode_under_nbclient_is_refused_and_nothing_runs(fake_llm, tmp_path: Path):
    fake_llm.load(answer_round())
    nb, _ = run_notebook(
        tmp_path,
        ["%load_ext twnb", "%%taskweaver --step\nSet step_value to 1.", PROBE],
        llm_env(fake_llm, tmp_path),
    )
    refusal = cell_text(nb.cells[1])
    assert "Step mode needs a frontend that draws widgets" in refusal and "Nothing was run" in refusal
    assert len(refusal.strip().splitlines()) <= 2  # the display's line and the same line on stderr
    assert cell_text(nb.cells[2]).strip() == "nothing ran"
    assert fake_llm.chat_requests() == []
    assert outputs_with(nb, WIDGET) == []  # no dead widget left in the saved notebook


def test_the_step_setting_makes_plain_cells_step_cells(fake_llm, tmp_path: Path):
    fake_llm.load(answer_round())
    nb, _ = run_notebook(
        tmp_path,
        ["%load_ext twnb", "%config TaskWeaverMagics.step = True", "%%taskweaver\nSay hi."],
        llm_env(fake_llm, tmp_path),
    )
    assert "Step mode needs a frontend" in cell_text(nb.cells[2])
    assert fake_llm.chat_requests() == []
