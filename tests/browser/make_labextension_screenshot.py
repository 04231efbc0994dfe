"""Make the README's screenshot of a saved Round rendered by twnb's JupyterLab extension:
`docs/labextension-round.png`.

Runs `twnb demo` (offline, the bundled scripted replies) into a temporary folder, opens the executed
quickstart notebook in JupyterLab with no kernel (its Rounds come from the saved outputs only), hides the
left sidebar, scrolls the chosen Round's cell to the top and saves the window as a PNG. Needs the built
extension (`cd labextension && npm ci && npm run build`), the `browser` extra and Debian's Chromium
(tests/browser/README.md).

    python tests/browser/make_labextension_screenshot.py [--round 2] [-o docs/labextension-round.png]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
from chromium import launch_chromium, missing_tools
from frontend_server import LABEXTENSION_BUNDLE, JupyterServer, clean_environment
from labextension_page import ROUND_RENDERED, open_without_kernel

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "docs" / "labextension-round.png"
NO_KERNEL = {"name": "twnb-no-kernel", "display_name": "none", "language": "twnb-none"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path, default=DEFAULT_OUT, help="PNG to write")
    parser.add_argument("--round", type=int, default=2, help="which Round of the quickstart (1-3)")
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=1320)
    args = parser.parse_args(argv)
    problem = missing_tools(modules=("playwright", "jupyterlab"))
    if problem or not (LABEXTENSION_BUNDLE / "package.json").is_file():
        print(
            f"cannot make the screenshot: {problem or 'the JupyterLab extension is not built'}",
            file=sys.stderr,
        )
        return 2
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="twnb-labext-shot-") as tmp:
        scratch = Path(tmp)
        root = scratch / "demo"
        subprocess.run([sys.executable, "-m", "twnb.cli", "demo", "-o", str(root)], check=True)
        notebook = root / "quickstart.ipynb"
        nb = nbformat.read(notebook, as_version=4)
        nb.metadata["kernelspec"] = NO_KERNEL  # opened with no kernel: only the saved outputs show
        nb.metadata.pop("language_info", None)
        nbformat.write(nb, notebook)
        env = clean_environment(scratch / "home")
        with JupyterServer("lab", root, scratch, env) as server, sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            try:
                page = browser.new_page(viewport={"width": args.width, "height": args.height})
                open_without_kernel(page, server.notebook_url(notebook.name))
                shown = page.locator(ROUND_RENDERED).nth(args.round - 1)
                shown.wait_for()
                page.evaluate("() => window.jupyterapp.commands.execute('application:toggle-left-area')")
                shown.evaluate("node => node.closest('.jp-Cell').scrollIntoView({block: 'start'})")
                page.locator(".jp-SideBar.jp-mod-left .lm-mod-current").wait_for(state="detached")
                args.out.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(args.out))
            finally:
                browser.close()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
