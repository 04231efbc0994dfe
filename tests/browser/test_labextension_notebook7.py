"""twnb's JupyterLab extension in Notebook 7: a saved Round opened with no kernel renders through it, and
Insert code as cells works there too."""

from __future__ import annotations

import pytest
from labextension_page import HTML_OUTPUT, cell_sources, open_without_kernel, rendered_round
from notebook_page import UI_TIMEOUT_MS, round_cells, wait_until
from playwright.sync_api import expect
from round_payloads import code_post, payload, post, saved_notebook
from screenshot_files import screenshot_path

CODE = "squares = [n * n for n in range(1, 4)]\nsquares"
LATER_CODE = "sum(squares)"
HOSTILE = '<img src=x onerror="window.twnbHostile=1"> <script>window.twnbHostile=2</script>'


@pytest.fixture(scope="module")
def saved(notebook7, labextension_bundle, browser_context):
    data = payload(
        "Square 1 to 3 and sum them.",
        [
            post("Planner", "CodeInterpreter", "Make the squares."),
            code_post(CODE, "SUCCESS", "Result:\n[1, 4, 9]"),
            code_post("sum(squares", "FAILURE", "SyntaxError"),
            code_post(LATER_CODE, "SUCCESS", "Result:\n14"),
            post("Planner", "User", f"The squares sum to 14. {HOSTILE} **bold**"),
        ],
        steps=[("Make the squares", "done"), ("Sum them", "done")],
    )
    notebook7.write_notebook("saved7.ipynb", saved_notebook(data))
    page = browser_context.new_page()
    open_without_kernel(page, notebook7.server.notebook_url("saved7.ipynb"))
    expect(rendered_round(round_cells(page).nth(0))).to_have_count(1, timeout=UI_TIMEOUT_MS)
    page.screenshot(path=str(screenshot_path("labext-notebook7-saved")))
    return page


def test_a_saved_round_renders_through_the_extension_in_notebook7(saved):
    cell = round_cells(saved).nth(0)
    shown = rendered_round(cell)
    expect(cell.locator(HTML_OUTPUT)).to_have_count(0)
    expect(shown.locator(".twnb-step")).to_have_count(2)
    expect(shown.locator('.twnb-code-block[data-outcome="ran"] .twnb-code')).to_have_count(2)
    expect(shown.locator('.twnb-code-block[data-outcome="failed"]')).to_contain_text("SyntaxError")
    expect(shown.locator(".twnb-answer")).to_contain_text("The squares sum to 14.")


def test_a_hostile_answer_stays_text_in_notebook7(saved):
    answer = rendered_round(round_cells(saved).nth(0)).locator(".twnb-answer")
    expect(answer).to_contain_text(HOSTILE)
    expect(answer.locator("strong")).to_have_text("bold")  # the Markdown itself still renders
    expect(answer.locator("img, script")).to_have_count(0)
    assert saved.evaluate("() => window.twnbHostile") is None


def test_insert_code_as_cells_works_in_notebook7(saved):
    before = cell_sources(saved)
    rendered_round(round_cells(saved).nth(0)).get_by_role("button", name="Insert code as cells").click()
    wait_until(lambda: len(cell_sources(saved)) == len(before) + 2, 30, "two cells inserted")
    assert cell_sources(saved) == [*before, CODE, LATER_CODE]
