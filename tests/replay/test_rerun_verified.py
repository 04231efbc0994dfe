"""`twnb export --execute` verifies the recorded code as generated code is verified before it runs again:
a file from elsewhere cannot run a shell through it. Refused cells are left as recorded and named;
`--no-verify` runs them unchecked."""

from __future__ import annotations

import pytest
from support.replay_rounds import code_round, conversation, stdout, user_cell, with_user_cells

from twnb.cli import main
from twnb.memory import save_conversation

pytestmark = pytest.mark.slow

SHELL_OUT = "import os\nos.system('touch pwned')\nprint('done')"


def _saved(tmp_path, *rounds):
    path = tmp_path / "conv.yaml"
    save_conversation(conversation(*rounds), path)
    return path


def _export(path, *flags):
    return main(["export", str(path), "-o", str(path.parent / "out.ipynb"), *flags])


def test_recorded_code_verification_refuses_does_not_run_and_is_named(tmp_path, capsys):
    path = _saved(tmp_path, code_round("Clean up", SHELL_OUT, [stdout("done\n")]))
    assert _export(path, "--execute") == 0
    out = capsys.readouterr().out
    assert not (tmp_path / "pwned").exists()
    assert "0 of 1 cells reproduced." in out
    assert "not run, verification refused it: cell 5 (Round 1): Line 2: os.system('touch pwned')" in out
    assert "--no-verify runs them unchecked" in out


def test_a_refused_users_cell_is_not_run_either(tmp_path, capsys):
    sneaky = user_cell("import subprocess\nsubprocess.run(['touch', 'pwned'])", 1)
    path = _saved(tmp_path, with_user_cells(code_round("Print", "print(1)", [stdout("1\n")]), sneaky))
    _export(path, "--execute")
    assert not (tmp_path / "pwned").exists()
    assert "(your cell before Round 1): Line 1: import subprocess" in capsys.readouterr().out


def test_check_exits_1_when_a_cell_was_refused(tmp_path, capsys):
    path = _saved(tmp_path, code_round("Clean up", SHELL_OUT, [stdout("done\n")]))
    assert _export(path, "--check") == 1


def test_the_refusal_is_kept_in_the_cells_metadata(tmp_path, capsys):
    import nbformat

    path = _saved(tmp_path, code_round("Clean up", SHELL_OUT, [stdout("done\n")]))
    _export(path, "--execute")
    nb = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    (cell,) = [c for c in nb.cells if "rerun" in (c.metadata.get("twnb") or {})]
    assert cell.metadata["twnb"]["rerun"]["refused"].startswith("Line 2: os.system")
    assert cell.outputs[0]["text"] == "done\n"  # left as recorded


def test_no_verify_runs_the_recorded_code_unchecked(tmp_path, capsys):
    path = _saved(tmp_path, code_round("Clean up", SHELL_OUT, [stdout("done\n")]))
    assert _export(path, "--check", "--no-verify", "--no-confine") == 0
    assert (tmp_path / "pwned").exists()
    assert "1 of 1 cells reproduced." in capsys.readouterr().out
