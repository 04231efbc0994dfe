"""A test that starts a kernel is marked `slow` (or `browser`): tests/conftest.py fails one marked
neither, so the fast lane (`bash tests/run.sh --fast`, `-m "not slow and not browser"`) starts none."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

TESTS = Path(__file__).resolve().parent

CASES = """
import pytest
from support.nb_run import run_notebook


def test_unmarked_kernel(tmp_path):
    run_notebook(tmp_path, ["1 + 1"], {})


@pytest.mark.slow
def test_marked_kernel(tmp_path):
    run_notebook(tmp_path, ["1 + 1"], {})


def test_unmarked_without_kernel():
    assert 1 + 1 == 2
"""


def test_an_unmarked_test_that_starts_a_kernel_fails_and_a_marked_one_passes(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(TESTS / "conftest.py", suite / "conftest.py")
    (suite / "test_cases.py").write_text(CASES, encoding="utf-8")
    (suite / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: starts kernels\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parent), str(TESTS)])}

    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", str(suite)],
        cwd=suite,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )

    out = run.stdout
    assert "ERROR test_cases.py::test_unmarked_kernel" in out, out
    assert "test_unmarked_kernel started 1 kernel(s) but is marked neither slow nor browser" in out, out
    assert "PASSED test_cases.py::test_marked_kernel" in out, out
    assert "PASSED test_cases.py::test_unmarked_without_kernel" in out, out
    assert "3 passed, 1 error" in out, out
