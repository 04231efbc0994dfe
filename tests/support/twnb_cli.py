"""`twnb` on the command line, as a user runs it: this Python's `python -m twnb.cli` in a folder, with the
test's environment, its output captured and its exit status returned (never raised)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_twnb(cwd: Path, *args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twnb.cli", *args],
        cwd=cwd,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
