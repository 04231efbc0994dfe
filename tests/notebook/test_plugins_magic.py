"""`%taskweaver plugins`, `%taskweaver plugins add NAME` and `--plugin-only` in a real InteractiveShell
(no model needed to list plugins)."""

from __future__ import annotations

import shutil
from pathlib import Path

from nb_shell import magics

DATA = Path(__file__).parents[1] / "plugins" / "data" / "taskweaver"


def test_plugins_lists_every_plugin_with_its_source_state_and_why_not(shell, clean_env, capsys):
    shutil.copytree(DATA, clean_env / "plugins")
    shell.run_line_magic("taskweaver", "plugins")
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines() if line.split() and "taskweaver" in line}
    assert "loaded" in rows["sales_report"] and "sums the sales" in rows["sales_report"]
    assert "not loaded" in rows["fetch_forecast"] and "needs the module" in rows["fetch_forecast"]
    assert "disabled" in rows["retired_tool"]
    assert "3 of 6 can be used" in out


def test_plugins_without_any_says_where_plugins_come_from(shell, capsys):
    shell.run_line_magic("taskweaver", "plugins")
    assert (
        "No plugins. TaskWeaver plugins go in a plugins/ folder beside the notebook"
        in capsys.readouterr().out
    )


def test_plugins_add_makes_a_notebook_function_a_plugin(shell, capsys):
    shell.run_cell("def double(x: float) -> float:\n    '''Twice x.'''\n    return 2 * x\n")
    shell.run_line_magic("taskweaver", "plugins add double")
    assert "double is a plugin from the next Round on" in capsys.readouterr().out
    assert magics(shell).notebook.plugin_names == ["double"]
    shell.run_line_magic("taskweaver", "plugins")
    out = capsys.readouterr().out
    assert "double" in out and "notebook" in out and "Twice x." in out


def test_plugins_add_of_something_that_is_no_function_says_so(shell, capsys):
    shell.run_cell("threshold = 3")
    shell.run_line_magic("taskweaver", "plugins add threshold")
    shell.run_line_magic("taskweaver", "plugins add nowhere")
    err = capsys.readouterr().err
    assert "threshold in the notebook is a int, not a function: define it first." in err
    assert "nowhere in the notebook is nothing, not a function" in err
    assert magics(shell).notebook.plugin_names == []


def test_plugin_only_is_a_flag_of_cells_not_of_subcommands(shell, capsys):
    shell.run_line_magic("taskweaver", "--plugin-only history")
    assert "--plugin-only: for %%taskweaver cells only" in capsys.readouterr().err


def test_plugin_only_flag_or_setting_makes_the_round_plugin_only(shell):
    from IPython.core.magic_arguments import parse_argstring

    taskweaver = magics(shell)
    assert taskweaver.round_is_plugin_only(parse_argstring(taskweaver.taskweaver, "--plugin-only"))
    assert not taskweaver.round_is_plugin_only(parse_argstring(taskweaver.taskweaver, ""))
    shell.run_line_magic("config", "TaskWeaverMagics.plugin_only = True")
    assert taskweaver.round_is_plugin_only(parse_argstring(taskweaver.taskweaver, ""))
