"""Step mode's buttons stay in view whatever the code's length: with 60 lines of code waiting in the
panel (taller than the notebook's visible area at 1280x900), Run/Edit/Skip/Stop are wholly shown, above
JupyterLab's status bar, both where the panel was scrolled to and with the top of the code in view."""

from __future__ import annotations

from notebook_page import ROUND_TIMEOUT_MS, expect_wholly_shown, open_notebook, run_all_cells
from playwright.sync_api import expect
from screenshot_files import screenshot_path
from step_scripts import STEP_STEPS, _round, step_notebook
from test_lab_step_mode import _click

LINES = 60  # 38 lines already hid the buttons under the status bar at 1280x800
LONG_CODE = "\n".join(f"line_{n} = {n}  # one of many lines" for n in range(LINES)) + "\nprint('ran')"


def test_the_buttons_stay_in_view_above_the_status_bar_with_sixty_lines_of_code(
    lab, labextension_bundle, browser_context, module_llm
):
    module_llm.load(_round(STEP_STEPS, LONG_CODE, "Done."))
    lab.write_notebook("step-long.ipynb", step_notebook())
    page = browser_context.new_page()
    open_notebook(page, lab.server.notebook_url("step-long.ipynb"))
    run_all_cells(page)
    _click(page, "approve")
    run = page.locator(".twnb-step-run")
    expect(run).to_be_enabled(timeout=ROUND_TIMEOUT_MS)
    panel = page.locator(".twnb-step-panel")
    assert panel.bounding_box()["height"] > page.viewport_size["height"]  # taller than what shows
    for action in ("run", "edit", "skip", "stop"):
        expect_wholly_shown(page.locator(f".twnb-step-{action}"))
    page.screenshot(path=str(screenshot_path("lab-step-long-code")))
    panel.evaluate("node => node.scrollIntoView({block: 'start'})")  # the code's first lines in view
    expect_wholly_shown(run)
    status_bar = page.locator("#jp-main-statusbar").bounding_box()
    assert run.bounding_box()["y"] + run.bounding_box()["height"] <= status_bar["y"]
    page.screenshot(path=str(screenshot_path("lab-step-long-code-top")))
    _click(page, "stop")
    page.close()
