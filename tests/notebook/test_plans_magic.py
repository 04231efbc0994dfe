"""`%taskweaver plans` and `plans recover N` on a loaded conversation (no model needed)."""

from __future__ import annotations

from nb_shell import magics

from twnb.memory import Conversation, Plan, Round, SubTask, save_conversation
from twnb.session.plan_notebook import CONVERSATION_KEY


def _conversation_with_a_plan(path):
    round = Round.create(user_query="Plot it", state="failed")
    plan = Plan("p", "p", "done", [SubTask("Load the data", "", ""), SubTask("Plot it", "", "")])
    plan.finish("abandoned", "stopped")
    round.extra["plan"] = plan.to_dict()
    conversation = Conversation.init()
    conversation.add_round(round)
    save_conversation(conversation, path)
    return plan


def test_plans_lists_the_history_from_a_loaded_conversation(shell, tmp_path, capsys):
    _conversation_with_a_plan(tmp_path / "c.yaml")
    shell.run_line_magic("taskweaver", f"load {tmp_path / 'c.yaml'}")
    shell.run_line_magic("taskweaver", "plans")
    out = capsys.readouterr().out
    assert "abandoned" in out and "Load the data; Plot it" in out


def test_recover_makes_the_plan_current_and_it_is_saved_with_the_conversation(shell, tmp_path, capsys):
    plan = _conversation_with_a_plan(tmp_path / "c.yaml")
    shell.run_line_magic("taskweaver", f"load {tmp_path / 'c.yaml'}")
    shell.run_line_magic("taskweaver", "plans recover 1")
    assert "Plan 1 (2 steps) is current" in capsys.readouterr().out
    kept = magics(shell).notebook.conversation.unknown_keys[CONVERSATION_KEY]["current"]
    assert kept["id"] == plan.id and kept["state"] == "in_progress"


def test_recovering_a_plan_that_does_not_exist_says_so_in_one_line(shell, capsys):
    shell.run_line_magic("taskweaver", "plans recover 3")
    (line,) = capsys.readouterr().err.splitlines()
    assert "There are no earlier plans yet" in line


def test_a_recovered_plan_is_autosaved_and_load_latest_brings_it_back(shell, tmp_path, clean_env):
    plan = _conversation_with_a_plan(tmp_path / "c.yaml")
    shell.run_line_magic("taskweaver", f"load {tmp_path / 'c.yaml'}")
    shell.run_line_magic("taskweaver", "plans recover 1")
    shell.run_line_magic("taskweaver", "reset")
    assert magics(shell).notebook.plans.waiting is None
    shell.run_line_magic("taskweaver", "load --latest")
    waiting = magics(shell).notebook.plans.waiting
    assert waiting is not None and waiting.id == plan.id
