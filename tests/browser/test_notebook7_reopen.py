"""A finished analysis survives Ctrl+S, shutting the kernel down and reopening, in Notebook 7, as its
static HTML (twnb's extension disabled)."""

from __future__ import annotations

import pytest
from notebook_page import open_notebook, run_save_and_shut_down
from reopen_checks import (
    ROUNDS,
    expect_no_red_output,
    expect_no_widget_error,
    expect_rounds_rendered,
    expect_static_html,
)
from round_scripts import analysis_notebook, analysis_script
from screenshot_files import screenshot_path

NAME = "analysis.ipynb"


@pytest.fixture(scope="module")
def reopened(notebook7_without_extension, browser_context, module_llm):
    """The analysis run in Notebook 7, saved, its kernel shut down, and the notebook opened again."""
    notebook7 = notebook7_without_extension
    module_llm.load(analysis_script())
    notebook7.write_notebook(NAME, analysis_notebook())
    page = browser_context.new_page()
    run_save_and_shut_down(page, notebook7.server, NAME, rounds=len(ROUNDS))
    page.close()  # Notebook 7 shows one notebook per browser tab: close it, open it again
    page = browser_context.new_page()
    open_notebook(page, notebook7.server.notebook_url(NAME))
    page.screenshot(path=str(screenshot_path("notebook7-reopened")))
    return page


def test_both_rounds_render_after_save_and_reopen_in_notebook7(reopened):
    expect_rounds_rendered(reopened)
    expect_static_html(reopened)


def test_no_widget_error_after_reopen_in_notebook7(reopened):
    expect_rounds_rendered(reopened)
    expect_no_widget_error(reopened)


def test_no_red_output_in_round_cells_after_reopen_in_notebook7(reopened):
    expect_no_red_output(reopened)
