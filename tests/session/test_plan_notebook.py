"""The session's plan notebook: plans end with their Rounds, are saved with the conversation, and an
earlier one can be recovered so the next Round continues it (its state in the Planner's last message)."""

from __future__ import annotations

import pytest
from session_script import one_step

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


def test_a_finished_rounds_plan_ends_done_in_the_history_and_the_round():
    plans, round = PlanNotebook(), _round("finished")
    plans.round_ended(round, _plan("done", "in_progress"))
    assert [p.state for p in plans.history] == ["done"]
    assert round.extra["plan"]["state"] == "done"


def test_a_failed_rounds_plan_is_abandoned_with_its_unfinished_steps():
    plans = PlanNotebook()
    plans.round_ended(_round("failed"), _plan("done", "in_progress", "todo"))
    assert [s.state for s in plans.history[0].subtasks] == ["done", "abandoned", "abandoned"]
    assert plans.history[0].state == "abandoned"


def test_hooks_hear_every_change():
    plans, heard = PlanNotebook(), []
    plans.register_plan_change_hook("test", lambda notebook: heard.append(len(notebook.history)))
    plans.round_ended(_round("failed"), _plan("in_progress"))
    plans.recover(1)
    assert heard == [1, 1]


def test_recover_makes_a_copy_current_with_abandoned_steps_to_do_again():
    plans = PlanNotebook()
    plans.round_ended(_round("failed"), _plan("done", "in_progress"))
    plan = plans.recover(1)
    assert plans.current is plan and plan.id == plans.history[0].id
    assert [s.state for s in plan.subtasks] == ["done", "todo"] and plan.state == "in_progress"


@pytest.mark.parametrize("number", [0, 2])
def test_recovering_a_plan_that_is_not_there_says_which_exist(number):
    plans = PlanNotebook()
    plans.round_ended(_round("finished"), _plan("done"))
    with pytest.raises(ValueError, match="numbered 1 to 1"):
        plans.recover(number)


def test_the_hint_is_replaceable():
    plans = PlanNotebook(plan_to_hint=lambda plan: f"{len(plan.subtasks)} steps")
    assert plans.hint(_plan("todo", "todo")) == "2 steps" and plans.hint(None) == ""


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
