"""A state folder of the benchmark's own (XDG_STATE_HOME, inherited by the kernels it starts): a
confined kernel's launcher keeps the notebook folder's quarantine record there
(twnb/config/quarantine.py), and a benchmark's temporary folders would otherwise leave one record
each in the user's `~/.local/state/twnb/quarantine`. Removed when the benchmark ends."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile


def use_private_state() -> str:
    folder = tempfile.mkdtemp(prefix="twnb-bench-state-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ["XDG_STATE_HOME"] = folder
    return folder
