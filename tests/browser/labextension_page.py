"""What twnb's JupyterLab extension shows and does, read from the page: its Round renderer's DOM (never
the HTML fallback), its buttons, the notebook's cells as the model holds them, and a recorder of what
the live widget showed while a Round ran."""

from __future__ import annotations

from typing import TYPE_CHECKING

from notebook_page import ROUND_MIME, UI_TIMEOUT_MS, outputs

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

# The extension's renderer is the output node itself (JupyterLab adds the MIME type to it).
ROUND_RENDERED = f'.jp-OutputArea-output.twnb-round[data-mime-type="{ROUND_MIME}"]'
HTML_OUTPUT = '.jp-OutputArea-output[data-mime-type="text/html"]'
JS_CELL_SOURCES = (
    "() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells.map(c => c.source)"
)
JS_ACTIVE_CELL = "() => window.jupyterapp.shell.currentWidget.content.activeCellIndex"
JS_PLUGIN_ACTIVE = "() => document.body.dataset.twnbLabextension === 'active'"

# Installed before the page loads: every distinct text the live widget view showed, in order.
RECORD_WIDGET_TEXTS = """
window.twnbWidgetTexts = [];
new MutationObserver(() => {
  for (const node of document.querySelectorAll('.jp-OutputArea-output')) {
    if (!node.classList.contains('jupyter-widgets') && !node.querySelector('.jupyter-widgets')) continue;
    const text = node.innerText.trim();
    const seen = window.twnbWidgetTexts;
    if (text && seen[seen.length - 1] !== text) seen.push(text);
  }
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


def rendered_round(cell: Locator) -> Locator:
    return outputs(cell).and_(cell.page.locator(ROUND_RENDERED))


def cell_sources(page: Page) -> list[str]:
    return list(page.evaluate(JS_CELL_SOURCES))


def wait_for_plugin(page: Page) -> None:
    page.wait_for_function(JS_PLUGIN_ACTIVE, timeout=UI_TIMEOUT_MS)


def open_without_kernel(page: Page, url: str) -> None:
    """Open a notebook whose kernel does not exist and answer the frontend's question with No Kernel."""
    from notebook_page import JS_NO_KERNEL, KERNEL_TIMEOUT_MS

    page.goto(url)
    page.locator(".jp-Dialog button", has_text="No Kernel").click(timeout=KERNEL_TIMEOUT_MS)
    page.wait_for_function(JS_NO_KERNEL, timeout=UI_TIMEOUT_MS)
    wait_for_plugin(page)
