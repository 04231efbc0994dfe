"""Risky step mode in a real kernel, driven over the Jupyter protocol by a client that draws widgets
(nb_widget_frontend.py): a Round whose code only computes runs to the end with no panel and no click;
a Round whose code would overwrite a file pauses, the panel says why, and the code runs once Run is
clicked."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nb_widget_frontend import WidgetFrontend
from support.nb_run import cell_text, environment_added, llm_env
from support.nb_scripts import code, planner

pytestmark = pytest.mark.slow


def _run(folder: Path, cells: list[str], env: dict[str, str], click=None) -> tuple[object, WidgetFrontend]:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    with environment_added(env):
        client = WidgetFrontend(
            nb, kernel_name="python3", timeout=90, click=click, resources={"metadata": {"path": str(folder)}}
        )
        client.execute()
    return nb, client


def one_step(code_text: str) -> dict[str, list[str]]:
    """The Planner sends one step, the code runs, the Planner answers."""
    return {
        "Planner": [
            planner("Do it.", send_to="CodeInterpreter", step="1. compute 6 times 7"),
            planner("Done.", send_to="User", step="2. report the answer", stop="Completed"),
        ],
        "CodeInterpreter": [code(code_text)],
    }


def _panel_waits(states: dict, comm_id: str, update: dict) -> str | None:
    """Click Run once the panel says why the code waits, then Continue once it has run (the panel then
    offers Undo too)."""
    state = states[comm_id]
    if "Paused because" in str(state.get("value", "")):
        return "twnb-step-run"
    if "twnb-step-continue" in (state.get("_dom_classes") or ()) and update.get("disabled") is False:
        return "twnb-step-continue"  # enabled by an update: the panel asks after the run
    return None


def test_a_round_whose_code_only_computes_runs_without_a_panel_or_a_click(fake_llm, tmp_path: Path):
    fake_llm.load(one_step("risky_total = sum(range(5))\nprint('total', risky_total)"))
    nb, client = _run(
        tmp_path,
        [
            "%load_ext twnb",
            '%config TaskWeaverMagics.step = "risky"',  # the setting, for every %%taskweaver cell
            "%%taskweaver\nAdd up 0 to 4.",
            "print('after', risky_total)",
        ],
        llm_env(fake_llm, tmp_path),
        click=_panel_waits,
    )
    assert "total 10" in cell_text(nb.cells[2])
    assert cell_text(nb.cells[3]).strip() == "after 10"
    assert client.clicked == []
    assert client.shown("Paused because") == []
    assert set(client.displays_of("twnb-step-panel")) == {"none"}  # the panel was never shown
    assert "Ran without asking" in str(nb.cells[2].outputs)


def test_a_round_that_would_overwrite_a_file_pauses_says_why_and_runs_on_run(fake_llm, tmp_path: Path):
    (tmp_path / "sales.csv").write_text("a\n1\n")
    code = "with open('sales.csv', 'w') as f:\n    f.write('cleaned')"
    fake_llm.load(one_step(code))
    nb, client = _run(
        tmp_path,
        ["%load_ext twnb", "%%taskweaver --step=risky\nClean sales.csv."],
        llm_env(fake_llm, tmp_path),
        click=_panel_waits,
    )
    assert client.clicked == ["twnb-step-run", "twnb-step-continue"]
    assert "" in client.displays_of("twnb-step-panel")  # shown while it waited
    (why,) = client.shown("Paused because")
    quoted = "with open(&#x27;sales.csv&#x27;, &#x27;w&#x27;) as f:"  # the reason, escaped in the HTML
    assert f"it overwrites sales.csv, which exists (line 1: {quoted})" in why
    assert (tmp_path / "sales.csv").read_text() == "cleaned"
    assert "You ran this code; it paused because it overwrites sales.csv" in str(nb.cells[1].outputs)
