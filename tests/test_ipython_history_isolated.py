"""The tests' shells and kernels keep IPython's history to this test session: no database shared with
other test processes or kernels (tests/conftest.py says why: a shared one fails writes at random)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.nb_run import cell_text, run_notebook

pytestmark = pytest.mark.slow


def test_a_kernel_the_tests_start_keeps_its_history_in_memory(tmp_path: Path) -> None:
    cells = ["import IPython\nprint(IPython.get_ipython().history_manager.hist_file)"]
    nb, _ = run_notebook(tmp_path, cells, {})
    assert cell_text(nb.cells[0]).strip() == ":memory:"


def test_the_in_process_shell_writes_its_history_in_this_sessions_folder_only() -> None:
    from IPython.core.interactiveshell import InteractiveShell

    own = Path(os.environ["IPYTHONDIR"]).resolve()
    assert own != (Path.home() / ".ipython").resolve()
    hist_file = Path(str(InteractiveShell.instance().history_manager.hist_file)).resolve()
    assert own in hist_file.parents
