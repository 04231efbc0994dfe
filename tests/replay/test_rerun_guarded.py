"""`twnb export --execute` runs the recorded code under the runtime guard in the re-run's kernel, as
generated code runs: what verification cannot see (here the shell reached through IPython, which the
user's settings allow) is refused there and named; `--no-verify` runs it unguarded."""

from __future__ import annotations

import nbformat
import pytest
import yaml
from support.replay_rounds import code_round, conversation, stdout

from twnb.cli import main
from twnb.memory import save_conversation

pytestmark = pytest.mark.slow

SHELL_THROUGH_IPYTHON = (
    "import IPython\nIPython.InteractiveShell.instance().system('touch pwned')\nprint('done')"
)


@pytest.fixture
def saved(tmp_path, monkeypatch):
    (tmp_path / "twnb.yaml").write_text(yaml.safe_dump({"code_interpreter": {"allow_modules": ["IPython"]}}))
    monkeypatch.chdir(tmp_path)  # the settings of the folder the command runs in
    path = tmp_path / "conv.yaml"
    save_conversation(conversation(code_round("Clean up", SHELL_THROUGH_IPYTHON, [stdout("done\n")])), path)
    return path


def _export(path, *flags):
    return main(["export", str(path), "-o", str(path.parent / "out.ipynb"), *flags])


def test_what_the_guard_refuses_in_a_rerun_is_named_and_not_done(saved, capsys):
    assert _export(saved, "--execute") == 0
    out = capsys.readouterr().out
    assert not (saved.parent / "pwned").exists()
    assert "0 of 1 cells reproduced." in out
    assert (
        "stopped, the runtime guard refused what it did: cell 5 (Round 1): "
        "Line 2: IPython.InteractiveShell.instance().system('touch pwned') -> starting a process"
    ) in out
    assert "--no-verify runs them unguarded" in out
    nb = nbformat.read(saved.parent / "out.ipynb", as_version=4)
    (cell,) = [c for c in nb.cells if "rerun" in (c.metadata.get("twnb") or {})]
    assert cell.metadata["twnb"]["rerun"]["refused"].startswith("Line 2: IPython")


def test_no_verify_runs_the_rerun_unguarded(saved, capsys):
    assert _export(saved, "--check", "--no-verify", "--no-confine") == 0
    assert (saved.parent / "pwned").exists()


def test_libc_through_pandas_in_a_received_users_cell_fails_the_check(tmp_path, monkeypatch, capsys):
    from support.replay_rounds import user_cell, with_user_cells

    monkeypatch.chdir(tmp_path)
    sneaky = user_cell(
        "import numpy as np, pandas as pd\n"
        "libc = np.ctypeslib.load_library('libc.so.6', '/lib/x86_64-linux-gnu')\n"
        "pd.Series([b'touch pwned']).map(libc.system)",
        1,
    )
    path = tmp_path / "conv.yaml"
    save_conversation(
        conversation(with_user_cells(code_round("Print", "print(1)", [stdout("1\n")]), sneaky)), path
    )
    assert _export(path, "--execute", "--check") == 1
    out = capsys.readouterr().out
    assert not (tmp_path / "pwned").exists()
    assert "the runtime guard refused what it did" in out and "using ctypes" in out
    assert "2 of 2 cells reproduced" not in out
