"""Risky step mode (`%%taskweaver --step=risky`) in JupyterLab with real clicks: code that only computes
runs with no panel; code that would overwrite a file pauses, and the panel says why."""

from __future__ import annotations

import re

from notebook_page import ROUND_TIMEOUT_MS, open_notebook, outputs, round_cells, run_all_cells, wait_until_ran
from playwright.sync_api import expect
from round_scripts import _code, _planner, notebook_of
from screenshot_files import screenshot_path

SAFE_CODE = "risky_total = sum([2, 3, 5])\nprint('risky total', risky_total)"
OVERWRITE_CODE = "with open('risky-sales.csv', 'w') as f:\n    f.write('cleaned\\n')\nprint('overwrote it')"


def _script(code: str) -> dict[str, list[str]]:
    steps = ["Do it in Python", "Report to the user"]
    return {
        "Planner": [
            _planner(steps, 1, send_to="CodeInterpreter", message="Do it in Python."),
            _planner(steps, 2, send_to="User", message="Done."),
        ],
        "CodeInterpreter": [_code(code, "Scripted.")],
    }


def _start(lab, browser_context, module_llm, name, code):
    module_llm.load(_script(code))
    lab.write_notebook(name, notebook_of("%load_ext twnb", "%%taskweaver --step=risky\nDo the task."))
    page = browser_context.new_page()
    open_notebook(page, lab.server.notebook_url(name))
    run_all_cells(page)
    return page, round_cells(page).first


def _printed(cell, text):
    stdout = cell.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stdout"]')
    return stdout.filter(has_text=re.compile("^" + re.escape(text)))


def test_a_round_whose_code_only_computes_runs_with_no_panel(lab, browser_context, module_llm):
    page, cell = _start(lab, browser_context, module_llm, "risky-safe.ipynb", SAFE_CODE)
    wait_until_ran(cell)
    expect(_printed(cell, "risky total 10")).to_have_count(1)
    expect(outputs(cell).first).to_contain_text(re.compile(r"\bfinished\b"))
    expect(cell).to_contain_text("Ran without asking")
    # No panel ever asked: nothing was clicked, and no step button is on the page.
    expect(page.locator(".twnb-step-run:visible")).to_have_count(0)
    expect(page.locator(".twnb-step-approve:visible")).to_have_count(0)
    page.screenshot(path=str(screenshot_path("lab-step-risky-safe")), full_page=True)
    page.close()


def test_a_round_that_overwrites_a_file_pauses_and_the_panel_says_why(lab, browser_context, module_llm):
    (lab.root / "risky-sales.csv").write_text("a,b\n1,2\n")
    page, cell = _start(lab, browser_context, module_llm, "risky-overwrite.ipynb", OVERWRITE_CODE)
    why = page.locator(".twnb-step-why")
    expect(why).to_contain_text("Paused because", timeout=ROUND_TIMEOUT_MS)
    expect(why).to_contain_text("it overwrites risky-sales.csv, which exists (line 1:")
    expect(page.locator(".twnb-step-run")).to_be_enabled()
    expect(_printed(cell, "overwrote it")).to_have_count(0)  # nothing ran yet
    assert (lab.root / "risky-sales.csv").read_text() == "a,b\n1,2\n"
    page.screenshot(path=str(screenshot_path("lab-step-risky-paused")), full_page=True)
    page.locator(".twnb-step-run").click()
    continue_button = page.locator(".twnb-step-continue")
    expect(continue_button).to_be_enabled(timeout=ROUND_TIMEOUT_MS)
    continue_button.click()
    wait_until_ran(cell)
    expect(_printed(cell, "overwrote it")).to_have_count(1)
    assert (lab.root / "risky-sales.csv").read_text() == "cleaned\n"
    expect(cell).to_contain_text("You ran this code; it paused because it overwrites risky-sales.csv")
    page.close()
