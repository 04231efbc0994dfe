"""twnb's JupyterLab extension on Rounds run live in JupyterLab: the widget while a Round runs, the
extension's rendering once it ends and after save and reload, Insert code as cells, hostile text, and
the Round history panel."""

from __future__ import annotations

import re

import pytest
from labextension_page import (
    HTML_OUTPUT,
    JS_ACTIVE_CELL,
    RECORD_WIDGET_TEXTS,
    cell_sources,
    rendered_round,
    wait_for_plugin,
)
from notebook_page import (
    ROUND_TIMEOUT_MS,
    UI_TIMEOUT_MS,
    open_notebook,
    round_cells,
    run_all_cells,
    save,
    save_until,
    saved_round_states,
    wait_until,
    wait_until_ran,
)
from playwright.sync_api import expect
from round_scripts import (
    FAILING_CODE,
    HOSTILE_ANSWER,
    HOSTILE_REQUEST,
    REVISED_CODE,
    STEP_ONE_CODE,
    STEPS_ANSWER,
    STEPS_REQUEST,
    steps_notebook,
    steps_script,
)
from screenshot_files import screenshot_path

NAME = "steps.ipynb"


@pytest.fixture(scope="module")
def ran(lab, labextension_bundle, browser_context, module_llm):
    """The notebook run live from the menu (the widget's texts recorded), then saved."""
    module_llm.load(steps_script())
    lab.write_notebook(NAME, steps_notebook())
    page = browser_context.new_page()
    page.add_init_script(RECORD_WIDGET_TEXTS)
    open_notebook(page, lab.server.notebook_url(NAME))
    wait_for_plugin(page)
    run_all_cells(page)
    wait_until_ran(round_cells(page).nth(1))
    expect(rendered_round(round_cells(page).nth(1))).to_have_count(1, timeout=ROUND_TIMEOUT_MS)
    page.screenshot(path=str(screenshot_path("labext-lab-live-finished")), full_page=True)
    widget_texts = list(page.evaluate("() => window.twnbWidgetTexts"))
    both_saved = lambda: saved_round_states(lab.server, NAME) == ["finished", "finished"]  # noqa: E731
    save_until(page, both_saved, "both finished Rounds", 60)
    return page, widget_texts


def test_the_live_widget_shows_the_round_and_updates_while_it_runs(ran):
    _, widget_texts = ran
    assert len(widget_texts) >= 2, f"the widget view never changed while the Round ran: {widget_texts}"
    assert any("Make the squares of 1 to 3" in text for text in widget_texts), widget_texts


def test_a_finished_round_is_rendered_by_the_extension_not_as_html(ran):
    page, _ = ran
    cell = round_cells(page).nth(0)
    shown = rendered_round(cell)
    expect(shown).to_have_count(1)
    expect(cell.locator(HTML_OUTPUT)).to_have_count(0)
    expect(shown.locator(".twnb-state")).to_have_text(re.compile(r"finished"))
    expect(shown.locator(".twnb-step")).to_have_count(3)
    for step in shown.locator(".twnb-step").all():
        expect(step).to_have_attribute("data-state", "done")
    expect(shown.locator(".twnb-answer")).to_contain_text(STEPS_ANSWER)


def test_the_code_that_ran_is_shown_highlighted_and_the_failed_attempt_says_it_raised(ran):
    page, _ = ran
    section = rendered_round(round_cells(page).nth(0)).locator(".twnb-code-section")
    code = section.locator('.twnb-code-block[data-outcome="ran"] .twnb-code')
    expect(code).to_have_count(2)
    expect(section.locator('.twnb-code-block[data-outcome="failed"] .twnb-outcome')).to_have_text("raised")
    expect(code.nth(0)).to_contain_text("squares = [n * n for n in range(1, 4)]")
    expect(code.nth(1)).to_contain_text('total_revenue = sum(shop["revenue"])')
    # Highlighted: the keyword `for` sits in its own styled span, not in plain text.
    expect(code.nth(0).locator("span", has_text=re.compile(r"^for$"))).not_to_have_count(0)


def test_insert_code_as_cells_adds_the_successful_code_below_the_round_in_post_order(ran):
    page, _ = ran
    before = cell_sources(page)
    round_index = before.index(f"%%taskweaver\n{STEPS_REQUEST}")
    rendered_round(round_cells(page).nth(0)).get_by_role("button", name="Insert code as cells").click()
    wait_until(lambda: len(cell_sources(page)) == len(before) + 2, 30, "two cells inserted")
    after = cell_sources(page)
    assert after[round_index + 1 : round_index + 3] == [STEP_ONE_CODE, REVISED_CODE]
    assert FAILING_CODE not in after
    assert after[: round_index + 1] == before[: round_index + 1]
    assert after[round_index + 3 :] == before[round_index + 1 :]
    page.screenshot(path=str(screenshot_path("labext-lab-inserted-cells")), full_page=True)
    # Leave the notebook as it was (and as saved) for the other tests.
    page.evaluate(
        "i => window.jupyterapp.shell.currentWidget.content.model.sharedModel.deleteCellRange(i, i + 2)",
        round_index + 1,
    )
    wait_until(lambda: cell_sources(page) == before, 30, "removing the inserted cells")
    save(page)


def test_a_hostile_answer_stays_text(ran):
    page, _ = ran
    shown = rendered_round(round_cells(page).nth(1))
    answer = shown.locator(".twnb-answer")
    expect(answer).to_contain_text('<img src=x onerror="window.twnbHostile=1">')
    expect(answer).to_contain_text("<script>window.twnbHostile=2</script>")
    expect(answer.locator("strong")).to_have_text("bold")  # Markdown itself still renders
    expect(shown.locator("img, script")).to_have_count(0)
    assert page.evaluate("() => window.twnbHostile") is None
    assert HOSTILE_ANSWER.split()[0] in answer.inner_text()


def test_the_round_history_panel_lists_the_rounds_and_scrolls_to_one(ran):
    page, _ = ran
    page.locator(".twnb-history-button").first.click()
    items = page.locator(".twnb-round-history .twnb-history-item")
    expect(items).to_have_count(2, timeout=UI_TIMEOUT_MS)
    expect(items.nth(0)).to_contain_text(STEPS_REQUEST)
    page.screenshot(path=str(screenshot_path("labext-lab-round-history")))
    items.nth(1).click()
    second_round = cell_sources(page).index(f"%%taskweaver\n{HOSTILE_REQUEST}")
    wait_until(lambda: page.evaluate(JS_ACTIVE_CELL) == second_round, 30, "the second Round's cell selected")
    expect(round_cells(page).nth(1)).to_be_in_viewport()


def test_rounds_render_through_the_extension_after_save_and_reload(ran):
    page, _ = ran
    page.reload()
    wait_for_plugin(page)
    for index in range(2):
        cell = round_cells(page).nth(index)
        expect(rendered_round(cell)).to_have_count(1, timeout=UI_TIMEOUT_MS)
        expect(cell.locator(HTML_OUTPUT)).to_have_count(0)
    expect(rendered_round(round_cells(page).nth(0)).locator(".twnb-step")).to_have_count(3)
