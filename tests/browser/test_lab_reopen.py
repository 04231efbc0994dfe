"""A finished analysis survives Ctrl+S, shutting the kernel down, closing and reopening, in JupyterLab."""

from __future__ import annotations

import pytest
from notebook_page import reopen_in_lab, run_save_and_shut_down
from reopen_checks import (
    ROUNDS,
    expect_no_red_output,
)
from round_scripts import analysis_notebook, analysis_script
from screenshot_files import screenshot_path

NAME = "analysis.ipynb"
ARTIFACTS_FOLDER = "twnb-artifacts"  # the visible folder beside the notebook


@pytest.fixture(scope="module")
def reopened(lab, browser_context, module_llm):
    """The analysis run, saved, its kernel shut down, its tab closed and the notebook reopened."""
    module_llm.load(analysis_script())
    lab.write_notebook(NAME, analysis_notebook())
    page = browser_context.new_page()
    run_save_and_shut_down(page, lab.server, NAME, rounds=len(ROUNDS))
    reopen_in_lab(page, NAME)
    page.screenshot(path=str(screenshot_path("lab-reopened")))
    return page


def test_no_red_output_in_round_cells_after_reopen(reopened):
    expect_no_red_output(reopened)
