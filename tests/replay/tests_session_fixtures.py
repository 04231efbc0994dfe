"""tests/session's whole-Round fixtures, loaded from their file for the replay tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "_session_conftest", Path(__file__).resolve().parent.parent / "session" / "conftest.py"
)
assert _spec is not None and _spec.loader is not None
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)

make_session = _module.make_session
recorder = _module.recorder
shell = _module.shell
workdir = _module.workdir
