"""A step-mode Round's end asks nothing of the frontend: over the real Jupyter protocol, a client that
draws widgets (nb_widget_frontend.py) removes the Round widget's view when the final display replaces
it, as ipywidgets does, and would then report the view's going only for a widget that counts views.

Why it matters: JupyterLab 4.6 sends widget messages on a subshell it deletes once the Round's widgets
close, and ipykernel 7.4 closes a deleted subshell's loop with the messages it had just received still
queued ("Task was destroyed but it is pending!" in the next cell's stderr, the message lost)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from nb_widget_frontend import WidgetFrontend
from support.nb_run import cell_text, environment_added, llm_env
from support.nb_scripts import code, planner

pytestmark = pytest.mark.slow

TASK = "Compute 6 times 7."
PLAN = planner(TASK, send_to="CodeInterpreter", step="1. compute 6 times 7")
ANSWER = planner("The answer is 42.", send_to="User", step="2. report", stop="Completed")
SECOND = "answer = 6 * 7\nprint('the answer is', answer)"
VIEW_MIME = "application/vnd.jupyter.widget-view+json"
CLICKS = {"twnb-step-approve", "twnb-step-run", "twnb-step-continue"}


class RemovesReplacedViews(WidgetFrontend):
    """Notes the view-count reports ipywidgets' WidgetView sends when a display update removes a view:
    one for each removed view of a model whose `_view_count` is a number."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.views: dict[str, str] = {}  # display id -> the widget model its output draws
        self.reports_on_removal: list[str] = []

    def process_message(self, msg: dict[str, Any], cell: Any, cell_index: int) -> Any:
        display_id = (msg["content"].get("transient") or {}).get("display_id")
        if display_id and msg["msg_type"] in {"display_data", "update_display_data"}:
            removed = self.views.pop(display_id, None)
            if removed is not None and isinstance(self.states.get(removed, {}).get("_view_count"), int):
                self.reports_on_removal.append(removed)
            view = (msg["content"].get("data") or {}).get(VIEW_MIME)
            if isinstance(view, dict):
                self.views[display_id] = view["model_id"]
        return super().process_message(msg, cell, cell_index)


def _click_when_enabled(states: dict[str, dict[str, Any]], comm_id: str, update: dict[str, Any]) -> Any:
    if update.get("disabled") is not False:
        return None
    classes = states[comm_id].get("_dom_classes") or ()
    return next((css for css in classes if css in CLICKS), None)


def test_the_final_display_removes_the_round_widget_view_with_no_report_to_the_kernel(
    fake_llm, tmp_path: Path
):
    fake_llm.load({"Planner": [PLAN, ANSWER], "CodeInterpreter": [code(SECOND)]})
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in ["%load_ext twnb", f"%%taskweaver --step\n{TASK}"]]
    with environment_added(llm_env(fake_llm, tmp_path)):
        client = RemovesReplacedViews(
            nb,
            kernel_name="python3",
            timeout=90,
            click=_click_when_enabled,
            resources={"metadata": {"path": str(tmp_path)}},
        )
        client.execute()
    assert "The answer is 42." in cell_text(nb.cells[1])  # the Round ran to its end, clicked through
    assert client.views == {}  # the final display replaced the widget's view
    assert client.reports_on_removal == []
