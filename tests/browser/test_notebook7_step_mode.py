"""Step mode in Notebook 7 with real clicks: the plan edited and approved, the code Run in the cell, and
the saved notebook reopened shows the Round with the user's decisions (through twnb's extension where it
is built, else as the Round's static HTML: the checks read the text either shows); the panel waiting
for a decision is in view, and Stop holds back the cell queued below."""

from __future__ import annotations

import re

from notebook_page import (
    ERROR_OUTPUT,
    KERNEL_TIMEOUT_MS,
    ROUND_TIMEOUT_MS,
    UI_TIMEOUT_MS,
    code_cells,
    expect_wholly_shown,
    open_notebook,
    outputs,
    round_cells,
    run_all_cells,
    save_until,
    saved_round_states,
    wait_until_ran,
)
from playwright.sync_api import expect
from screenshot_files import screenshot_path
from step_scripts import EDITED_STEPS, NEXT_CELL, edited_plan_script, step_notebook, step_script
from test_lab_step_mode import _click, _printed

NAME = "step7.ipynb"


def test_in_notebook7_the_approved_plan_and_run_code_are_saved_and_shown_on_reopen(
    notebook7, browser_context, module_llm
):
    module_llm.load(edited_plan_script())
    notebook7.write_notebook(NAME, step_notebook())
    page = browser_context.new_page()
    open_notebook(page, notebook7.server.notebook_url(NAME))
    run_all_cells(page)
    expect(page.locator(".twnb-step-approve")).to_be_enabled(timeout=ROUND_TIMEOUT_MS)
    page.locator(".twnb-step-plan textarea").fill("\n".join(EDITED_STEPS))
    _click(page, "approve")
    _click(page, "run")
    _click(page, "continue")  # keep what the code did: the Round goes on
    cell = round_cells(page).first
    wait_until_ran(cell)
    expect(_printed(cell, "edited code ran 30")).to_have_count(1)  # it ran in the cell
    expect(outputs(cell).first).to_contain_text(re.compile(r"\bfinished\b"), timeout=UI_TIMEOUT_MS)
    page.screenshot(path=str(screenshot_path("notebook7-step-ran")), full_page=True)
    save_until(page, lambda: saved_round_states(notebook7.server, NAME) == ["finished"], "the Round", 60)
    page.close()  # Notebook 7 shows one notebook per browser tab: close it, open it again
    page = browser_context.new_page()
    open_notebook(page, notebook7.server.notebook_url(NAME))
    reopened = round_cells(page).first
    round_output = outputs(reopened).first
    expect(round_output).to_contain_text(re.compile(r"\bfinished\b"), timeout=UI_TIMEOUT_MS)
    expect(round_output).to_contain_text("I changed your plan")  # the plan the user made, as theirs
    expect(round_output).to_contain_text(EDITED_STEPS[0])
    expect(round_output).to_contain_text("The code ran successfully")
    expect(reopened).not_to_contain_text(re.compile(r"Loading widget|model not found"))
    expect(_printed(reopened, "edited code ran 30")).to_have_count(1)
    page.screenshot(path=str(screenshot_path("notebook7-step-reopened")), full_page=True)
    page.close()


def test_in_notebook7_the_plan_to_approve_is_in_view_and_stop_holds_back_the_queued_cell(
    notebook7, browser_context, module_llm
):
    name = "step7-stop.ipynb"
    module_llm.load(step_script())
    notebook7.write_notebook(name, step_notebook(NEXT_CELL))
    page = browser_context.new_page()
    open_notebook(page, notebook7.server.notebook_url(name))
    run_all_cells(page)
    expect(page.locator(".twnb-step-approve")).to_be_enabled(timeout=ROUND_TIMEOUT_MS)
    cell = round_cells(page).first
    # 1280x900: scrolled to, the Planner's notes above it folded.
    expect_wholly_shown(page.locator(".twnb-step-panel.twnb-waiting"))
    notes = cell.get_by_text("planner notes")
    assert notes.count() > 0 and not any(note.is_visible() for note in notes.all())
    page.screenshot(path=str(screenshot_path("notebook7-step-plan-waiting")))
    _click(page, "approve")
    expect_wholly_shown(page.locator(".twnb-step-panel.twnb-waiting"))
    next_cell = code_cells(page).nth(2)
    expect(next_cell.locator(".jp-InputPrompt")).to_have_text("[*]:")  # queued behind the Round
    _click(page, "stop")
    wait_until_ran(cell)
    expect(next_cell.locator(".jp-InputPrompt")).to_have_text("[ ]:", timeout=KERNEL_TIMEOUT_MS)
    expect(outputs(next_cell)).to_have_count(0)  # never ran: no NameError on the code that did not
    expect(outputs(cell).first).to_contain_text("Cells below not run: You stopped this Round")
    expect(cell.locator(ERROR_OUTPUT)).to_have_text(re.compile(r"^Cells below not run: You stopped"))
    cell.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path("notebook7-step-stopped-queued")), full_page=True)
    page.close()
