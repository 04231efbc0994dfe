"""A notebook JupyterLab saves itself, with its widget-state saving on, keeps no widget model of twnb's.

jupyterlab_widgets' setting "Save Jupyter widget state in notebooks" (`saveState`) is off by default; a
user who turns it on gets every open widget model written into `metadata.widgets` at each save. A
Round's widgets are closed when it ends (the live Round, step mode's panel, the streamed message's
chunks), so after Rounds ran live and in step mode, the saved file holds only the models of the one
widget the notebook itself shows: a slider, the control that saving is on and that the check sees
models at all."""

from __future__ import annotations

import json

import pytest
from notebook_page import (
    code_cells,
    open_notebook,
    round_cells,
    run_all_cells,
    save_until,
    saved_round_states,
    wait_until_ran,
)
from playwright.sync_api import expect
from step_scripts import analysis_then_step_notebook, analysis_then_step_script
from test_lab_step_mode import _click

NAME = "saved-state.ipynb"
SLIDER = "from ipywidgets import IntSlider\nIntSlider(description='control slider')"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


@pytest.fixture(scope="module")
def saved(lab_saving_widget_state, labextension_bundle, browser_context, module_llm):
    """The notebook run from the menu (the step Round's plan approved and its code run with clicks),
    then saved by JupyterLab with Ctrl+S; the file as it is on disk."""
    lab = lab_saving_widget_state
    module_llm.load(analysis_then_step_script())
    lab.write_notebook(NAME, analysis_then_step_notebook(SLIDER))
    page = browser_context.new_page()
    open_notebook(page, lab.server.notebook_url(NAME))
    run_all_cells(page)
    _click(page, "approve")
    _click(page, "run")
    _click(page, "continue")  # keep what the code did: the Round goes on
    wait_until_ran(code_cells(page).last)
    expect(code_cells(page).last.locator(".widget-slider")).to_be_visible()
    ended = lambda: saved_round_states(lab.server, NAME) == ["finished"] * 3  # noqa: E731
    save_until(page, ended, "three finished Rounds", 60)
    yield lab.server.saved_notebook(NAME), page
    page.close()


def _models(notebook: dict) -> dict[str, dict]:
    return ((notebook.get("metadata") or {}).get("widgets") or {}).get(WIDGET_STATE, {}).get("state", {})


def test_jupyterlab_saves_the_notebooks_own_widget(saved):
    notebook, _ = saved
    sliders = [m for m in _models(notebook).values() if m["model_name"] == "IntSliderModel"]
    assert [s["state"]["description"] for s in sliders] == ["control slider"]


def test_no_model_of_a_rounds_widgets_is_saved(saved):
    notebook, page = saved
    models = _models(notebook)
    (slider_id,) = [key for key, m in models.items() if m["model_name"] == "IntSliderModel"]
    # The slider and the models its state names (its layout and style): nothing else.
    referenced = {
        value.removeprefix("IPY_MODEL_")
        for value in models[slider_id]["state"].values()
        if isinstance(value, str) and value.startswith("IPY_MODEL_")
    }
    others = {key: m["model_name"] for key, m in models.items() if key not in {slider_id, *referenced}}
    assert others == {}, f"{len(others)} widget models besides the slider's: {json.dumps(others)[:400]}"
    expect(round_cells(page)).to_have_count(3)
