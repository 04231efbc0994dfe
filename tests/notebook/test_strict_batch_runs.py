"""Batch runs fail loudly: the `strict` setting (TWNB_STRICT, `session.strict`, `%config
TaskWeaverMagics.strict`) makes every `%%taskweaver` cell whose Round does not finish raise, so nbclient
and papermill exit non-zero; and `%taskweaver save` never replaces a conversation file holding more
Rounds without --force."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from support.nb_run import llm_env
from support.nb_scripts import answer_round, failing_round

from twnb.memory import Conversation, load_conversation, save_conversation
from twnb.notebook.magics import RoundFailedError


def test_the_strict_setting_in_the_environment_makes_a_round_without_a_model_raise(shell, monkeypatch):
    monkeypatch.setenv("TWNB_STRICT", "1")
    with pytest.raises(RoundFailedError, match="No model is configured"):
        shell.run_cell_magic("taskweaver", "", "What is 1 + 1?")


def test_the_strict_setting_from_config_makes_a_round_without_a_model_raise(shell):
    shell.run_line_magic("config", "TaskWeaverMagics.strict = True")
    with pytest.raises(RoundFailedError, match="No model is configured"):
        shell.run_cell_magic("taskweaver", "", "What is 1 + 1?")


def test_the_strict_setting_in_twnb_yaml_makes_an_empty_cell_raise(shell, clean_env):
    (clean_env / "twnb.yaml").write_text("session:\n  strict: true\n", encoding="utf-8")
    with pytest.raises(RoundFailedError, match="The cell is empty"):
        shell.run_cell_magic("taskweaver", "", "   ")


def test_without_strict_a_round_without_a_model_only_says_why(shell, capsys):
    result = shell.run_cell("%%taskweaver\nWhat is 1 + 1?")
    assert result.success and "No model is configured" in capsys.readouterr().err


def test_broken_settings_still_raise_under_strict_from_the_environment(shell, clean_env, monkeypatch):
    (clean_env / "twnb.yaml").write_text("code_interpreter:\n  timeout: soon\n", encoding="utf-8")
    monkeypatch.setenv("TWNB_STRICT", "yes")
    with pytest.raises(RoundFailedError, match="timeout"):
        shell.run_cell_magic("taskweaver", "--model m", "What is 1 + 1?")


def _two_rounds(folder: Path) -> Path:
    from support.nb_rounds import analysis_round

    conversation = Conversation.init()
    conversation.add_round(analysis_round())
    conversation.add_round(analysis_round("Still 2."))
    path = folder / "conv.yaml"
    save_conversation(conversation, path)
    return path


def test_save_refuses_to_replace_a_file_holding_more_rounds(shell, clean_env, capsys):
    path = _two_rounds(clean_env)
    before = path.read_bytes()
    shell.run_line_magic("taskweaver", "save conv.yaml")
    err = capsys.readouterr().err
    assert "conv.yaml holds 2 Rounds and this conversation has 0: nothing was written" in err
    assert "--force" in err
    assert path.read_bytes() == before


def test_save_with_force_replaces_a_file_holding_more_rounds(shell, clean_env, capsys):
    path = _two_rounds(clean_env)
    shell.run_line_magic("taskweaver", "save conv.yaml --force")
    assert "Saved 0 Rounds to conv.yaml" in capsys.readouterr().out
    assert load_conversation(path).rounds == []


def test_save_replaces_a_file_holding_as_many_rounds_or_fewer(shell, clean_env, capsys):
    _two_rounds(clean_env)
    shell.run_line_magic("taskweaver", "load conv.yaml")
    shell.run_line_magic("taskweaver", "save conv.yaml")
    assert "Saved 2 Rounds to conv.yaml" in capsys.readouterr().out


def test_force_goes_with_save_export_and_undo_only(shell, capsys):
    shell.run_line_magic("taskweaver", "history --force")
    assert (
        "--force: for %taskweaver save, export or undo only, not %taskweaver history"
        in capsys.readouterr().err
    )


def _papermill(folder: Path, cells: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The papermill command line on a notebook of `cells`, in `folder`, with `env` as the environment."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, folder / "in.ipynb")
    command = [sys.executable, "-m", "papermill", "in.ipynb", "out.ipynb", "--kernel", "python3"]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def _environment(extra: dict[str, str]) -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AZURE_", "TWNB_", "LLM_"))}
    env.update(extra)
    return env


def _strict_llm_environment(fake_llm: object, folder: Path) -> dict[str, str]:
    return _environment({**llm_env(fake_llm, folder), "TWNB_STRICT": "1"})


ROUND_CELLS = ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?", "print('after the Round')"]


@pytest.mark.slow
def test_papermill_exits_non_zero_when_a_round_fails_under_twnb_strict(fake_llm, tmp_path):
    fake_llm.load(failing_round())
    proc = _papermill(tmp_path, ROUND_CELLS, _strict_llm_environment(fake_llm, tmp_path))
    assert proc.returncode != 0
    assert "RoundFailedError" in proc.stderr
    ran = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    (after,) = [cell for cell in ran.cells if cell.source == ROUND_CELLS[2]]
    assert not after.outputs  # the run stopped at the failed Round


@pytest.mark.slow
def test_papermill_exits_non_zero_without_a_model_under_twnb_strict(tmp_path):
    env = _environment({"TWNB_STRICT": "1", "HOME": str(tmp_path)})
    proc = _papermill(tmp_path, ROUND_CELLS, env)
    assert proc.returncode != 0
    assert "No model is configured" in proc.stderr


@pytest.mark.slow
def test_papermill_exits_zero_when_the_rounds_finish_under_twnb_strict(fake_llm, tmp_path):
    fake_llm.load(answer_round())
    proc = _papermill(tmp_path, ROUND_CELLS, _strict_llm_environment(fake_llm, tmp_path))
    assert proc.returncode == 0, proc.stderr
