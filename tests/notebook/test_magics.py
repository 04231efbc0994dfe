"""`%taskweaver` and `%%taskweaver` in a real InteractiveShell, without an LLM (contract 5)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from IPython.core.error import UsageError
from nb_shell import magics
from support.nb_rounds import analysis_round

from twnb.config.secret_rules import is_secret_name
from twnb.config.table import SETTINGS, SETTINGS_BY_NAME
from twnb.memory import Conversation, save_conversation
from twnb.notebook.extension import forget_kept_conversation
from twnb.notebook.magics import RoundFailedError

CANARY = "sk-canary-0123456789abcdefghijklmnop"


def _saved_conversation(path, rounds=None):
    conversation = Conversation.init()
    for round in rounds or [analysis_round()]:
        conversation.add_round(round)
    save_conversation(conversation, path)
    return conversation


def test_load_ext_registers_line_and_cell_magic(shell):
    assert "taskweaver" in shell.magics_manager.magics["line"]
    assert "taskweaver" in shell.magics_manager.magics["cell"]


def test_unload_ext_removes_the_magics(shell):
    shell.run_line_magic("unload_ext", "twnb")
    try:
        assert "taskweaver" not in shell.magics_manager.magics["line"]
        assert "taskweaver" not in shell.magics_manager.magics["cell"]
        assert "TaskWeaverMagics" not in shell.magics_manager.registry
    finally:
        shell.run_line_magic("load_ext", "twnb")


def test_import_twnb_loads_no_openai_ipywidgets_or_ipython():
    code = (
        "import sys, twnb\n"
        "heavy = [m for m in ('openai', 'ipywidgets', 'IPython', 'pandas', 'yaml') if m in sys.modules]\n"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_load_ext_imports_neither_openai_nor_ipywidgets_nor_opentelemetry():
    code = (
        "import sys\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "InteractiveShell.instance().run_line_magic('load_ext', 'twnb')\n"
        "print([m for m in ('openai', 'ipywidgets', 'pandas', 'opentelemetry') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_question_mark_shows_real_help(shell, capsys):
    shell.run_cell("%taskweaver?")
    out = capsys.readouterr().out
    for text in ("--strict", "--no-verify", "save PATH", "show ROUND_ID", "%%taskweaver"):
        assert text in out


def test_help_subcommand_lists_every_subcommand(shell, capsys):
    shell.run_line_magic("taskweaver", "help")
    out = capsys.readouterr().out
    for name in ("save", "load", "reset", "show", "history", "export", "config", "trace", "help"):
        assert f"    {name}" in out


@pytest.mark.parametrize("ask", ["%taskweaver help", "%taskweaver?"])
def test_help_offers_only_what_exists(shell, capsys, ask):
    shell.run_cell(ask)
    out = capsys.readouterr().out
    for absent in ("not yet", "issue"):
        assert absent not in out.lower()


def test_unknown_subcommand_says_so_and_points_to_the_cell_form(shell, capsys):
    shell.run_line_magic("taskweaver", "plot the data")
    err = capsys.readouterr().err
    assert "Unknown subcommand 'plot'" in err
    assert "%%taskweaver" in err


def test_unknown_flag_is_a_usage_error(shell):
    with pytest.raises(UsageError):
        shell.run_cell_magic("taskweaver", "--fast", "hello")


def test_config_magic_sets_a_traitlet(shell):
    shell.run_line_magic("config", 'TaskWeaverMagics.model = "gpt-test"')
    assert magics(shell).model == "gpt-test"


def test_ipython_config_reaches_the_traitlets(clean_env):
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.config.TaskWeaverMagics.max_posts = 7  # as `c.TaskWeaverMagics.max_posts = 7` in ipython_config.py
    try:
        ip.run_line_magic("load_ext", "twnb")
        assert magics(ip).max_posts == 7
    finally:
        ip.run_line_magic("unload_ext", "twnb")
        forget_kept_conversation(ip)
        ip.config.pop("TaskWeaverMagics", None)


def test_no_traitlet_can_hold_a_key(shell):
    # The traits are the table's traitlet rows (test_setting_traits.py); here, whatever rows are
    # added, a trait whose name looks secret only ever names an environment variable, and no
    # secret row is a trait.
    traits = set(magics(shell).class_traits(config=True))
    secret_looking = {name for name in traits if is_secret_name(name)}
    assert secret_looking, "api_key_env should look secret by name"
    assert all(name.endswith("_env") and SETTINGS_BY_NAME[name].kind == "text" for name in secret_looking)
    assert not traits & {row.name for row in SETTINGS if row.kind == "secret"}


def test_taskweaver_config_shows_values_and_sources(shell, capsys):
    shell.run_line_magic("config", 'TaskWeaverMagics.model = "gpt-test"')
    shell.run_line_magic("taskweaver", "config")
    out = capsys.readouterr().out
    assert "gpt-test" in out
    assert "%config TaskWeaverMagics.model" in out


def test_no_key_in_config_outputs(shell, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    monkeypatch.setenv("MY_KEY", CANARY + "-second")
    shell.run_line_magic("config", 'TaskWeaverMagics.api_key_env = "MY_KEY"')
    shell.run_line_magic("config", "TaskWeaverMagics")
    shell.run_line_magic("taskweaver", "config")
    out = capsys.readouterr()
    assert "MY_KEY" in out.out
    assert "canary" not in out.out + out.err


def test_missing_model_gives_a_clear_message_not_a_traceback(shell, capsys):
    result = shell.run_cell("%%taskweaver\nWhat is 1 + 1?")
    out = capsys.readouterr()
    assert result.success
    assert "No model is configured for twnb" in out.err
    assert "Traceback" not in out.out + out.err


def test_missing_model_with_strict_raises(shell):
    with pytest.raises(RoundFailedError, match="No model is configured"):
        shell.run_cell_magic("taskweaver", "--strict", "What is 1 + 1?")


def test_step_flag_through_run_cell_magic_without_a_kernel_says_why_and_runs_nothing(shell, capsys):
    shell.run_cell_magic("taskweaver", "--step --model m", "x = 1")
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("Step mode needs a Jupyter kernel")
    assert magics(shell).notebook.session is None


def test_empty_cell_asks_for_a_request(shell, capsys):
    shell.run_cell_magic("taskweaver", "", "  \n")
    assert "write the request" in capsys.readouterr().err


def test_save_and_load_round_trip_without_a_session(shell, clean_env, capsys):
    original = _saved_conversation(clean_env / "in.yaml")
    shell.run_line_magic("taskweaver", "load in.yaml")
    shell.run_line_magic("taskweaver", "save out.yaml")
    out = capsys.readouterr().out
    assert "Loaded 1 Round from" in out
    assert "Saved 1 Round to" in out
    assert Conversation.from_yaml(clean_env / "out.yaml").to_dict() == original.to_dict()


def test_load_names_variables_the_kernel_lacks(shell, clean_env, capsys):
    _saved_conversation(clean_env / "in.yaml")
    shell.user_ns["statistics"] = object()
    try:
        shell.run_line_magic("taskweaver", "load in.yaml")
    finally:
        shell.user_ns.pop("statistics")
    out = capsys.readouterr().out
    assert "Variables the conversation made that this kernel lacks: m " in out


def test_load_of_a_bad_file_says_what_is_wrong(shell, clean_env, capsys):
    (clean_env / "bad.yaml").write_text("rounds: 3\n")
    shell.run_line_magic("taskweaver", "load bad.yaml")
    err = capsys.readouterr().err
    assert "Could not load" in err and "bad.yaml" in err


def test_load_of_a_missing_file_says_so(shell, capsys):
    shell.run_line_magic("taskweaver", "load nowhere.yaml")
    assert "No such file" in capsys.readouterr().err


def _autosave(folder, session_id, rounds):
    from twnb.memory import Conversation
    from twnb.session.autosave import round_file_data, write_round

    paths = []
    conversation = Conversation(id="conv-1", rounds=list(rounds))
    for index, round in enumerate(rounds):
        data = round_file_data(
            round, conversation=conversation, session_id=session_id, index=index, redact=dict
        )
        paths.append(write_round(folder / session_id / "rounds", data))
    return paths


def test_load_latest_takes_the_newest_autosaved_conversation(shell, clean_env, capsys):
    import os

    sessions = clean_env / ".twnb"
    (old,) = _autosave(sessions, "old-session", [analysis_round()])
    first, second = analysis_round(), analysis_round()
    _autosave(sessions, "new-session", [first, second])
    os.utime(old, (1, 1))
    shell.run_line_magic("taskweaver", "load --latest")
    assert "Loaded 2 Rounds from" in capsys.readouterr().out
    assert [r.id for r in magics(shell).notebook.conversation.rounds] == [first.id, second.id]


def test_load_latest_without_autosaves_says_where_it_looked(shell, clean_env, capsys):
    shell.run_line_magic("taskweaver", "load --latest")
    assert f"No autosave found under {clean_env / '.twnb'}" in capsys.readouterr().err


def test_show_redisplays_a_loaded_round_by_id(shell, clean_env, capsys):
    round = analysis_round()
    _saved_conversation(clean_env / "in.yaml", [round])
    shell.run_line_magic("taskweaver", "load in.yaml")
    capsys.readouterr()
    shell.run_line_magic("taskweaver", f"show {round.id}")
    out = capsys.readouterr().out
    assert f"twnb Round {round.id} [finished]" in out
    assert "[done] compute the mean" in out


def test_show_of_an_unknown_round_names_the_known_ones(shell, clean_env, capsys):
    round = analysis_round()
    _saved_conversation(clean_env / "in.yaml", [round])
    shell.run_line_magic("taskweaver", "load in.yaml")
    shell.run_line_magic("taskweaver", "show round-nope")
    err = capsys.readouterr().err
    assert "No Round 'round-nope'" in err and round.id in err


def test_history_lists_rounds_as_a_table(shell, clean_env, capsys):
    first, second = analysis_round(), analysis_round()
    second.change_round_state("failed")
    second.extra["failure_reason"] = "Interrupted by the user."
    _saved_conversation(clean_env / "in.yaml", [first, second])
    shell.run_line_magic("taskweaver", "load in.yaml")
    capsys.readouterr()
    shell.run_line_magic("taskweaver", "history")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["#", "round", "state", "posts", "time", "tokens", "cost", "request"]
    assert lines[1].split()[:4] == ["1", first.id, "finished", "4"]
    assert lines[2].split()[:4] == ["2", second.id, "interrupted", "4"]
    assert "1,620" in lines[1]


def test_history_gives_a_rounds_cost_when_its_ledger_has_one(shell, clean_env, capsys):
    from twnb.memory.ledger import Ledger, LedgerEntry
    from twnb.notebook.history_table import COLUMNS, history_rows

    priced, unpriced = analysis_round(), analysis_round()
    priced.extra["ledger"] = Ledger(3.0, [LedgerEntry("llm", "Planner", 0.0, 1.0, cost=0.0123)]).to_dict()
    unpriced.extra["ledger"] = Ledger(3.0, [LedgerEntry("llm", "Planner", 0.0, 1.0)]).to_dict()
    _saved_conversation(clean_env / "in.yaml", [priced, unpriced])
    shell.run_line_magic("taskweaver", "load in.yaml")
    rows = history_rows(magics(shell).notebook.conversation)
    cost = list(COLUMNS).index("cost")
    assert [row[cost] for row in rows] == ["0.0123", "-"]


def test_trace_switches_tracing_and_says_where_spans_go(shell, capsys):
    from twnb.telemetry import switch

    try:
        shell.run_line_magic("taskweaver", "trace console")
        assert "spans go to the console" in capsys.readouterr().out
        assert switch.tracing.mode == "console"
        shell.run_line_magic("taskweaver", "trace")
        assert "Tracing is console" in capsys.readouterr().out
    finally:
        shell.run_line_magic("taskweaver", "trace off")
    assert "Tracing is off." in capsys.readouterr().out
    assert switch.tracing.tracer is None


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("trace loud", "Unknown trace mode 'loud'"),
        ("trace console http://x", "only otlp takes a URL"),
        ("trace otlp localhost:4318", "is not an http(s) URL"),
    ],
)
def test_trace_refuses_bad_input_in_one_line_and_changes_nothing(shell, capsys, line, says):
    from twnb.telemetry import switch

    shell.run_line_magic("taskweaver", line)
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1
    assert switch.tracing.mode == "off"


def test_reset_empties_the_conversation(shell, clean_env, capsys):
    _saved_conversation(clean_env / "in.yaml")
    shell.run_line_magic("taskweaver", "load in.yaml")
    before = magics(shell).notebook.session_id
    shell.run_line_magic("taskweaver", "reset")
    assert magics(shell).notebook.conversation.rounds == []
    assert magics(shell).notebook.session_id != before
    assert "Started a new conversation" in capsys.readouterr().out


def test_subcommand_in_cell_form_is_refused(shell, capsys):
    shell.run_cell_magic("taskweaver", "save x.yaml", "hello")
    assert "subcommands are line magics" in capsys.readouterr().err


def test_reload_ext_keeps_the_conversation(shell, clean_env, capsys):
    round = analysis_round()
    _saved_conversation(clean_env / "in.yaml", [round])
    shell.run_line_magic("taskweaver", "load in.yaml")
    session_id = magics(shell).notebook.session_id
    shell.run_line_magic("reload_ext", "twnb")
    assert [r.id for r in magics(shell).notebook.conversation.rounds] == [round.id]
    assert magics(shell).notebook.session_id == session_id
    assert "carrying on with this kernel's conversation (1 Round)" in capsys.readouterr().out


def test_reload_ext_keeps_config_set_with_the_config_magic(shell):
    shell.run_line_magic("config", 'TaskWeaverMagics.model = "gpt-test"')
    shell.run_line_magic("reload_ext", "twnb")
    assert magics(shell).model == "gpt-test"


def test_show_takes_a_round_number(shell, clean_env, capsys):
    first, second = analysis_round(), analysis_round("The mean is two.")
    _saved_conversation(clean_env / "in.yaml", [first, second])
    shell.run_line_magic("taskweaver", "load in.yaml")
    capsys.readouterr()
    shell.run_line_magic("taskweaver", "show 2")
    assert f"twnb Round {second.id} [finished]" in capsys.readouterr().out


def test_show_without_a_round_gives_usage(shell, capsys):
    shell.run_line_magic("taskweaver", "show")
    assert "Usage: %taskweaver show ROUND_ID" in capsys.readouterr().err


def test_save_to_an_unwritable_place_says_why(shell, clean_env, capsys):
    (clean_env / "afile").write_text("")
    shell.run_line_magic("taskweaver", "save afile/conv.yaml")
    err = capsys.readouterr().err
    assert "Could not save to afile/conv.yaml" in err


def test_save_without_a_path_gives_usage(shell, capsys):
    shell.run_line_magic("taskweaver", "save")
    assert "Usage: %taskweaver save PATH" in capsys.readouterr().err


def test_load_of_a_file_named_ipynb_that_is_no_notebook_says_so_in_one_line(shell, clean_env, capsys):
    (clean_env / "old.ipynb").write_text("{}")
    shell.run_line_magic("taskweaver", "load old.ipynb")
    assert capsys.readouterr().err == (
        "Could not load old.ipynb: not a notebook: no list of cells at its top level; nothing was changed.\n"
    )


def test_load_with_a_path_and_latest_gives_usage(shell, capsys):
    shell.run_line_magic("taskweaver", "load x.yaml --latest")
    assert "Usage: %taskweaver load PATH" in capsys.readouterr().err


def test_bare_line_magic_shows_help(shell, capsys):
    shell.run_line_magic("taskweaver", "")
    assert "Line form: %taskweaver SUBCOMMAND" in capsys.readouterr().out


def test_history_in_a_fresh_kernel_says_how_to_get_the_rounds_back(shell, capsys):
    shell.run_line_magic("taskweaver", "history")
    out = capsys.readouterr().out
    assert "No Rounds in this kernel's session" in out
    assert "%taskweaver load --latest brings back the newest autosave" in out


@pytest.mark.parametrize("ref", ["last", "1", "round-x"])
def test_show_in_a_fresh_kernel_says_how_to_get_the_rounds_back(shell, capsys, ref):
    shell.run_line_magic("taskweaver", f"show {ref}")
    out = capsys.readouterr().out
    assert "No Rounds in this kernel's session" in out
    assert "%taskweaver load --latest brings back the newest autosave" in out


def test_cell_flags_on_a_subcommand_are_refused(shell, capsys):
    shell.run_line_magic("taskweaver", "--strict save x.yaml")
    assert "--strict: for %%taskweaver cells only, not %taskweaver save" in capsys.readouterr().err


def test_latest_on_another_subcommand_is_refused(shell, capsys):
    shell.run_line_magic("taskweaver", "history --latest")
    assert "--latest: for %taskweaver load only" in capsys.readouterr().err


def test_latest_on_a_cell_is_refused(shell, capsys):
    shell.run_cell_magic("taskweaver", "--latest", "hello")
    assert "--latest goes with the line magic" in capsys.readouterr().err
    assert magics(shell).notebook.session is None


def test_history_markdown_shows_a_hostile_request_as_text(shell, clean_env):
    from support.nb_markdown import rendered

    from twnb.notebook.history_table import history_bundle

    conversation = Conversation.init()
    round = analysis_round()
    round.user_query = "![x](https://evil.example/leak.png) | <img src=x onerror=alert(1)>"
    conversation.add_round(round)
    html = rendered(history_bundle(conversation)["text/markdown"])
    assert "<img" not in html
    assert html.count("<td>") == 8  # the pipe in the request did not add a column


def test_step_cell_in_terminal_ipython_is_refused_in_one_line(shell, capsys):
    shell.run_cell("%%taskweaver --step\nSet refused_value to 1.")
    err = capsys.readouterr().err
    assert "Step mode needs a Jupyter kernel" in err and "Nothing was run" in err
    assert "refused_value" not in shell.user_ns


def test_help_lists_step_mode():
    from twnb.notebook.magics import HELP

    assert "--step" in HELP and "TaskWeaverMagics.step" in HELP
