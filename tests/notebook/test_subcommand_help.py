"""Each `%taskweaver` subcommand has its own parser and help, from the one table (subcommand_table.py),
in a real InteractiveShell."""

from __future__ import annotations

import pytest

from twnb.notebook.subcommand_table import SUBCOMMANDS


@pytest.mark.parametrize("subcommand", SUBCOMMANDS, ids=lambda each: each.name)
def test_help_of_a_subcommand_shows_its_usage_and_only_its_flags(shell, capsys, subcommand):
    shell.run_line_magic("taskweaver", f"help {subcommand.name}")
    out = capsys.readouterr().out
    assert out.startswith(f"Usage: %taskweaver {subcommand.usage}\n")
    others = {flag.name for each in SUBCOMMANDS if each is not subcommand for flag in each.flags}
    own = {flag.name for flag in subcommand.flags}
    assert all(flag in out for flag in own)
    assert not any(flag in out for flag in others - own)


def test_load_help_says_which_flags_go_with_rerun(shell, capsys):
    shell.run_line_magic("taskweaver", "help load")
    out = " ".join(capsys.readouterr().out.split())
    assert "--no-verify run the recorded code unchecked (with --rerun)" in out
    assert "--user-cells also run the user's own recorded cells, without asking (with --rerun)" in out


def test_help_of_an_unknown_name_is_the_whole_help(shell, capsys):
    shell.run_line_magic("taskweaver", "help plot")
    assert "Line form: %taskweaver SUBCOMMAND" in capsys.readouterr().out
