"""Step mode's refused edit and the Round's state colours read well, and its links look like links, in
JupyterLab's light and dark themes.

Measured from computed styles: every text in step mode's panel showing a refused edit (the red
verdict was 3.5:1 on the dark theme), then in the ended Round the extension draws (step marks, the
refused edit, execution states, the answer's link), is at least 4.5:1 against what is behind it; the
answer's link has the colour and decoration of a link in a Markdown cell of the same page (it was
drawn as plain text)."""

from __future__ import annotations

import nbformat
import pytest
from labextension_page import rendered_round
from notebook_page import (
    ROUND_TIMEOUT_MS,
    UI_TIMEOUT_MS,
    open_notebook,
    round_cells,
    run_all_cells,
    wait_until_ran,
)
from playwright.sync_api import expect
from round_scripts import notebook_of
from screenshot_files import screenshot_path
from step_scripts import REFUSED_EDIT, STEP_CODE, STEP_REQUEST, STEP_STEPS, _round
from test_lab_step_mode import _click

MIN_TEXT_CONTRAST = 4.5  # WCAG AA for normal text
LINK_URL = "https://example.org/twnb-docs"
ANSWER = f"The total is 10; see [the notes]({LINK_URL})."

# For each element under `root` matching `selector` with text of its own: its text colour against the
# first opaque background behind it, as a WCAG contrast ratio; the lowest few, lowest first.
JS_CONTRASTS = """([root, selector]) => {
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
  for (const node of root.querySelectorAll(selector)) {
    const own = Array.from(node.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own || !node.getClientRects().length) continue;
    const a = lum(rgb(getComputedStyle(node).color)), b = lum(background(node));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    found.push([Math.round(ratio * 100) / 100, node.className + ' ' + node.textContent.trim().slice(0, 40)]);
  }
  return found.sort((x, y) => x[0] - y[0]).slice(0, 5);
}"""
JS_LINK_LOOK = """link => {
  const s = getComputedStyle(link);
  return [s.color, s.textDecorationLine];
}"""


def _contrasts(page, root, selector):
    return page.evaluate(JS_CONTRASTS, [root.element_handle(), selector])


def _expect_readable(page, root, selector, what):
    lowest = _contrasts(page, root, selector)
    assert lowest, f"{what}: nothing measured"
    assert lowest[0][0] >= MIN_TEXT_CONTRAST, f"{what}: below {MIN_TEXT_CONTRAST}:1: {lowest}"


def _notebook():
    nb = notebook_of("%load_ext twnb", f"%%taskweaver --step\n{STEP_REQUEST}")
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(f"A Markdown cell's [link]({LINK_URL})."))
    return nb


@pytest.fixture(params=["lab", "lab_dark"])
def frontend(request, labextension_bundle):
    return request.getfixturevalue(request.param), request.param


def test_the_refused_edit_and_the_rounds_states_read_well_and_its_links_are_links(
    frontend, browser_context, module_llm
):
    server, theme = frontend
    name = f"contrast-{theme}.ipynb"
    module_llm.load(_round(STEP_STEPS, STEP_CODE, ANSWER))
    server.write_notebook(name, _notebook())
    page = browser_context.new_page()
    open_notebook(page, server.server.notebook_url(name))
    run_all_cells(page)
    _click(page, "approve")
    _click(page, "edit")
    page.locator(".twnb-step-editor textarea").fill(REFUSED_EDIT)
    _click(page, "run")
    panel = page.locator(".twnb-step-panel")
    expect(panel.locator(".twnb-step-verdict")).to_contain_text("not allowed", timeout=ROUND_TIMEOUT_MS)
    page.screenshot(path=str(screenshot_path(f"{theme}-step-refused-contrast")))
    _expect_readable(page, panel, "*", "the panel's refused edit")
    _click(page, "skip")
    cell = round_cells(page).first
    wait_until_ran(cell)
    shown = rendered_round(cell)
    expect(shown).to_have_count(1, timeout=UI_TIMEOUT_MS)
    shown.locator(".twnb-refused-edit").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path(f"{theme}-round-states-contrast")))
    states = ".twnb-step-mark, .twnb-refused-edit *, .twnb-exec-success, .twnb-exec-failure, .twnb-answer a"
    _expect_readable(page, shown, states, "the Round's states")
    expect(shown.locator(".twnb-bar-wait")).to_have_count(1)  # the wait drawn as waiting, not code
    link = shown.locator(f'.twnb-answer a[href="{LINK_URL}"]')
    markdown_link = page.locator(f'.jp-MarkdownCell .jp-RenderedMarkdown a[href="{LINK_URL}"]')
    assert link.evaluate(JS_LINK_LOOK) == markdown_link.evaluate(JS_LINK_LOOK)
    page.close()
