"""`@` in a `%%taskweaver` cell completes the notebook's variables and files in a real JupyterLab and
Notebook 7, as a person types: the kernel's completion (twnb/notebook/mention_completer.py) reaches the
frontend's completer, which shows the mentions only (no Python names) and, once one is picked, the cell
reads `@` followed by the whole name.

The notebook's first cells make two DataFrames whose names start with `sal` (so the completer lists
two) and load twnb; `regions.csv` lies in its folder. Each test types a new request cell key by key
(100 ms a key), presses Tab and picks with the arrow keys and Enter. Lists are compared in the order
shown: the kernel's (variables, files, then `cell ` and `round `; cells newest first)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import RunningFrontend
from labextension_page import cell_sources
from notebook_page import UI_TIMEOUT_MS, code_cells, open_notebook, run_all_cells, wait_until_ran
from playwright.sync_api import Locator, Page, expect
from round_scripts import notebook_of
from screenshot_files import screenshot_path

KEY_DELAY_MS = 100  # a person's typing
FRAMES = (
    "import pandas as pd\n"
    "sales_2026 = pd.DataFrame({'region': ['north', 'south'], 'total': [120.5, 98.0]})\n"
    "salaries = pd.DataFrame({'name': ['Ada'], 'salary': [5200]})"
)
NOTEBOOK = "mentions.ipynb"
# What `@` alone offers, in order: the notebook's variables, its folder's files, `cell ` and `round `.
EVERY_MENTION = ["pd", "salaries", "sales_2026", "mentions.ipynb", "regions.csv", "cell ", "round "]
COMPLETER = ".jp-Completer"
ITEM = ".jp-Completer-item"


def _setup(frontend: RunningFrontend, page: Page) -> Page:
    """The notebook with its frames made and twnb loaded, `regions.csv` beside it."""
    (frontend.root / "regions.csv").write_text("region,manager\nnorth,Ada\nsouth,Grace\n", encoding="utf-8")
    frontend.write_notebook(NOTEBOOK, notebook_of(FRAMES, "%load_ext twnb"))
    open_notebook(page, frontend.server.notebook_url(NOTEBOOK))
    run_all_cells(page)
    wait_until_ran(code_cells(page).nth(1))
    return page


@pytest.fixture(scope="module")
def lab_page(lab: RunningFrontend, labextension_bundle: Any, browser_context: Any) -> Iterator[Page]:
    page = _setup(lab, browser_context.new_page())
    yield page
    page.close()


@pytest.fixture(scope="module")
def notebook7_page(
    notebook7: RunningFrontend, labextension_bundle: Any, browser_context: Any
) -> Iterator[Page]:
    page = _setup(notebook7, browser_context.new_page())
    yield page
    page.close()


def _type_request(page: Page, request: str) -> Locator:
    """Below the last cell, a new cell: `%%taskweaver`, Enter, then `request` key by key, then Tab."""
    cells = code_cells(page)
    count = cells.count()
    cells.nth(count - 1).locator(".jp-InputPrompt").click()  # selects the cell, in command mode
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    cell = cells.nth(count)
    cell.locator(".cm-content").click()
    editor = cell.locator(".cm-content")
    editor.press_sequentially("%%taskweaver", delay=KEY_DELAY_MS)
    page.keyboard.press("Enter")
    editor.press_sequentially(request, delay=KEY_DELAY_MS)
    page.keyboard.press("Tab")
    return cell


def _shown(page: Page) -> list[str]:
    """The names the open completer lists, top to bottom."""
    completer = page.locator(COMPLETER)
    expect(completer).to_be_visible(timeout=UI_TIMEOUT_MS)
    return [item.get_attribute("data-value") or "" for item in completer.locator(ITEM).all()]


def _pick(page: Page, name: str) -> None:
    """Arrow down to `name` in the open completer and press Enter."""
    for _ in range(len(_shown(page))):
        if page.locator(f"{COMPLETER} {ITEM}.jp-mod-active").get_attribute("data-value") == name:
            break
        page.keyboard.press("ArrowDown")
    expect(page.locator(f"{COMPLETER} {ITEM}.jp-mod-active")).to_have_attribute("data-value", name)
    page.keyboard.press("Enter")
    expect(page.locator(COMPLETER)).to_be_hidden()


def _source(page: Page, cell_index: int) -> str:
    return cell_sources(page)[cell_index]


def _complete_alone(page: Page, name: str) -> None:
    """After Tab, the one match: JupyterLab lists it alone (Enter picks it) or puts it in at once."""
    completer = page.locator(COMPLETER)
    cell_done = page.locator(".jp-Notebook .jp-Cell.jp-mod-active .cm-content", has_text=name)
    expect(completer.or_(cell_done).first).to_be_visible(timeout=UI_TIMEOUT_MS)
    if completer.is_visible():
        assert _shown(page) == [name]
        _pick(page, name)


def _set_theme(page: Page, theme: str, light: bool) -> None:
    page.evaluate(f"() => window.jupyterapp.commands.execute('apputils:change-theme', {{theme: {theme!r}}})")
    page.locator(f'body[data-jp-theme-light="{str(light).lower()}"]').wait_for(state="attached")
    # a theme change shows JupyterLab's splash over the page until the theme has loaded
    expect(page.locator("#jupyterlab-splash")).to_have_count(0)


def test_in_lab_at_sal_tab_lists_the_notebooks_frames(lab_page: Page) -> None:
    _type_request(lab_page, "Plot @sal")
    assert _shown(lab_page) == ["salaries", "sales_2026"]
    lab_page.screenshot(path=str(screenshot_path("lab-mention-completer")))
    _set_theme(lab_page, "JupyterLab Dark", light=False)
    try:
        expect(lab_page.locator(COMPLETER)).to_be_visible()
        lab_page.screenshot(path=str(screenshot_path("lab-dark-mention-completer")))
    finally:
        _set_theme(lab_page, "JupyterLab Light", light=True)
    lab_page.keyboard.press("Escape")


def test_in_lab_at_tab_lists_mentions_and_no_python_names(lab_page: Page) -> None:
    """The notebook's variables, its folder's files, `cell ` and `round `: not Python's builtins or
    keywords, nor IPython's own `open`."""
    _type_request(lab_page, "Plot @")
    shown = _shown(lab_page)
    lab_page.keyboard.press("Escape")
    # before the fix IPython's own `open` was listed too
    assert shown == EVERY_MENTION


def test_in_lab_picking_sales_2026_keeps_the_at_and_completes_the_name(lab_page: Page) -> None:
    cell = _type_request(lab_page, "Plot @sal")
    _pick(lab_page, "sales_2026")
    expect(cell.locator(".cm-content")).to_contain_text("Plot @sales_2026")
    assert _source(lab_page, -1) == "%%taskweaver\nPlot @sales_2026"


def test_in_lab_at_reg_tab_completes_the_file_beside_the_notebook(lab_page: Page) -> None:
    _type_request(lab_page, "Join @reg")
    _complete_alone(lab_page, "regions.csv")
    assert _source(lab_page, -1) == "%%taskweaver\nJoin @regions.csv"


def test_in_lab_at_ce_tab_then_tab_again_completes_an_execution_count(lab_page: Page) -> None:
    """`@ce` + Tab gives `cell ` (with its space); Tab again lists the cells that ran, newest first
    (before, IPython sorted them as text: "1", "10", "2")."""
    _type_request(lab_page, "Explain @ce")
    _complete_alone(lab_page, "cell ")
    assert _source(lab_page, -1) == "%%taskweaver\nExplain @cell "
    lab_page.keyboard.press("Tab")
    assert _shown(lab_page) == ["2", "1"]  # newest first
    _pick(lab_page, "1")
    assert _source(lab_page, -1) == "%%taskweaver\nExplain @cell 1"


def test_in_notebook7_picking_sales_2026_keeps_the_at_and_completes_the_name(notebook7_page: Page) -> None:
    cell = _type_request(notebook7_page, "Plot @sal")
    assert _shown(notebook7_page) == ["salaries", "sales_2026"]
    notebook7_page.screenshot(path=str(screenshot_path("notebook7-mention-completer")))
    _pick(notebook7_page, "sales_2026")
    expect(cell.locator(".cm-content")).to_contain_text("Plot @sales_2026")
    assert _source(notebook7_page, -1) == "%%taskweaver\nPlot @sales_2026"
