"""A finished analysis survives Ctrl+S, shutting the kernel down, closing and reopening, in JupyterLab,
as its static HTML (twnb's extension disabled; tests/browser/test_labextension_live.py reopens with it)."""

from __future__ import annotations

import re
from urllib.parse import unquote, urlparse

import pytest
from notebook_page import UI_TIMEOUT_MS, menu, reopen_in_lab, run_save_and_shut_down
from playwright.sync_api import expect
from reopen_checks import (
    MIN_CONTRAST,
    ROUNDS,
    expect_no_red_output,
    expect_no_widget_error,
    expect_rounds_rendered,
    expect_static_html,
    lowest_contrasts,
    round_output,
)
from round_scripts import analysis_notebook, analysis_script
from screenshot_files import screenshot_path

NAME = "analysis.ipynb"
ARTIFACTS_FOLDER = "twnb-artifacts"  # the visible folder beside the notebook


@pytest.fixture(scope="module")
def reopened(lab_without_extension, browser_context, module_llm):
    """The analysis run, saved, its kernel shut down, its tab closed and the notebook reopened."""
    lab = lab_without_extension
    module_llm.load(analysis_script())
    lab.write_notebook(NAME, analysis_notebook())
    page = browser_context.new_page()
    run_save_and_shut_down(page, lab.server, NAME, rounds=len(ROUNDS))
    reopen_in_lab(page, NAME)
    page.screenshot(path=str(screenshot_path("lab-reopened")))
    return page


def test_both_rounds_render_after_save_and_reopen(reopened):
    expect_rounds_rendered(reopened)
    expect_static_html(reopened)


def test_no_widget_error_after_reopen(reopened):
    expect_rounds_rendered(reopened)
    expect_no_widget_error(reopened)


def test_no_red_output_in_round_cells_after_reopen(reopened):
    expect_no_red_output(reopened)


def test_an_artifact_link_opens_the_file_in_jupyterlab(reopened):
    expect_rounds_rendered(reopened)
    link = round_output(reopened, 0).locator(f'a[href*="{ARTIFACTS_FOLDER}"]').first
    file_name = unquote(urlparse(link.get_attribute("href")).path).rsplit("/", 1)[-1]
    link.click()
    tab = reopened.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text=file_name)
    expect(tab).to_have_count(1, timeout=UI_TIMEOUT_MS)
    expect(tab).to_have_class(re.compile(r"\blm-mod-current\b"))
    expect(reopened.locator("body")).not_to_contain_text("Could not find path")
    reopened.screenshot(path=str(screenshot_path("lab-artifact-opened")))
    menu(reopened, "File", "Close Tab")  # back to the notebook for the next test
    expect(tab).to_have_count(0)


def test_rounds_read_well_in_the_dark_theme_after_reopen(reopened):
    menu(reopened, "Settings", "Theme", "JupyterLab Dark")
    try:
        expect(reopened.locator("body")).to_have_attribute("data-jp-theme-light", "false")
        expect_rounds_rendered(reopened)
        round_output(reopened, 0).scroll_into_view_if_needed()
        reopened.screenshot(path=str(screenshot_path("lab-reopened-dark-theme")))
        lowest = lowest_contrasts(reopened)
        assert lowest[0][0] >= MIN_CONTRAST, f"text hard to read on the dark theme: {lowest}"
    finally:
        menu(reopened, "Settings", "Theme", "JupyterLab Light")
        expect(reopened.locator("body")).to_have_attribute("data-jp-theme-light", "true")
