"""Where browser tests keep their screenshots: tests/browser/screenshots/ (git-ignored), listed at the end."""

from __future__ import annotations

import re
from pathlib import Path

SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
TAKEN: list[Path] = []  # this run's pictures, for the summary line


def screenshot_path(name: str) -> Path:
    """Where a test saves a picture for a person to look at."""
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', name)}.png"
    TAKEN.append(path)
    return path
