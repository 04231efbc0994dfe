"""Rounds run live in JupyterLab: a person runs the cells from the menu and stops a step from the toolbar.

The ended Round is checked as its static HTML, what every viewer without twnb's extension shows, so
JupyterLab runs with the extension disabled here (tests/browser/test_labextension_live.py covers it).
"""

from __future__ import annotations

import re
import time

from notebook_page import (
    KERNEL_TIMEOUT_MS,
    ROUND_TIMEOUT_MS,
    add_cell_below_and_run,
    code_cells,
    open_notebook,
    outputs,
    round_cells,
    run_all_cells,
    wait_until_ran,
)
from playwright.sync_api import expect
from round_scripts import (
    PLOT_ANSWER,
    SLOW_STEP,
    STARTED_MARKER,
    analysis_notebook,
    analysis_script,
    slow_notebook,
    slow_script,
)
from screenshot_files import screenshot_path

INTERRUPT_BUTTON = '.jp-NotebookPanel-toolbar [data-command="notebook:interrupt-kernel"]'


def _wait_for_file(path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} did not appear within {timeout_s:.0f} s"
        time.sleep(0.2)  # polling for the file, not waiting a guessed time


def _run_slow_round_and_interrupt(lab, browser_context, module_llm, name):
    module_llm.load(slow_script())
    lab.write_notebook(name, slow_notebook())
    page = browser_context.new_page()
    open_notebook(page, lab.server.notebook_url(name))
    run_all_cells(page)
    _wait_for_file(lab.root / STARTED_MARKER, ROUND_TIMEOUT_MS / 1000)
    (lab.root / STARTED_MARKER).unlink()
    page.locator(INTERRUPT_BUTTON).click()
    cell = round_cells(page).first
    wait_until_ran(cell)
    return page, cell


def test_a_round_runs_live_and_shows_finished(lab_without_extension, browser_context, module_llm):
    module_llm.load(analysis_script())
    lab_without_extension.write_notebook("live.ipynb", analysis_notebook())
    page = browser_context.new_page()
    open_notebook(page, lab_without_extension.server.notebook_url("live.ipynb"))
    run_all_cells(page)
    first, second = round_cells(page).nth(0), round_cells(page).nth(1)
    wait_until_ran(second)
    expect(outputs(first)).not_to_have_count(0)
    expect(outputs(first).first).to_contain_text(re.compile(r"\btwnb\s*finished"), timeout=ROUND_TIMEOUT_MS)
    expect(outputs(first).first).to_contain_text(PLOT_ANSWER)
    expect(outputs(second).first).to_contain_text(re.compile(r"\btwnb\s*finished"), timeout=ROUND_TIMEOUT_MS)
    page.screenshot(path=str(screenshot_path("lab-live-rounds")), full_page=True)
    page.close()


def test_interrupt_from_the_toolbar_keeps_the_kernel_alive(
    lab_without_extension, browser_context, module_llm
):
    page, cell = _run_slow_round_and_interrupt(
        lab_without_extension, browser_context, module_llm, "interrupt-alive.ipynb"
    )
    expect(outputs(cell).first).to_contain_text(re.compile(r"\btwnb\s*interrupted"))
    new_cell = add_cell_below_and_run(page, code_cells(page).last, "1+1")
    wait_until_ran(new_cell, KERNEL_TIMEOUT_MS)
    expect(outputs(new_cell)).to_have_text(["2"])
    page.close()


def test_an_interrupted_round_shows_its_step_abandoned(lab_without_extension, browser_context, module_llm):
    page, cell = _run_slow_round_and_interrupt(
        lab_without_extension, browser_context, module_llm, "interrupt-plan.ipynb"
    )
    round_output = outputs(cell).first
    expect(round_output).to_contain_text(re.compile(r"\btwnb\s*interrupted"))
    expect(round_output).to_contain_text(SLOW_STEP)
    expect(round_output).to_contain_text(re.compile(r"\babandoned"))
    expect(round_output).not_to_contain_text("in_progress")
    page.screenshot(path=str(screenshot_path("lab-interrupted-round")), full_page=True)
    page.close()
