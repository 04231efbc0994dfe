"""Rounds in JupyterLab's dark theme, as a person sees them: the live Round (step mode's panel waiting
for a decision, under two Rounds that ended, one with a failed attempt), then the same notebook saved,
closed and reopened. Checked on screen: every text of the Round outputs reads against what is behind
it (the lowest contrast ratio), the panel is in view, and screenshots for a person to look at."""

from __future__ import annotations

import pytest
from labextension_page import rendered_round
from notebook_page import (
    ROUND_TIMEOUT_MS,
    UI_TIMEOUT_MS,
    expect_wholly_shown,
    open_notebook,
    outputs,
    reopen_in_lab,
    round_cells,
    run_all_cells,
    save_until,
    saved_round_states,
    shut_down_kernel,
    wait_until_ran,
)
from playwright.sync_api import expect
from reopen_checks import JS_LOWEST_CONTRASTS, MIN_CONTRAST
from screenshot_files import screenshot_path
from step_scripts import analysis_then_step_notebook, analysis_then_step_script
from test_lab_step_mode import _click

NAME = "dark.ipynb"


def _lowest_contrasts(page) -> list:
    areas = [cell.locator(".jp-Cell-outputArea").element_handle() for cell in round_cells(page).all()]
    return page.evaluate(JS_LOWEST_CONTRASTS, areas)


def _expect_readable(page, what: str) -> None:
    lowest = _lowest_contrasts(page)
    assert lowest and lowest[0][0] >= MIN_CONTRAST, f"{what}: text hard to read on the dark theme: {lowest}"


@pytest.fixture(scope="module")
def waiting(lab_dark, labextension_bundle, browser_context, module_llm):
    """The notebook run from the menu in the dark theme, up to step mode's plan waiting for approval."""
    module_llm.load(analysis_then_step_script())
    lab_dark.write_notebook(NAME, analysis_then_step_notebook())
    page = browser_context.new_page()
    open_notebook(page, lab_dark.server.notebook_url(NAME))
    expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false")
    run_all_cells(page)
    expect(page.locator(".twnb-step-approve")).to_be_enabled(timeout=ROUND_TIMEOUT_MS)
    yield page
    page.close()


def test_the_live_round_and_its_waiting_panel_read_well(waiting):
    panel = waiting.locator(".twnb-step-panel.twnb-waiting")
    expect_wholly_shown(panel)
    waiting.screenshot(path=str(screenshot_path("lab-dark-step-waiting")))
    _expect_readable(waiting, "the live Round")


def test_the_ended_rounds_above_read_well_through_the_extension(waiting):
    for index in range(2):
        expect(rendered_round(round_cells(waiting).nth(index))).to_have_count(1, timeout=UI_TIMEOUT_MS)
    failed = rendered_round(round_cells(waiting).nth(1)).locator('.twnb-code-block[data-outcome="failed"]')
    failed.scroll_into_view_if_needed()
    waiting.screenshot(path=str(screenshot_path("lab-dark-ended-failed-attempt")))
    _expect_readable(waiting, "the ended Rounds")


def test_the_rounds_reopened_read_well(waiting, lab_dark):
    page = waiting
    _click(page, "approve")
    _click(page, "run")
    _click(page, "continue")  # keep what the code did: the Round goes on
    wait_until_ran(round_cells(page).nth(2))
    ended = lambda: saved_round_states(lab_dark.server, NAME) == ["finished"] * 3  # noqa: E731
    save_until(page, ended, "three finished Rounds", 60)
    shut_down_kernel(page)
    reopen_in_lab(page, NAME)
    for index in range(3):
        expect(rendered_round(round_cells(page).nth(index))).to_have_count(1, timeout=UI_TIMEOUT_MS)
    expect(outputs(round_cells(page).nth(2)).first).to_contain_text("You approved this plan")
    page.screenshot(path=str(screenshot_path("lab-dark-reopened")))
    round_cells(page).nth(2).scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path("lab-dark-reopened-step-round")))
    _expect_readable(page, "the reopened Rounds")
