"""Make the README's screenshot of a Round in JupyterLab: `notebooks/quickstart-round.png`.

Runs the quickstart notebook live in a real JupyterLab, driven by Debian's Chromium through Playwright,
offline: the kernel replays the bundled cassette of scripted replies exactly as `twnb demo` does. It
waits until every Round widget shows `finished`, then saves the chosen Round's cell (its
`%%taskweaver` request and the live widget) as a PNG.

Needs (not project dependencies, so not in pyproject.toml): `pip install jupyterlab playwright` in the
environment where twnb is installed, and `apt-get install chromium`. Never `playwright install`: the
browser is the system one. See tests/browser/README.md.

    python tests/browser/make_readme_screenshot.py [--round 2] [-o notebooks/quickstart-round.png]
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat

from twnb.demo.quickstart import DATASET, REQUESTS, build_quickstart_notebook
from twnb.demo.runner import NOTEBOOK_FILE, kernel_environment

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "notebooks" / "quickstart-round.png"
CHROMIUM = "/usr/bin/chromium"
# Headless, offline and quiet: no GPU, no sandbox (we run as root), no background calls home.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]
# One line of JavaScript per question the script asks the page.
JS_KERNEL_IDLE = (
    "() => window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel?.status === 'idle'"
)
JS_RUN_ALL = "() => window.jupyterapp.commands.execute('notebook:run-all-cells')"
# The Round widget's header is an HTML widget that starts with "twnb <state badge>". textContent, not
# innerText: the latter is empty for cells the browser skips rendering while they are off screen.
JS_ROUND_STATES = """() => Array.from(document.querySelectorAll('.jp-Notebook .jp-Cell .widget-html-content'))
    .map(node => node.textContent.trim())
    .filter(text => /^twnb (created|running|finished|failed|interrupted)\\b/.test(text))
    .map(text => text.split(/\\s+/)[1])"""


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
    _check_tools(args.chromium)
    scratch = Path(tempfile.mkdtemp(prefix="twnb-screenshot-"))
    try:
        notebook_dir = scratch / "nb"
        _write_quickstart(notebook_dir)
        with _jupyter_lab(notebook_dir, scratch) as base_url:
            _shoot(base_url, args, scratch / "chromium-profile")
    finally:
        if args.keep:
            print(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    size_kb = args.out.stat().st_size / 1024
    print(f"wrote {args.out} ({size_kb:.0f} KB)")


def _check_tools(chromium: str) -> None:
    if not Path(chromium).is_file():
        raise ScreenshotError(f"{chromium} not found: run `apt-get update && apt-get install -y chromium`.")
    for module in ("jupyterlab", "playwright"):
        try:
            __import__(module)
        except ImportError:
            raise ScreenshotError(
                f"Python package {module!r} is missing: "
                f"`{sys.executable} -m pip install jupyterlab playwright`"
                " (never `playwright install`; the system Chromium is used)."
            ) from None


def _write_quickstart(folder: Path) -> None:
    folder.mkdir(parents=True)
    nbformat.write(build_quickstart_notebook(), folder / NOTEBOOK_FILE)
    shutil.copyfile(DATASET, folder / DATASET.name)


def _kernel_environment(scratch: Path) -> dict[str, str]:
    """What `twnb demo` gives its kernel (offline replay), plus a JupyterLab kept out of the user's state.

    Kernels inherit the server's environment, so setting it here reaches the notebook's kernel."""
    env = kernel_environment(live=False)
    # A fresh workspace and settings folder: no restored tabs, no user theme in the picture.
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(scratch / "workspaces")
    env["JUPYTERLAB_SETTINGS_DIR"] = str(scratch / "settings")
    _write_lab_settings(scratch / "settings")
    return env


def _write_lab_settings(settings_dir: Path) -> None:
    # Every cell in the DOM: with the default windowing, off-screen cells are skipped or detached, so
    # the Round widgets could neither be polled nor laid out for the picture.
    tracker = settings_dir / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True, exist_ok=True)
    tracker.write_text(json.dumps({"windowingMode": "none"}))
    # No "get notified about Jupyter news?" toast over the picture.
    notification = settings_dir / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True, exist_ok=True)
    notification.write_text(json.dumps({"checkForUpdates": False, "fetchNews": "false"}))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _jupyter_lab(notebook_dir: Path, scratch: Path) -> Iterator[str]:
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}"
    log_path = scratch / "jupyterlab.log"
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
        "--ip", "127.0.0.1", "--port", str(port),
        "--ServerApp.token=", "--ServerApp.password=",
        f"--ServerApp.root_dir={notebook_dir}",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: run commands from the script
        "--LabApp.news_url=None",  # no notification toasts in the picture
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]  # fmt: skip
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            command, cwd=notebook_dir, env=_kernel_environment(scratch), stdout=log, stderr=subprocess.STDOUT
        )
    try:
        _wait_for_server(base_url, server, log_path)
        yield base_url
    finally:
        server.terminate()  # this PID only; it shuts its kernels down
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _wait_for_server(base_url: str, server: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise ScreenshotError(f"jupyter lab exited with {server.returncode}:\n{log_path.read_text()}")
        try:
            with urllib.request.urlopen(f"{base_url}/api/status", timeout=2) as response:
                json.load(response)
                return
        except OSError:
            time.sleep(0.3)
    raise ScreenshotError(f"jupyter lab did not answer on {base_url} within 60 s; log: {log_path}")


def _shoot(base_url: str, args: argparse.Namespace, profile: Path) -> None:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=args.chromium,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": args.width, "height": args.height},
        )
        try:
            page = context.pages[0] if context.pages else context.new_page()
            console_errors: list[str] = []
            page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
            page.goto(f"{base_url}/lab/tree/{NOTEBOOK_FILE}?reset")
            page.wait_for_function(JS_KERNEL_IDLE, timeout=60_000)
            page.evaluate(JS_RUN_ALL)
            states = _wait_for_rounds(page, args.timeout)
            if any(state != "finished" for state in states):
                raise ScreenshotError(f"Rounds ended {states}, not all finished; rerun with --keep to look.")
            _close_side_panel(page)
            # A finished Round folds all but its code and its answer by itself; --collapse toggles more.
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
            context.close()


def _wait_for_rounds(page: Page, timeout: float) -> list[str]:
    """Poll the widgets' state badges until all Rounds have ended; returns their states in order."""
    deadline = time.monotonic() + timeout
    states: list[str] = []
    while time.monotonic() < deadline:
        states = page.evaluate(JS_ROUND_STATES)
        ended = [s for s in states if s not in ("created", "running")]
        if len(ended) == len(REQUESTS):
            return states
        time.sleep(0.5)
    raise ScreenshotError(f"Rounds not finished after {timeout:.0f} s (badges seen: {states}).")


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
    """Click the titles of the Round's post sections (ipywidgets Accordions), as a reader would."""
    for title in titles:
        headers = cell.locator(".jupyter-widget-Collapse-header", has_text=title)
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
    cells = page.locator(".jp-Notebook .jp-Cell.jp-CodeCell")
    return cells.filter(has_text="%%taskweaver").nth(round_number - 1)


if __name__ == "__main__":
    sys.exit(main())
