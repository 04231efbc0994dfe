"""What a person does with a notebook in JupyterLab or Notebook 7, through Playwright: menus, keys, clicks.

Every wait is on a condition (a locator or a page function) with a generous timeout: the machine is
small and shared, so a step may take long, but it never waits a guessed time.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from frontend_server import JupyterServer
    from playwright.sync_api import Locator, Page

# Timeouts in milliseconds: a Round with a plot on a loaded 2-core machine takes tens of seconds.
KERNEL_TIMEOUT_MS = 120_000
ROUND_TIMEOUT_MS = 180_000
UI_TIMEOUT_MS = 30_000
SAVE_TIMEOUT_S = 20

JS_KERNEL_IDLE = (
    "() => window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel?.status === 'idle'"
)
JS_NO_KERNEL = "() => !window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel"
ERROR_OUTPUT = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
# An output shown by the widget manager ("Loading widget...", "Error displaying widget: model not found").
WIDGET_OUTPUT = ".jp-OutputArea-output.jupyter-widgets"
ROUND_MIME = "application/vnd.twnb.round+json"  # the Round's data in the saved output (contract 6)
ENDED = ("finished", "failed", "interrupted")
# A code cell's prompt once it has run: "[3]:" (not "[ ]:" before, "[*]:" while it runs).
RAN_PROMPT = re.compile(r"\[\d+\]:")


# Whether an element is whole inside the area that shows it: inside every scrolling ancestor that
# clips it (the notebook's scroller, framed by the toolbar and the status bar) and the window.
# Playwright's to_be_in_viewport measures against the window only, where a part under the status bar
# counts as seen.
JS_WHOLLY_SHOWN = """element => {
  const box = element.getBoundingClientRect();
  if (!box.height) return false;
  const inside = view => box.top >= view.top - 1 && box.bottom <= view.bottom + 1;
  for (let node = element.parentElement; node; node = node.parentElement) {
    const view = node.getBoundingClientRect();  // (a box of no height lays nothing out: not a frame)
    if (view.height && /(auto|scroll|hidden)/.test(getComputedStyle(node).overflowY) && !inside(view)) {
      return false;
    }
  }
  return inside({top: 0, bottom: window.innerHeight});
}"""


def open_notebook(page: Page, url: str) -> None:
    """Open the notebook and wait until its kernel is idle (it starts one when it opens)."""
    page.goto(url)
    page.wait_for_function(JS_KERNEL_IDLE, timeout=KERNEL_TIMEOUT_MS)


def menu(page: Page, *path: str) -> None:
    """Click through the menu bar: `menu(page, "Kernel", "Shut Down Kernel")`."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{re.escape(path[0])}$")).click()
    for label in path[1:]:
        page.locator(
            ".lm-Menu:visible .lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(label)}$")
        ).click()


def code_cells(page: Page) -> Locator:
    return page.locator(".jp-Notebook .jp-Cell.jp-CodeCell")


def round_cells(page: Page) -> Locator:
    """The cells holding a `%%taskweaver` request and its Round output."""
    return code_cells(page).filter(has_text="%%taskweaver")


def outputs(cell: Locator) -> Locator:
    return cell.locator(".jp-OutputArea-output")


def expect_wholly_shown(locator: Locator, timeout_ms: int = UI_TIMEOUT_MS) -> None:
    """Wait until the element is whole inside the notebook's visible area (scrolled there, nothing of
    it under the status bar or the toolbar)."""
    locator.page.wait_for_function(JS_WHOLLY_SHOWN, arg=locator.element_handle(), timeout=timeout_ms)


def wait_until_ran(cell: Locator, timeout_ms: int = ROUND_TIMEOUT_MS) -> None:
    """Wait until the cell has run: its prompt shows an execution count."""
    from playwright.sync_api import expect

    expect(cell.locator(".jp-InputPrompt")).to_have_text(RAN_PROMPT, timeout=timeout_ms)


def run_all_cells(page: Page) -> None:
    menu(page, "Run", "Run All Cells")


def save(page: Page) -> None:
    """Ctrl+S with the notebook focused, as a person saves."""
    page.locator(".jp-Notebook").first.click(position={"x": 5, "y": 5})  # focus, without entering a cell
    page.keyboard.press("Control+s")


def shut_down_kernel(page: Page) -> None:
    """Kernel > Shut Down Kernel (and accept the confirmation where the frontend asks)."""
    menu(page, "Kernel", "Shut Down Kernel")
    dialog_accept = page.locator(".jp-Dialog .jp-mod-accept")
    page.wait_for_function(
        "() => !!document.querySelector('.jp-Dialog .jp-mod-accept')"
        " || !window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel",
        timeout=UI_TIMEOUT_MS,
    )
    if dialog_accept.count():
        dialog_accept.click()
    page.wait_for_function(JS_NO_KERNEL, timeout=KERNEL_TIMEOUT_MS)


def add_cell_below_and_run(page: Page, last_cell: Locator, source: str) -> Locator:
    """Select `last_cell`, press B for a new cell below, type `source`, Shift+Enter; returns the new cell."""
    last_cell.locator(".jp-InputPrompt").click()  # selects the cell in command mode
    page.keyboard.press("Escape")
    count = code_cells(page).count()
    page.keyboard.press("b")
    new_cell = code_cells(page).nth(count)
    new_cell.locator(".cm-content").click()
    page.keyboard.type(source)
    page.keyboard.press("Shift+Enter")
    return new_cell


def wait_until(predicate: Callable[[], bool], timeout_s: float, what: str) -> None:
    """Poll `predicate` until it holds; fails saying `what` did not happen."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout_s:.0f} s"
        time.sleep(0.2)  # polling a condition, not waiting a guessed time


def saved_round_states(server: JupyterServer, name: str) -> list[str]:
    """The states of the Rounds in the notebook as saved on disk (contract 6's payload)."""
    states = []
    for cell in server.saved_notebook(name)["cells"]:
        for output in cell.get("outputs", []):
            payload = output.get("data", {}).get(ROUND_MIME)
            if payload:
                states.append(payload.get("state", ""))
    return states


def run_save_and_shut_down(
    page: Page, server: JupyterServer, name: str, rounds: int, timeout_s: float = ROUND_TIMEOUT_MS / 1000
) -> None:
    """Open the notebook, Run > Run All Cells, wait for the Rounds to end, Ctrl+S, then Kernel > Shut
    Down Kernel: what a person does before closing a finished analysis."""
    open_notebook(page, server.notebook_url(name))
    run_all_cells(page)
    wait_until_ran(round_cells(page).nth(rounds - 1), int(timeout_s * 1000))
    save_ended_rounds(page, server, name, rounds, timeout_s)
    shut_down_kernel(page)


def save_until(page: Page, saved: Callable[[], bool], what: str, timeout_s: float = SAVE_TIMEOUT_S) -> None:
    """Ctrl+S until `saved()` says the file on disk holds what it should (`what`, for the failure)."""
    # A busy page can drop the key press (seen under load): press again, as a person would.
    for attempt in range(3):
        save(page)
        try:
            wait_until(saved, SAVE_TIMEOUT_S if attempt < 2 else timeout_s, f"Ctrl+S saving {what}")
            return
        except AssertionError:
            if attempt == 2:
                raise


def save_ended_rounds(
    page: Page, server: JupyterServer, name: str, rounds: int, timeout_s: float = ROUND_TIMEOUT_MS / 1000
) -> None:
    """Ctrl+S until the file on disk holds `rounds` ended Rounds."""

    def saved() -> bool:
        return len([s for s in saved_round_states(server, name) if s in ENDED]) == rounds

    save_until(page, saved, f"{rounds} ended Rounds", timeout_s)


def reopen_in_lab(page: Page, name: str) -> None:
    """File > Close Tab, then a double click on the notebook in the file browser."""
    menu(page, "File", "Close Tab")
    page.locator(".jp-DirListing-item", has_text=name).dblclick()
    page.locator(".jp-NotebookPanel:visible .jp-Notebook").wait_for()
