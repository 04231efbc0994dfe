"""Make the README's screenshot of a Round in JupyterLab: `notebooks/quickstart-round.png`.

Runs the quickstart notebook in a real JupyterLab, driven by Debian's Chromium through Playwright,
offline: the kernel replays the bundled cassette of scripted replies exactly as `twnb demo` does. Then
it does what a person does at the end of an analysis: Ctrl+S, Kernel > Shut Down Kernel, close the tab
and open the notebook again from the file browser. It saves the chosen Round's cell as it shows then
(its `%%taskweaver` request and the saved Round) as a PNG: what a reader of the notebook sees.

Needs the `browser` extra (`pip install -e ".[browser]"`: jupyterlab, notebook, playwright) and
`apt-get install chromium`. Never `playwright install`: the browser is the system one. It shares the
browser tests' server and browser helpers (tests/browser/README.md).

    python tests/browser/make_readme_screenshot.py [--round 2] [-o notebooks/quickstart-round.png]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat
from chromium import CHROMIUM, launch_chromium, missing_tools
from frontend_server import JupyterServer, JupyterServerError
from notebook_page import (
    WIDGET_OUTPUT,
    reopen_in_lab,
    round_cells,
    run_save_and_shut_down,
    saved_round_states,
)

from twnb.demo.quickstart import DATASET, QUICKSTART, REQUESTS, build_quickstart_notebook
from twnb.demo.runner import kernel_environment

NOTEBOOK_FILE = QUICKSTART.notebook_file

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "notebooks" / "quickstart-round.png"


class ScreenshotError(RuntimeError):
    """The screenshot could not be made; the message says why and what to do."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path, default=DEFAULT_OUT, help="PNG to write")
    parser.add_argument("--round", type=int, default=2, help="which Round of the quickstart (1-3)")
    parser.add_argument("--width", type=int, default=1280, help="browser viewport width")
    parser.add_argument("--height", type=int, default=900, help="browser viewport height")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds to wait for the Rounds")
    parser.add_argument("--chromium", default=CHROMIUM, help="the system Chromium executable")
    parser.add_argument("--full-page", action="store_true", help="save the whole window, not the cell")
    parser.add_argument(
        "--collapse",
        action="append",
        metavar="TITLE",
        help="toggle this post section first, by its title (repeatable; default: none, the Round as it ends)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and print it")
    args = parser.parse_args(argv)
    if not 1 <= args.round <= len(REQUESTS):
        parser.error(f"--round must be between 1 and {len(REQUESTS)}")
    try:
        make_screenshot(args)
    except ScreenshotError as error:
        print(f"make_readme_screenshot: {error}", file=sys.stderr)
        return 1
    return 0


def make_screenshot(args: argparse.Namespace) -> None:
    problem = missing_tools(args.chromium)
    if problem:
        raise ScreenshotError(problem)
    scratch = Path(tempfile.mkdtemp(prefix="twnb-screenshot-"))
    try:
        notebook_dir = scratch / "nb"
        _write_quickstart(notebook_dir)
        # Kernels inherit the server's environment: what `twnb demo` gives its kernel (offline replay).
        env = kernel_environment(live=False)
        try:
            with JupyterServer("lab", notebook_dir, scratch, env) as server:
                _shoot(server, args)
        except JupyterServerError as error:
            raise ScreenshotError(str(error)) from error
    finally:
        if args.keep:
            print(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    size_kb = args.out.stat().st_size / 1024
    print(f"wrote {args.out} ({size_kb:.0f} KB)")


def _write_quickstart(folder: Path) -> None:
    folder.mkdir(parents=True)
    nbformat.write(build_quickstart_notebook(), folder / NOTEBOOK_FILE)
    shutil.copyfile(DATASET, folder / DATASET.name)


def _shoot(server: JupyterServer, args: argparse.Namespace) -> None:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, args.chromium)
        try:
            page = browser.new_page(viewport={"width": args.width, "height": args.height})
            console_errors: list[str] = []
            page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
            try:
                run_save_and_shut_down(page, server, NOTEBOOK_FILE, len(REQUESTS), timeout_s=args.timeout)
            except AssertionError as error:  # a wait that ran out: say which
                raise ScreenshotError(f"{error}; rerun with --keep to look.") from error
            states = saved_round_states(server, NOTEBOOK_FILE)
            if any(state != "finished" for state in states):
                raise ScreenshotError(f"Rounds ended {states}, not all finished; rerun with --keep to look.")
            reopen_in_lab(page, NOTEBOOK_FILE)
            _round_cell(page, args.round).locator(".jp-OutputArea-output").first.wait_for()
            cell = _round_cell(page, args.round)
            if cell.locator(WIDGET_OUTPUT).count() or re.search(
                r"(Loading|displaying) widget", cell.inner_text()
            ):
                raise ScreenshotError("the reopened Round asks for its widget, which a saved notebook lacks.")
            _close_side_panel(page)
            # A saved Round shows its code and its answer, the rest folded; --collapse toggles more.
            _collapse_sections(_round_cell(page, args.round), args.collapse or [])
            # Clicking made the Round's cell active (blue bar, cell toolbar): make the first cell active.
            page.evaluate("() => { window.jupyterapp.shell.currentWidget.content.activeCellIndex = 0; }")
            args.out.parent.mkdir(parents=True, exist_ok=True)
            if args.full_page:
                _round_cell(page, args.round).evaluate("n => n.scrollIntoView({block: 'start'})")
                page.wait_for_timeout(500)
                page.screenshot(path=str(args.out))
            else:
                _shoot_cell(page, args)
            for text in console_errors:
                print(f"browser console error: {text}", file=sys.stderr)
        except PlaywrightError as error:
            raise ScreenshotError(f"the browser step failed: {error}") from error
        finally:
            browser.close()


def _shoot_cell(page: Page, args: argparse.Namespace) -> None:
    """Save the Round's cell, whole. The notebook scrolls inside the window, so a cell taller than the
    window would come out cut or blank: grow the window to fit it, then clip the picture to the cell."""
    cell = _round_cell(page, args.round)
    scroll_to_top = "n => n.scrollIntoView({block: 'start'})"
    cell.evaluate(scroll_to_top)
    box = cell.bounding_box()
    if box is None:
        raise ScreenshotError(f"Round {args.round}'s cell is not visible in the notebook.")
    status_bar = 40  # JupyterLab's status bar sits below the notebook
    needed = int(box["y"] + box["height"] + status_bar + 16)
    if needed > args.height:
        page.set_viewport_size({"width": args.width, "height": needed})
        page.wait_for_timeout(300)
        cell.evaluate(scroll_to_top)
    page.wait_for_timeout(500)  # images and layout settle after the scroll
    box = cell.bounding_box()
    margin = 6
    clip = {
        "x": max(box["x"] - margin, 0),
        "y": max(box["y"] - margin, 0),
        "width": box["width"] + 2 * margin,
        "height": box["height"] + 2 * margin,
    }
    page.screenshot(path=str(args.out), clip=clip)


def _collapse_sections(cell: Locator, titles: list[str]) -> None:
    """Click the titles of the Round's foldable sections, as a reader would."""
    for title in titles:
        headers = cell.locator("summary", has_text=title)
        if headers.count() == 0:
            raise ScreenshotError(f"no post section titled {title!r} in that Round; see --collapse.")
        for index in range(headers.count()):
            header = headers.nth(index)
            if header.inner_text().strip() == title:
                header.click()


def _close_side_panel(page: Page) -> None:
    # The file browser takes a third of the width; the picture is about the notebook.
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")


def _round_cell(page: Page, round_number: int) -> Locator:
    """The notebook cell holding the n-th `%%taskweaver` request (its input and its Round output)."""
    return round_cells(page).nth(round_number - 1)


if __name__ == "__main__":
    sys.exit(main())
