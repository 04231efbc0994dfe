"""`%taskweaver load X --rerun` binds the notebook's plugins (the settings' plugin folders, the user's
own @twnb.plugin functions) before the recorded code runs again, as a Round does, and says in one line
which plugin the code calls that is not there and how to provide it."""

from __future__ import annotations

import pytest
from support.plugin_folder import counted_conversation, write_plugin_folder
from support.replay_rounds import user_cell, with_user_cells
from support.shell_reset import reset_shell

from twnb.memory import save_conversation


@pytest.fixture(autouse=True)
def empty_namespace(shell):
    """The one InteractiveShell outlives each test: no variable of an earlier one may answer here."""
    reset_shell(shell)


def test_a_plugin_of_the_folder_is_bound_before_the_code_runs_again(shell, clean_env, capsys):
    write_plugin_folder(clean_env)
    save_conversation(counted_conversation(), clean_env / "conv.yaml")
    shell.run_line_magic("taskweaver", "load conv.yaml --rerun")
    captured = capsys.readouterr()
    assert shell.user_ns["words"] == 3
    assert "Re-ran the recorded code of 1 cell here." in captured.out
    assert "word_count" not in captured.out + captured.err


def test_the_users_own_plugin_function_is_bound_as_a_plugin(shell, clean_env, capsys):
    (clean_env / "notes.txt").write_text("one two\nthree\n")
    save_conversation(counted_conversation(), clean_env / "conv.yaml")
    shell.run_cell(
        "import subprocess, twnb\n"
        "@twnb.plugin\ndef word_count(path: str) -> int:\n"
        "    '''The words of a file, as wc counts them.'''\n"
        "    return int(subprocess.run(['wc', '-w', path], capture_output=True, text=True).stdout.split()[0])"
    )
    shell.run_line_magic("taskweaver", "load conv.yaml --rerun")
    captured = capsys.readouterr()
    assert shell.user_ns["words"] == 3, captured.err
    assert callable(shell.user_ns["word_count"]) and shell.user_ns["word_count"].__module__ == "__main__"


def test_a_plugin_that_is_not_there_is_named_with_how_to_provide_it(shell, clean_env, capsys):
    save_conversation(counted_conversation(), clean_env / "conv.yaml")
    shell.run_line_magic("taskweaver", "load conv.yaml --rerun")
    captured = capsys.readouterr()
    assert (
        "The plugin word_count that the recorded code calls is not here: put its TaskWeaver plugin folder "
        "in plugin_dirs (or plugins/ beside the notebook), its MCP server in twnb.yaml's mcp.servers, or "
        "define word_count with @twnb.plugin in a cell first."
    ) in captured.err
    assert "comes from outside the notebook" not in captured.out


def test_a_plugin_function_a_recorded_cell_defines_has_no_plugins_trust(shell, clean_env, capsys):
    # the conversation file may come from anyone: its cells are recorded code, guarded as such
    (clean_env / "notes.txt").write_text("one two\nthree\n")
    # the user's settings let code import IPython: verification passes the cell, the guard still acts
    (clean_env / "twnb.yaml").write_text("code_interpreter:\n  allow_modules: [IPython, twnb]\n")
    recorded = counted_conversation()
    with_user_cells(
        recorded.rounds[0],
        user_cell(
            "import IPython, twnb\n"
            "@twnb.plugin\ndef word_count(path: str) -> int:\n"
            "    '''The words of a file, as wc counts them.'''\n"
            "    IPython.InteractiveShell.instance().system('wc -w ' + path)\n"
            "    return 3",
            1,
            made=("word_count",),
        ),
    )
    save_conversation(recorded, clean_env / "conv.yaml")
    shell.run_line_magic("taskweaver", "load conv.yaml --rerun --user-cells")
    captured = capsys.readouterr()
    assert "words" not in shell.user_ns
    assert "stopped, the runtime guard refused what it did: Round 1's code:" in captured.err
    assert "starting a process (os.forkpty) is not allowed" in captured.err
