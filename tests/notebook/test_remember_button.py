"""The offer to remember a steered Round as a button, in a real kernel driven over the Jupyter protocol
by a client that draws widgets (nb_widget_frontend.py): after `%taskweaver undo` the cell offers
Remember; a click summarises the Round into the experience folder, and without a click nothing is kept
and the offer becomes its static line, its widgets closed, before the next cell runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from nb_widget_frontend import WidgetFrontend
from support.nb_run import cell_text, environment_added, llm_env
from support.nb_scripts import code, planner, remember_offer

from twnb.notebook.remember_button import BUTTON_CLASS

pytestmark = pytest.mark.slow

LESSON = "- Keep totals as integers."
LIST_EXPERIENCE = (
    "import pathlib\nprint(sorted(p.name.split('_')[0] for p in pathlib.Path('.twnb/experience').glob('*')))"
)


def _script() -> dict[str, list[dict[str, str]]]:
    return {
        "Planner": [
            {"content": planner("Do it.", send_to="CodeInterpreter", step="1. compute 6 times 7")},
            {"content": planner("Done.", send_to="User", step="2. report the answer", stop="Completed")},
        ],
        "CodeInterpreter": [{"content": code("total = 6 * 7")}],
        "Experience": [{"content": LESSON}],
    }


def _click_remember(states: dict[str, dict[str, Any]], comm_id: str, update: dict[str, Any]) -> str | None:
    return BUTTON_CLASS if BUTTON_CLASS in (update.get("_dom_classes") or ()) else None


def run_with_frontend(
    folder: Path, cells: list[str], env: dict[str, str], click: Any
) -> tuple[Any, WidgetFrontend]:
    """`cells` in a fresh kernel in `folder`, its environment added, by a client that draws widgets;
    `click(client)` gives the rule that clicks (None: no click)."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    with environment_added(env):
        client = WidgetFrontend(
            nb, kernel_name="python3", timeout=90, resources={"metadata": {"path": str(folder)}}
        )
        client.click_rule = click(client) if click is not None else None
        client.execute()
    return nb, client


def _run(folder: Path, env: dict[str, str], click: Any) -> tuple[Any, WidgetFrontend]:
    cells = ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?", "%taskweaver undo", LIST_EXPERIENCE]
    return run_with_frontend(folder, cells, env, (lambda _client: click) if click is not None else None)


def _button_comms(client: WidgetFrontend) -> set[str]:
    return {
        comm_id
        for comm_id, state in client.states.items()
        if BUTTON_CLASS in (state.get("_dom_classes") or ()) and state.get("_model_name") == "ButtonModel"
    }


def test_clicking_remember_after_an_undo_keeps_the_round_as_experience(fake_llm, tmp_path: Path):
    fake_llm.load(_script())
    nb, client = _run(tmp_path, llm_env(fake_llm, tmp_path), _click_remember)
    assert client.clicked == [BUTTON_CLASS]
    assert cell_text(nb.cells[3]).strip() == "['exp', 'raw']"
    (summary,) = (tmp_path / ".twnb" / "experience").glob("exp_*.yaml")
    assert LESSON in summary.read_text()
    (summarised,) = [r for r in fake_llm.chat_requests() if "Experience summariser" in str(r["body"])]
    assert "[the user undid this Round]" in str(summarised["body"]["messages"])
    shown = [o for o in nb.cells[2].outputs if o.get("output_type") == "display_data"]
    assert [o["data"]["text/plain"] for o in shown] == [
        f"Remembered the Round as {summary.name} (summarised by the LLM) in {summary.parent}: {LESSON}"
    ]


def test_without_a_click_nothing_is_remembered_and_the_offer_becomes_its_line(fake_llm, tmp_path: Path):
    fake_llm.load(_script())
    nb, client = _run(tmp_path, llm_env(fake_llm, tmp_path), click=None)
    assert cell_text(nb.cells[3]).strip() == "[]"
    assert not any("Experience summariser" in str(r["body"]) for r in fake_llm.chat_requests())
    (shown,) = [o for o in nb.cells[2].outputs if o.get("output_type") == "display_data"]
    assert shown["data"] == {"text/plain": remember_offer(1)}  # no widget view left to save
    buttons = _button_comms(client)
    assert len(buttons) == 1 and buttons <= client.closed_comms
