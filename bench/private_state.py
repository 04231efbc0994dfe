"""A state folder of the benchmark's own (XDG_STATE_HOME, inherited by the kernels it starts): a
confined kernel's launcher keeps the notebook folder's quarantine record there
(twnb/config/quarantine.py), and a benchmark's temporary folders would otherwise leave one record
each in the user's `~/.local/state/twnb/quarantine`. Removed when the benchmark ends, once the last
kernels' wardens wrote their ends (or after WARDEN_WAIT_S: they then say on stderr that they could
not)."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

WARDEN_WAIT_S = 15.0


def use_private_state() -> str:
    folder = tempfile.mkdtemp(prefix="twnb-bench-state-")
    atexit.register(_remove_when_ended, Path(folder))
    os.environ["XDG_STATE_HOME"] = folder
    return folder


def _remove_when_ended(folder: Path) -> None:
    deadline = time.monotonic() + WARDEN_WAIT_S
    while time.monotonic() < deadline and any(
        _sessions(r) for r in folder.glob("twnb/quarantine/*/record.json")
    ):
        time.sleep(0.1)
    shutil.rmtree(folder, ignore_errors=True)


def _sessions(record: Path) -> bool:
    try:
        return bool(json.loads(record.read_text(encoding="utf-8")).get("sessions"))
    except (OSError, ValueError):
        return False
