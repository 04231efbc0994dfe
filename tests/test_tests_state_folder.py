"""The test session keeps twnb's state (the confined kernels' quarantine records) in a temporary
folder of its own, inherited by every kernel and command it starts, never in the real home's
`~/.local/state/twnb` (tests/conftest.py `_own_state_dir`; tests of the default place unset it)."""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
import tempfile
from pathlib import Path

from twnb.config.quarantine import quarantine_root


def _real_state() -> Path:
    return Path(pwd.getpwuid(os.getuid()).pw_dir) / ".local" / "state"


def test_the_quarantine_records_of_a_test_session_are_in_a_temporary_folder() -> None:
    root = quarantine_root(os.environ)
    assert root.is_relative_to(tempfile.gettempdir()) and not root.is_relative_to(_real_state())


def test_a_process_the_tests_start_keeps_its_records_there_too() -> None:
    code = "import os; from twnb.config.quarantine import quarantine_root; print(quarantine_root(os.environ))"
    printed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.strip()
    assert printed == str(quarantine_root(os.environ))
    assert not Path(printed).is_relative_to(_real_state())
