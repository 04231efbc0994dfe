"""`%taskweaver load X --rerun` runs the recorded code as generated code runs: under the runtime guard,
which refuses what verification cannot see and names it; `--no-verify` runs it unguarded."""

from __future__ import annotations

from pathlib import Path

from support.replay_rounds import code_round, conversation, stdout

from twnb.memory import save_conversation

# A conversation file may come from anyone: this code passes verification once IPython is allowed,
# and reaches the shell.
SHELL_CODE = "import IPython\nIPython.InteractiveShell.instance().system('touch made-by-rerun')\nafter = 1"


def _load(shell, folder: Path, flags: str) -> None:
    save_conversation(conversation(code_round("Tidy", SHELL_CODE, [stdout("")])), folder / "conv.yaml")
    shell.run_line_magic("config", "TaskWeaverMagics.allow_modules = ['IPython']")
    shell.run_line_magic("taskweaver", f"load conv.yaml --rerun {flags}".strip())


def test_the_rerun_runs_under_the_runtime_guard_and_says_what_it_refused(shell, clean_env, capsys):
    _load(shell, clean_env, "")
    err = capsys.readouterr().err
    assert not (clean_env / "made-by-rerun").exists()
    assert (
        "stopped, the runtime guard refused what it did: Round 1's code: "
        "Line 2: IPython.InteractiveShell.instance().system('touch made-by-rerun') -> starting a process"
    ) in err
    assert "--no-verify runs them unchecked" in err


def test_no_verify_runs_the_recorded_code_unguarded(shell, clean_env, capsys):
    _load(shell, clean_env, "--no-verify")
    assert (clean_env / "made-by-rerun").exists()
    assert "runtime guard" not in capsys.readouterr().err
