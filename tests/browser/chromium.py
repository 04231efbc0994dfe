"""Debian's Chromium driven by Playwright (sync API), never a browser Playwright downloads itself."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

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
INSTALL_HINT = "apt-get update && apt-get install -y chromium"


def missing_tools(chromium: str = CHROMIUM, modules: tuple[str, ...] = ("playwright", "jupyterlab")) -> str:
    """Why the browser bench cannot run here, with what to do; empty when it can."""
    if not Path(chromium).is_file():
        return f"{chromium} not found: run `{INSTALL_HINT}` (never `playwright install`)."
    for module in modules:
        try:
            __import__(module)
        except ImportError:
            return (
                f"Python package {module!r} is missing: `{sys.executable} -m pip install -e '.[browser]'`"
                " (the system Chromium is used; never `playwright install`)."
            )
    return ""


def launch_chromium(playwright: Playwright, chromium: str = CHROMIUM) -> Browser:
    """Headless Chromium with its own throwaway profile."""
    # Playwright would otherwise look for (and offer to download) its own browser builds.
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    return playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
