"""A `%%taskweaver` cell's request is drawn as the words it is, not as Python, in JupyterLab and Notebook 7
(twnb's extension, labextension/src/requestcells.ts): as a Markdown cell draws it, its `**strong**`
words bold and no other word coloured or bolded apart from the line's own text, while the same kind
of words in a Python cell are (the check can see highlighting).
Before, "and" was a bold green keyword and everything after an apostrophe a red string."""

from __future__ import annotations

from notebook_page import UI_TIMEOUT_MS, code_cells, open_notebook, wait_until
from round_scripts import notebook_of
from screenshot_files import screenshot_path

REQUEST = "Compute the **total** of 2, 3 and 5, and don't round it."
MARKDOWN = "**total**"  # what Markdown highlighting styles in the request: its strong words only
PYTHON = "total = 2 and 3 or 'x'"

# The tokens of the cell's line `index` drawn in another colour or weight than the line's own text.
STYLED_TOKENS = """([cell, index]) => {
  const line = cell.querySelectorAll('.cm-content .cm-line')[index];
  if (!line) return null;
  const base = getComputedStyle(line);
  return [...line.querySelectorAll('*')]
    .filter(el => {
      const s = getComputedStyle(el);
      return s.color !== base.color || s.fontWeight !== base.fontWeight || s.fontStyle !== base.fontStyle;
    })
    .map(el => el.textContent);
}"""


def _styled(page, cell_index, line_index):
    cell = code_cells(page).nth(cell_index).element_handle()
    return page.evaluate(STYLED_TOKENS, [cell, line_index])


def _markdown_only(tokens):
    return bool(tokens) and all(token in MARKDOWN for token in tokens)


def _check(page, name):
    wait_until(
        lambda: _markdown_only(_styled(page, 0, 1)), UI_TIMEOUT_MS / 1000, "the request drawn as Markdown"
    )
    assert _styled(page, 0, 0) == []  # the `%%taskweaver --step` line: plain text
    assert _markdown_only(_styled(page, 1, 1))
    assert "and" in _styled(page, 2, 0)  # a Python cell's keyword is still highlighted
    page.screenshot(path=str(screenshot_path(name)))


def _notebook():
    return notebook_of(f"%%taskweaver --step\n{REQUEST}", "%%taskweaver\n" + REQUEST, PYTHON)


def test_in_lab_a_taskweaver_request_is_not_highlighted_as_python(lab, labextension_bundle, browser_context):
    lab.write_notebook("request-highlight.ipynb", _notebook())
    page = browser_context.new_page()
    open_notebook(page, lab.server.notebook_url("request-highlight.ipynb"))
    _check(page, "lab-request-highlight")
    page.close()


def test_in_notebook7_a_taskweaver_request_is_not_highlighted_as_python(
    notebook7, labextension_bundle, browser_context
):
    notebook7.write_notebook("request-highlight7.ipynb", _notebook())
    page = browser_context.new_page()
    open_notebook(page, notebook7.server.notebook_url("request-highlight7.ipynb"))
    _check(page, "notebook7-request-highlight")
    page.close()
