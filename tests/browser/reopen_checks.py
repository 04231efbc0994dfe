"""What a reopened analysis (round_scripts.analysis_*) must show, in any frontend and theme."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from notebook_page import ERROR_OUTPUT, UI_TIMEOUT_MS, WIDGET_OUTPUT, outputs, round_cells
from playwright.sync_api import expect
from round_scripts import (
    PLOT_ANSWER,
    PLOT_REQUEST,
    PLOT_STEP,
    REVISED_CODE,
    TOTAL_ANSWER,
    TOTAL_REQUEST,
    TOTAL_STEP,
)

from twnb.render import IN_CELL_NOTE

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

# Per Round: its request, a plan step, a line of its code, its result, its answer.
ROUNDS = (
    (PLOT_REQUEST, PLOT_STEP, 'ax.set_title("Squares of 1 to 5")', "55", PLOT_ANSWER),
    (TOTAL_REQUEST, TOTAL_STEP, REVISED_CODE.splitlines()[1], "60", TOTAL_ANSWER),
)
JS_LOADED_IMAGES = "imgs => imgs.filter(img => img.complete && img.naturalWidth > 0).length"


def round_output(page: Page, index: int) -> Locator:
    """The output of the index-th Round cell that shows the Round (the one naming its request, as its
    header shows it: Markdown, so a code span's backticks are not text)."""
    return outputs(round_cells(page).nth(index)).filter(has_text=ROUNDS[index][0].replace("`", ""))


def expect_rounds_rendered(page: Page) -> None:
    """Both Rounds show their request, plan, code, result and answer, and Round 1's cell its figure,
    once: as the cell's own output, which the Round names (a saved notebook holds the PNG once)."""
    expect(round_cells(page)).to_have_count(len(ROUNDS), timeout=UI_TIMEOUT_MS)
    for index, (_request, step, code_line, result, answer) in enumerate(ROUNDS):
        shown = round_output(page, index)
        expect(shown).to_have_count(1, timeout=UI_TIMEOUT_MS)
        for text in (step, code_line, result, answer):
            expect(shown).to_contain_text(text)
        expect(shown).to_contain_text(re.compile(r"\btwnb\s*finished"))
    expect(round_output(page, 0)).to_contain_text(IN_CELL_NOTE)
    figures = outputs(round_cells(page).nth(0)).locator("img")
    expect(figures).to_have_count(1, timeout=UI_TIMEOUT_MS)
    assert figures.evaluate_all(JS_LOADED_IMAGES) == 1, "Round 1's figure did not load"


def expect_static_html(page: Page) -> None:
    """Each Round shows through JupyterLab's HTML renderer: its static `text/html`, no extension."""
    for index in range(len(ROUNDS)):
        expect(round_output(page, index)).to_have_attribute("data-mime-type", "text/html")


def expect_no_widget_error(page: Page) -> None:
    """No output asks for a widget model (which a reopened notebook no longer has)."""
    expect(page.locator(WIDGET_OUTPUT)).to_have_count(0)
    expect(page.locator(".jp-Notebook")).not_to_contain_text(re.compile(r"Loading widget|model not found"))


def expect_no_red_output(page: Page) -> None:
    """No stderr or error output (red) in the Round cells, once their outputs are shown; the failed
    attempt lives inside the Round."""
    expect(round_cells(page)).to_have_count(len(ROUNDS), timeout=UI_TIMEOUT_MS)
    for index in range(len(ROUNDS)):
        cell = round_cells(page).nth(index)
        expect(outputs(cell)).not_to_have_count(0, timeout=UI_TIMEOUT_MS)
        expect(cell.locator(ERROR_OUTPUT)).to_have_count(0)


# For every element in the Round outputs with text of its own: its text colour against the first
# non-transparent background behind it, as a WCAG contrast ratio. Returns the lowest few.
JS_LOWEST_CONTRASTS = """outputs => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = node => {
    for (; node; node = node.parentElement) {
      const c = rgb(getComputedStyle(node).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const found = [];
  for (const output of outputs) {
    for (const node of output.querySelectorAll('*')) {
      const own = Array.from(node.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
      if (!own || !node.getClientRects().length) continue;
      const a = lum(rgb(getComputedStyle(node).color)), b = lum(background(node));
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      found.push([Math.round(ratio * 100) / 100, node.tagName + ': ' + node.textContent.trim().slice(0, 40)]);
    }
  }
  return found.sort((x, y) => x[0] - y[0]).slice(0, 5);
}"""
MIN_CONTRAST = 3.0  # WCAG's minimum for large text; pure blue on JupyterLab's dark grey is about 2.3


def lowest_contrasts(page: Page) -> list[tuple[float, str]]:
    """The Round outputs' text with the lowest contrast against its background, lowest first."""
    shown = [round_output(page, index) for index in range(len(ROUNDS))]
    handles = [locator.element_handle() for locator in shown]
    return [tuple(pair) for pair in page.evaluate(JS_LOWEST_CONTRASTS, handles)]
