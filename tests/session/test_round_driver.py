"""Driving the Round generator by hand, as step mode does: send results, throw Ctrl-C, close()."""

from __future__ import annotations

import pytest
from support.session_script import answer, attachment, kinds, one_step

from twnb.session import CodeRequest


def run_to_end(driver, first):
    """Send `first` into `driver` and return the Round it ends with (StopIteration's value)."""
    with pytest.raises(StopIteration) as stop:
        driver.send(first)
    return stop.value.value


def test_the_driver_yields_the_code_and_finishes_on_the_result_sent_back(make_session, shell):
    session = make_session(one_step("hand = 7\nhand", "It is 7."))
    driver = session.round_driver("Set hand")
    request = next(driver)
    assert isinstance(request, CodeRequest) and request.code == "hand = 7\nhand"
    round = run_to_end(driver, session.executor.run(request.code))
    assert round.state == "finished" and shell.user_ns["hand"] == 7
    assert attachment(round.post_list[2], "execution_status").content == "SUCCESS"
    assert request.post_id == round.post_list[2].id


def test_ctrl_c_thrown_at_the_code_fails_the_round_keeping_the_unrun_code(make_session, shell, recorder):
    session = make_session(one_step("not_run = 1"))
    driver = session.round_driver("Set it", recorder)
    next(driver)
    with pytest.raises(StopIteration) as stop:
        driver.throw(KeyboardInterrupt())
    round = stop.value.value
    assert round.state == "failed" and "interrupted" in round.extra["failure_reason"].lower()
    code_post = round.post_list[-1]
    assert attachment(code_post, "reply_content").content == "not_run = 1"
    assert attachment(code_post, "execution_status").content == "NONE"
    assert "interrupted" in attachment(code_post, "execution_result").content
    assert "not_run" not in shell.user_ns
    assert [type(e).__name__ for e in recorder.events[-2:]] == ["RoundFailed", "RoundEnded"]


def test_close_cancels_the_round_keeping_every_post_and_ends_it(make_session, recorder):
    session = make_session(one_step("not_run = 1"))
    driver = session.round_driver("Set it", recorder)
    request = next(driver)
    driver.close()
    round = session.memory.conversation.rounds[-1]
    assert round.state == "failed" and round.extra["failure_reason"].startswith("Cancelled")
    assert kinds(round)[1:] == [("Planner", "CodeInterpreter"), ("CodeInterpreter", "Planner")]
    assert round.post_list[-1].id == request.post_id
    assert recorder.events[-1].state == "failed" and type(recorder.events[-1]).__name__ == "RoundEnded"


def test_a_cancelled_round_is_autosaved_with_its_posts(make_session):
    from twnb.memory import Conversation

    session = make_session(one_step("not_run = 1"))
    driver = session.round_driver("Set it")
    next(driver)
    driver.close()
    round = session.memory.conversation.rounds[-1]
    saved = Conversation.from_yaml(session.autosave_dir / f"{round.id}.yaml").rounds[0]
    assert saved.state == "failed" and len(saved.post_list) == 3


def test_an_executor_error_thrown_in_fails_the_round_with_the_code_post_kept(make_session):
    session = make_session(one_step("x = 1"))
    driver = session.round_driver("Set x")
    next(driver)
    with pytest.raises(StopIteration) as stop:
        driver.throw(RuntimeError("the kernel died"))
    round = stop.value.value
    assert round.state == "failed" and "RuntimeError: the kernel died" in round.extra["failure_reason"]
    code_post = round.post_list[-1]
    assert attachment(code_post, "execution_status").content == "FAILURE"
    assert "the kernel died" in attachment(code_post, "execution_result").content


def test_sending_something_else_than_a_result_fails_the_round_clearly(make_session):
    session = make_session(one_step("x = 1"))
    driver = session.round_driver("Set x")
    next(driver)
    round = run_to_end(driver, None)
    assert round.state == "failed" and round.extra["failure_reason"].startswith("Unexpected error")
    assert kinds(round)[-1] == ("CodeInterpreter", "Planner")


def test_closing_a_finished_driver_changes_nothing(make_session):
    session = make_session({"Planner": [answer("Hi.")]})
    driver = session.round_driver("hi")
    with pytest.raises(StopIteration) as stop:
        next(driver)
    driver.close()
    assert stop.value.value.state == "finished"
