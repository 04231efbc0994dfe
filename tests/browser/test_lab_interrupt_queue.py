"""The toolbar's Interrupt during Run All, in JupyterLab with ipykernel: on a plain cell the kernel drops
the cells queued below it (the interrupted cell ends with an error), and an interrupted Round ends its
cell the same way, in one line, so what was queued below does not run on a half-done Round."""

from __future__ import annotations

import re

from notebook_page import (
    ERROR_OUTPUT,
    KERNEL_TIMEOUT_MS,
    code_cells,
    open_notebook,
    outputs,
    run_all_cells,
    wait_until_ran,
)
from playwright.sync_api import expect
from round_scripts import SLOW_REQUEST, STARTED_MARKER, notebook_of, slow_script
from screenshot_files import screenshot_path
from test_lab_live_rounds import INTERRUPT_BUTTON, _wait_for_file

QUEUED = "print('the queued cell ran')"
INTERRUPTED_LINE = re.compile(r"^Cells below not run: This Round was interrupted")  # the one error line
# Writes the marker first, so the test knows the cell runs before it presses Interrupt.
PLAIN_SLOW = (
    f"import time\nfrom pathlib import Path\nPath('{STARTED_MARKER}').write_text('started')\n"
    "for _ in range(6000):\n    time.sleep(0.1)"
)


def _run_all_and_interrupt(lab, browser_context, name, notebook):
    lab.write_notebook(name, notebook)
    page = browser_context.new_page()
    open_notebook(page, lab.server.notebook_url(name))
    run_all_cells(page)
    _wait_for_file(lab.root / STARTED_MARKER, KERNEL_TIMEOUT_MS / 1000)
    (lab.root / STARTED_MARKER).unlink()
    expect(code_cells(page).last.locator(".jp-InputPrompt")).to_have_text("[*]:")  # queued
    page.locator(INTERRUPT_BUTTON).click()
    return page


def _expect_not_run(cell) -> None:
    expect(cell.locator(".jp-InputPrompt")).to_have_text("[ ]:", timeout=KERNEL_TIMEOUT_MS)
    expect(outputs(cell)).to_have_count(0)


def test_the_toolbars_interrupt_on_a_plain_cell_drops_the_cells_queued_below(
    lab_without_extension, browser_context
):
    page = _run_all_and_interrupt(
        lab_without_extension, browser_context, "plain.ipynb", notebook_of(PLAIN_SLOW, QUEUED)
    )
    interrupted, queued = code_cells(page).nth(0), code_cells(page).nth(1)
    wait_until_ran(interrupted, KERNEL_TIMEOUT_MS)
    expect(interrupted.locator(ERROR_OUTPUT)).to_contain_text("KeyboardInterrupt")
    _expect_not_run(queued)
    page.close()


def test_an_interrupted_round_ends_its_cell_so_the_cells_queued_below_do_not_run(
    lab_without_extension, browser_context, module_llm
):
    module_llm.load(slow_script())
    notebook = notebook_of("%load_ext twnb", f"%%taskweaver\n{SLOW_REQUEST}", QUEUED)
    page = _run_all_and_interrupt(lab_without_extension, browser_context, "round.ipynb", notebook)
    cell, queued = code_cells(page).nth(1), code_cells(page).nth(2)
    wait_until_ran(cell, KERNEL_TIMEOUT_MS)
    _expect_not_run(queued)
    expect(outputs(cell).first).to_contain_text(re.compile(r"\btwnb\s*interrupted"))
    expect(outputs(cell).first).to_contain_text("Cells below not run: This Round was interrupted")
    expect(cell.locator(ERROR_OUTPUT)).to_have_text(INTERRUPTED_LINE)  # one line: no traceback in the cell
    cell.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path("lab-interrupted-queued")), full_page=True)
    page.close()
