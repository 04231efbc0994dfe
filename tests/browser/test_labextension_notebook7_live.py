"""twnb's JupyterLab extension on a Round run live in Notebook 7: the widget while it runs, the extension's
rendering once it ends, and again after save and reload."""

from __future__ import annotations

from labextension_page import HTML_OUTPUT, RECORD_WIDGET_TEXTS, rendered_round, wait_for_plugin
from notebook_page import (
    ROUND_TIMEOUT_MS,
    UI_TIMEOUT_MS,
    open_notebook,
    round_cells,
    run_all_cells,
    save_until,
    saved_round_states,
    wait_until_ran,
)
from playwright.sync_api import expect
from round_scripts import STEPS_ANSWER, steps_notebook, steps_script
from screenshot_files import screenshot_path

NAME = "steps7.ipynb"


def test_a_live_round_in_notebook7_shows_the_widget_then_the_extension_before_and_after_reload(
    notebook7, labextension_bundle, browser_context, module_llm
):
    module_llm.load(steps_script())
    notebook7.write_notebook(NAME, steps_notebook())
    page = browser_context.new_page()
    page.add_init_script(RECORD_WIDGET_TEXTS)
    open_notebook(page, notebook7.server.notebook_url(NAME))
    wait_for_plugin(page)
    run_all_cells(page)
    wait_until_ran(round_cells(page).nth(1))
    first = round_cells(page).nth(0)
    expect(rendered_round(first)).to_have_count(1, timeout=ROUND_TIMEOUT_MS)
    widget_texts = page.evaluate("() => window.twnbWidgetTexts")
    assert any("Make the squares of 1 to 3" in text for text in widget_texts), widget_texts
    save_until(
        page,
        lambda: saved_round_states(notebook7.server, NAME) == ["finished", "finished"],
        "both finished Rounds",
        60,
    )
    page.reload()
    wait_for_plugin(page)
    first = round_cells(page).nth(0)
    expect(rendered_round(first)).to_have_count(1, timeout=UI_TIMEOUT_MS)
    expect(first.locator(HTML_OUTPUT)).to_have_count(0)
    expect(rendered_round(first).locator(".twnb-answer")).to_contain_text(STEPS_ANSWER)
    page.screenshot(path=str(screenshot_path("labext-notebook7-live-reloaded")), full_page=True)
