"""The render tests reuse the notebook tests' Round builders and Markdown renderer (tests/notebook)."""

from __future__ import annotations

import sys
from pathlib import Path

_NOTEBOOK_TESTS = str(Path(__file__).resolve().parent.parent / "notebook")
if _NOTEBOOK_TESTS not in sys.path:
    sys.path.insert(0, _NOTEBOOK_TESTS)
