"""The live widget's plan checklist follows the session's plan notebook through a plan-change hook,
registered while the Round runs and removed when it ends, however it ends (real ipywidgets; a real
kernel run by nbclient against the loopback LLM server)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.nb_run import cell_text, llm_env, run_notebook
from support.nb_scripts import code, planner

from twnb.notebook.round_display import CHECKLIST_HOOK, RoundDisplay
from twnb.session.plan_notebook import PlanNotebook

HOOKS = (
    "print(get_ipython().magics_manager.registry['TaskWeaverMagics']"
    ".notebook.session.plans.plan_change_hooks)"
)


def test_the_checklist_hook_is_removed_when_the_round_raises():
    display = RoundDisplay("What is 6 times 7?", session_id="s", widgets=True)
    plans = PlanNotebook()
    with pytest.raises(KeyboardInterrupt), display.following(plans):
        assert plans.plan_change_hooks == (CHECKLIST_HOOK,)
        raise KeyboardInterrupt
    assert plans.plan_change_hooks == ()
    display.view.close()


def _finished_then_interrupted() -> dict:
    to_code = planner("Compute 6 times 7.", send_to="CodeInterpreter", step="1. compute 6 times 7")
    done = planner("42.", send_to="User", step="2. report the answer", stop="Completed")
    return {
        "Planner": [{"content": to_code}, {"content": done}, {"content": to_code}],
        "CodeInterpreter": [
            {"content": code("answer = 6 * 7\nanswer")},
            {"content": code("raise KeyboardInterrupt")},
        ],
    }


@pytest.mark.slow
def test_in_a_kernel_the_checklist_follows_the_plan_and_no_hook_outlives_its_round(fake_llm, tmp_path: Path):
    fake_llm.load(_finished_then_interrupted())
    cells = ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?", "%%taskweaver\nAgain, please.", HOOKS]
    # The interrupted Round ends its cell with one line (the cells queued below are held back): go on.
    nb, client = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path), frontend=True, allow_errors=True)
    checklists = [re.sub(r"<(\w+)[^>]*>", r"<\1>", v) for v in client.html_values if "<b>Plan</b>" in v]
    assert any("▶ compute 6 times 7 <small>(in_progress)</small>" in c for c in checklists)
    assert any("☑ report the answer <small>(done)</small>" in c for c in checklists)
    assert any("✗ report the answer <small>(abandoned)</small>" in c for c in checklists)  # interrupted
    assert cell_text(nb.cells[3]).strip() == "()"
