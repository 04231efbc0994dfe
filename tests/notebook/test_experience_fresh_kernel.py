"""Experience outlives the kernel: in one kernel the user edits a Round's code in step mode and clicks
the offer's Remember button (a client that draws widgets, over the Jupyter protocol:
nb_widget_frontend.py); a fresh kernel on the same folder then sends the lesson in its next related
Round's prompt. The loopback LLM server records what each kernel sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from nb_widget_frontend import WidgetFrontend
from support.nb_run import cell_text, llm_env, run_notebook
from support.nb_scripts import answer_round, code, planner
from test_remember_button import LIST_EXPERIENCE, run_with_frontend

from twnb.notebook.remember_button import BUTTON_CLASS

pytestmark = pytest.mark.slow

LESSON = "- Compute products with integer arithmetic and print the answer."
EDITED = "product = int(6) * int(7)\nprint(product)"


def _edit_then_remember(client: WidgetFrontend) -> Any:
    """Approve the plan, Edit the code, type EDITED, Run it, Continue; then Remember."""

    def rule(states: dict[str, dict[str, Any]], comm_id: str, update: dict[str, Any]) -> str | None:
        if BUTTON_CLASS in (update.get("_dom_classes") or ()):
            return BUTTON_CLASS
        title = str(update.get("value", ""))  # the panel's title says what waits
        for asks, action in (("<b>Approve the plan</b>", "approve"), ("<b>Run this code?</b>", "edit")):
            if title.startswith(asks):
                return f"twnb-step-{action}"
        if title.startswith("<b>The code ran</b>"):
            return "twnb-step-continue"
        if update.get("description") == "Run edited":
            editor = next(c for c, s in states.items() if "twnb-step-editor" in (s.get("_dom_classes") or ()))
            client._send(editor, {"method": "update", "state": {"value": EDITED}, "buffer_paths": []})
            return "twnb-step-run"
        return None

    return rule


def test_a_round_whose_code_the_user_edited_remembered_changes_a_fresh_kernels_prompt(
    fake_llm, tmp_path: Path
):
    fake_llm.load(
        {
            "Planner": [
                {"content": planner("Do it.", send_to="CodeInterpreter", step="1. compute 6 times 7")},
                {"content": planner("42.", send_to="User", step="2. report the answer", stop="Completed")},
            ],
            "CodeInterpreter": [{"content": code("product = 6 * 7.0\nprint(product)")}],
            "Experience": [{"content": LESSON}],
        }
    )
    cells = ["%load_ext twnb", "%%taskweaver --step\nWhat is 6 times 7?", LIST_EXPERIENCE]
    env = llm_env(fake_llm, tmp_path)
    nb, client = run_with_frontend(tmp_path, cells, env, _edit_then_remember)
    assert client.clicked == [
        "twnb-step-approve",
        "twnb-step-edit",
        "twnb-step-run",
        "twnb-step-continue",
        BUTTON_CLASS,
    ]
    assert "42\n" in cell_text(nb.cells[1])  # the edited code ran
    assert cell_text(nb.cells[2]).strip() == "['exp', 'raw']"
    (summarised,) = [r for r in fake_llm.chat_requests() if "Experience summariser" in str(r["body"])]
    assert "[the user edited this; it was before]" in str(summarised["body"]["messages"])
    assert LESSON not in str(fake_llm.chat_requests())  # the first kernel's Round was not told it
    sent_before = len(fake_llm.chat_requests())

    fake_llm.load(answer_round())
    nb, _ = run_notebook(
        tmp_path, ["%load_ext twnb", "%%taskweaver\nWhat is 8 times 9? Use integer arithmetic."], env
    )
    fresh = fake_llm.chat_requests()[sent_before:]
    code_prompts = [r for r in fresh if r["role"] == "CodeInterpreter"]
    assert code_prompts and all(LESSON in str(r["body"]["messages"]) for r in code_prompts)
