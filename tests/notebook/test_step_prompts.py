"""Step mode's prompts over the real Jupyter protocol: a real kernel runs a `%%taskweaver --step` cell, a
client that draws widgets (nb_widget_frontend.py) clicks at the earliest moment a person could (the
update that enables a button), and the loopback LLM server scripts the model.

A button is enabled only once its prompt's panel is in place (the notes above folded, the panel marked
waiting, which the extension scrolls into view): a button that moves after it can be clicked takes a
person's mouse-down and loses the mouse-up, and the click is never sent. A click sent for a prompt
that was already decided (the second click of a double click on Run) is not taken for the next one."""

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
# Awaits at its top level: not started, no undo snapshot, so no Continue follows its Run (the next
# prompt is the model's next attempt, at once).
AWAITING = "async def compute():\n    return 6 * 7\nanswer = await compute()"
SECOND = "answer = 6 * 7\nprint('the second attempt ran', answer)"
ENABLED_BY = {"twnb-step-approve", "twnb-step-run", "twnb-step-continue"}


def _run(folder: Path, env: dict[str, str], click: Any) -> tuple[Any, WidgetFrontend]:
    nb = nbformat.v4.new_notebook()
    cells = ["%load_ext twnb", f"%%taskweaver --step\n{TASK}"]
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    with environment_added(env):
        client = WidgetFrontend(
            nb,
            kernel_name="python3",
            timeout=90,
            click=click,
            allow_errors=True,  # a skipped piece ends the cell with CellsHeldBack
            resources={"metadata": {"path": str(folder)}},
        )
        if hasattr(click, "client"):
            click.client = client  # a rule that reads what the frontend knows (closed models)
        client.execute()
    return nb, client


def _enabled(states: dict[str, dict[str, Any]], comm_id: str, update: dict[str, Any]) -> str | None:
    """The class of the button this update enabled, or None."""
    classes = states[comm_id].get("_dom_classes") or ()
    if update.get("disabled") is not False:
        return None
    return next((css for css in classes if css.startswith("twnb-step-")), None)


def test_every_button_is_enabled_only_once_its_panel_waits_with_the_notes_folded(fake_llm, tmp_path: Path):
    fake_llm.load({"Planner": [PLAN, ANSWER], "CodeInterpreter": [code(SECOND)]})
    seen: list[tuple[str, bool, bool]] = []

    def earliest(states: dict[str, dict[str, Any]], comm_id: str, update: dict[str, Any]) -> str | None:
        enabled = _enabled(states, comm_id, update)
        if enabled not in ENABLED_BY:
            return None
        panel = next(s for s in states.values() if "twnb-step-panel" in (s.get("_dom_classes") or ()))
        sections = [s for s in states.values() if s.get("_model_name") == "AccordionModel"]
        folded = bool(sections) and all(s.get("selected_index") is None for s in sections)
        seen.append((str(enabled), "twnb-waiting" in panel["_dom_classes"], folded))
        return enabled

    nb, _ = _run(tmp_path, llm_env(fake_llm, tmp_path), earliest)
    assert seen == [
        ("twnb-step-approve", True, True),
        ("twnb-step-run", True, True),
        ("twnb-step-continue", True, True),
    ]
    assert "The answer is 42." in cell_text(nb.cells[1])  # each earliest click was taken: the Round ended


class WatchesTheEnd:
    """Clicks at the earliest moment, and notes which step buttons can be clicked each time the panel
    stops waiting (the notes above unfold then: the buttons move)."""

    def __init__(self) -> None:
        self.client: WidgetFrontend | None = None
        self.enabled_when_it_stopped: list[list[str]] = []
        self.waiting = False

    def __call__(self, states: dict[str, dict[str, Any]], comm_id: str, update: dict[str, Any]) -> str | None:
        classes = update.get("_dom_classes")
        if classes is not None and "twnb-step-panel" in classes:
            if self.waiting and "twnb-waiting" not in classes:
                assert self.client is not None
                self.enabled_when_it_stopped.append(self._enabled_buttons(states, self.client.closed_comms))
            self.waiting = "twnb-waiting" in classes
        enabled = _enabled(states, comm_id, update)
        return enabled if enabled in ENABLED_BY else None

    @staticmethod
    def _enabled_buttons(states: dict[str, dict[str, Any]], closed: set[str]) -> list[str]:
        return [
            css
            for button_id, state in states.items()
            if button_id not in closed
            and state.get("_model_name") == "ButtonModel"
            and state.get("disabled") is False
            for css in state.get("_dom_classes") or ()
            if css.startswith("twnb-step-")
        ]


def test_every_button_is_disabled_before_the_panel_stops_waiting(fake_llm, tmp_path: Path):
    fake_llm.load({"Planner": [PLAN, ANSWER], "CodeInterpreter": [code(SECOND)]})
    watch = WatchesTheEnd()
    nb, _ = _run(tmp_path, llm_env(fake_llm, tmp_path), watch)
    assert len(watch.enabled_when_it_stopped) == 3  # after the plan, the code and Continue
    assert watch.enabled_when_it_stopped == [[], [], []]
    assert "The answer is 42." in cell_text(nb.cells[1])


def test_the_second_click_of_a_double_click_on_run_does_not_run_the_next_attempt(fake_llm, tmp_path: Path):
    fake_llm.load({"Planner": [PLAN, ANSWER], "CodeInterpreter": [code(AWAITING), code(SECOND)]})
    code_prompts = 0

    def double_click_then_skip(states: dict[str, Any], comm_id: str, update: dict[str, Any]) -> Any:
        nonlocal code_prompts
        enabled = _enabled(states, comm_id, update)
        if enabled == "twnb-step-approve":
            return enabled
        if enabled == "twnb-step-run":
            code_prompts += 1
            # The first attempt: a double click, both clicks sent before the browser learns of the
            # first; the second attempt, which the person has now seen: Skip.
            return [enabled, enabled] if code_prompts == 1 else "twnb-step-skip"
        if enabled == "twnb-step-continue":
            return enabled  # only reached when the stale click ran the second attempt
        return None

    nb, client = _run(tmp_path, llm_env(fake_llm, tmp_path), double_click_then_skip)
    text = cell_text(nb.cells[1])
    assert client.clicked == ["twnb-step-approve", "twnb-step-run", "twnb-step-run", "twnb-step-skip"]
    assert "the second attempt ran" not in text
    assert "You skipped this code" in text
