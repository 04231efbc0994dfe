"""The session's plan notebook: it holds the Round's live plan and tells its hooks of each change;
plans end with their Rounds, are saved (and autosaved) with the conversation, and an earlier one can be
recovered so the next Round continues it (its state in the Planner's last message)."""

from __future__ import annotations

import logging

import pytest
from support.session_script import answer, code_reply, one_step, planner_reply

from twnb.memory import Plan, Round, SubTask
from twnb.session.code_request import UserStopped
from twnb.session.plan_notebook import CONVERSATION_KEY, PlanNotebook


def _plan(*states: str) -> Plan:
    subtasks = [SubTask(f"step {i}", f"step {i}", "done", state=s) for i, s in enumerate(states, 1)]
    return Plan("p", "p", "done", subtasks)


def _round(state: str) -> Round:
    round = Round.create(user_query="q")
    round.change_round_state(state)
    return round


def _ended(plans: PlanNotebook, round: Round, plan: Plan) -> None:
    """A Round that ran with `plan` ends."""
    plans.start_round()
    plans.update(plan)
    plans.round_ended(round)


def _listen(plans: PlanNotebook) -> list[Plan | None]:
    heard: list[Plan | None] = []
    plans.register_plan_change_hook("test", lambda notebook, plan: heard.append(plan))
    return heard


def test_a_finished_rounds_plan_ends_done_in_the_history_and_the_round():
    plans, round = PlanNotebook(), _round("finished")
    _ended(plans, round, _plan("done", "in_progress"))
    assert [p.state for p in plans.history] == ["done"]
    assert round.extra["plan"]["state"] == "done"
    assert plans.current is None


def test_a_failed_rounds_plan_is_abandoned_with_its_unfinished_steps():
    plans = PlanNotebook()
    _ended(plans, _round("failed"), _plan("done", "in_progress", "todo"))
    assert [s.state for s in plans.history[0].subtasks] == ["done", "abandoned", "abandoned"]
    assert plans.history[0].state == "abandoned"


def test_the_rounds_new_plan_is_current_and_its_hooks_hear_it():
    plans = PlanNotebook()
    heard = _listen(plans)
    plans.start_round()
    plan = _plan("in_progress", "todo")
    plans.update(plan)
    assert plans.current is plan and heard == [plan]


def test_a_plan_restated_unchanged_calls_no_hook():
    plans = PlanNotebook()
    heard = _listen(plans)
    plans.start_round()
    plans.update(_plan("in_progress", "todo"))
    restated = Plan.from_dict(plans.current.to_dict())
    plans.update(restated)
    assert len(heard) == 1 and plans.current is restated


def test_a_step_that_moves_on_calls_the_hooks_again():
    plans = PlanNotebook()
    heard = _listen(plans)
    plans.start_round()
    first = _plan("in_progress", "todo")
    plans.update(first)
    moved = Plan.from_dict(first.to_dict())
    moved.subtasks[0].state, moved.subtasks[1].state = "done", "in_progress"
    plans.update(moved)
    assert heard == [first, moved]


def test_a_plan_without_steps_is_no_change():
    plans = PlanNotebook()
    heard = _listen(plans)
    plans.start_round()
    plans.update(_plan())
    plans.round_ended(_round("finished"))
    assert heard == [] and plans.history == []


def test_hooks_hear_the_plan_a_round_ended_with_and_a_recovered_one():
    plans, heard = PlanNotebook(), []
    plans.register_plan_change_hook("test", lambda n, p: heard.append((p.state, p.subtasks[0].state)))
    _ended(plans, _round("failed"), _plan("in_progress"))
    plans.recover(1)
    assert heard == [("todo", "in_progress"), ("abandoned", "abandoned"), ("in_progress", "todo")]


def test_a_removed_hook_hears_nothing_more():
    plans = PlanNotebook()
    heard = _listen(plans)
    plans.remove_plan_change_hook("test")
    _ended(plans, _round("finished"), _plan("in_progress"))
    assert heard == [] and plans.plan_change_hooks == ()


def test_a_hook_that_raises_is_logged_and_the_others_still_hear(caplog):
    plans = PlanNotebook()

    def broken(notebook, plan):
        raise RuntimeError("widget gone")

    plans.register_plan_change_hook("broken", broken)
    heard = _listen(plans)
    plans.start_round()
    with caplog.at_level(logging.ERROR):
        plans.update(_plan("in_progress"))
    assert len(heard) == 1 and "'broken' failed" in caplog.text


def test_a_running_rounds_plan_is_not_saved_as_one_to_continue():
    from twnb.memory import Conversation

    plans, conversation = PlanNotebook(), Conversation.init()
    plans.start_round()
    plans.update(_plan("in_progress"))
    plans.save_into(conversation)
    assert CONVERSATION_KEY not in conversation.unknown_keys and plans.waiting is None


def test_no_plan_is_recovered_while_a_round_runs():
    plans = PlanNotebook()
    _ended(plans, _round("finished"), _plan("done"))
    plans.start_round()
    with pytest.raises(ValueError, match="A Round is running"):
        plans.recover(1)


def test_recover_makes_a_copy_current_with_abandoned_steps_to_do_again():
    plans = PlanNotebook()
    _ended(plans, _round("failed"), _plan("done", "in_progress"))
    plan = plans.recover(1)
    assert plans.current is plan and plans.waiting is plan and plan.id == plans.history[0].id
    assert [s.state for s in plan.subtasks] == ["done", "todo"] and plan.state == "in_progress"


@pytest.mark.parametrize("number", [0, 2])
def test_recovering_a_plan_that_is_not_there_says_which_exist(number):
    plans = PlanNotebook()
    _ended(plans, _round("finished"), _plan("done"))
    with pytest.raises(ValueError, match="numbered 1 to 1"):
        plans.recover(number)


def test_the_hint_is_replaceable():
    plans = PlanNotebook(plan_to_hint=lambda plan: f"{len(plan.subtasks)} steps")
    assert plans.hint(_plan("todo", "todo")) == "2 steps" and plans.hint(None) == ""


# --- in a session ---------------------------------------------------------------------------------


def test_a_rounds_hooks_hear_each_plan_change_and_not_a_plan_restated(make_session):
    restated = planner_reply("CodeInterpreter", "Once more.")  # the same step still in progress
    session = make_session(
        {
            "Planner": [planner_reply("CodeInterpreter", "Run it."), restated, answer("Done.")],
            "CodeInterpreter": [code_reply("a = 1"), code_reply("b = 2")],
        }
    )
    heard = _listen(session.plans)
    round = session.run_round("Set a and b")
    states = [[s.state for s in plan.subtasks] for plan in heard]
    assert states == [["in_progress", "todo"], ["done", "done"], ["done", "done"]]  # the last: it ended
    assert round.extra["plan"] == heard[-1].to_dict() and session.plans.history[-1] is heard[-1]


def test_a_plain_round_sends_no_plan_hint_and_records_its_plan(make_session, fake_llm):
    session = make_session(one_step("x = 1"))
    round = session.run_round("Set x")
    assert round.extra["plan"]["state"] == "done"
    for request in fake_llm.chat_requests():
        assert "earlier plan" not in str(request["body"]["messages"])


def test_an_interrupted_rounds_plan_step_is_abandoned(make_session):
    session = make_session(one_step("never = 1"))
    driver = session.round_driver("Set it")
    next(driver)
    with pytest.raises(StopIteration):
        driver.throw(UserStopped())
    assert [s.state for s in session.plans.history[-1].subtasks] == ["abandoned", "abandoned"]


def test_a_recovered_plan_goes_into_the_next_rounds_planner_prompt(make_session, fake_llm):
    session = make_session(one_step("never = 1"))
    driver = session.round_driver("Set it")
    next(driver)
    with pytest.raises(StopIteration):
        driver.throw(UserStopped())
    session.plans.recover(1)
    fake_llm.load(one_step("x = 1"))
    before = len(fake_llm.chat_requests())
    round = session.run_round("Go on")
    planner = [r for r in fake_llm.chat_requests()[before:] if r["role"] == "Planner"]
    last = str(planner[0]["body"]["messages"][-1]["content"])
    assert "continue this earlier plan" in last and "1. Do it (todo)" in last
    assert round.extra["plan_recovered_from"] == session.plans.history[0].id
    assert "earlier plan" not in str(planner[0]["body"]["messages"][0]["content"])  # not the system prompt


def test_plans_survive_save_and_load(make_session, tmp_path):
    session = make_session(one_step("x = 1"))
    session.run_round("Set x")
    session.plans.recover(1)
    path = session.save(tmp_path / "conv.yaml")
    other = make_session(one_step("y = 1"))
    other.load(path)
    assert [p.id for p in other.plans.history] == [p.id for p in session.plans.history]
    assert other.plans.current is not None and other.plans.current.id == session.plans.history[0].id
    import yaml

    saved = yaml.safe_load(path.read_text())
    assert saved[CONVERSATION_KEY]["current"]["id"] == session.plans.history[0].id
    assert saved["rounds"][0]["extra"]["plan"]["state"] == "done"


def test_a_recovered_plan_is_autosaved_and_current_where_the_autosave_is_loaded(make_session):
    session = make_session(one_step("x = 1"))
    round = session.run_round("Set x")
    plan = session.recover_plan(1)
    import yaml

    autosaved = session.autosave_dir / f"{round.id}.yaml"
    assert yaml.safe_load(autosaved.read_text())[CONVERSATION_KEY]["current"]["id"] == plan.id
    fresh = make_session()
    fresh.load(autosaved)
    assert fresh.plans.waiting is not None and fresh.plans.waiting.to_dict() == plan.to_dict()


def test_the_autosave_of_the_round_that_continued_a_plan_offers_it_no_more(make_session, fake_llm):
    session = make_session(one_step("x = 1"))
    session.run_round("Set x")
    session.recover_plan(1)
    fake_llm.load(one_step("y = 2"))
    session.run_round("Go on")
    fresh = make_session()
    fresh.load(session.autosave_dir)
    assert fresh.plans.waiting is None and len(fresh.plans.history) == 2
