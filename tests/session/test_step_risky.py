"""Risky step mode as the Round driver runs it, on a real InteractiveShell under the runtime guard:
each piece of code comes graded (why it should wait for the user, or nothing), the post records it, and
what the guard saw the code do that the grades did not predict is recorded in the post and shown with
the Round."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.session_script import one_step

from twnb.render import round_payload, round_text
from twnb.session.code_request import ApprovedRun, CodeRequest, EditedRun
from twnb.session.factory import NotebookParts
from twnb.session.risk_check import RiskCheck


@pytest.fixture
def risky_session(make_session, shell, workdir: Path):
    def make(code: str):
        risk = RiskCheck(
            workdir,
            workdir / ".twnb" / "artifacts",
            namespace=lambda: shell.user_ns,
            hidden=lambda: set(shell.user_ns_hidden),
        )
        return make_session(one_step(code), notebook=NotebookParts(risk=risk))

    return make


def _first_request(session) -> tuple[object, CodeRequest]:
    driver = session.round_driver("Do it", grade_risk=True)
    request = next(driver)
    assert isinstance(request, CodeRequest)
    return driver, request


def _finish(driver, value):
    with pytest.raises(StopIteration) as stop:
        driver.send(value)
    return stop.value.value


def _code_post(round):
    return next(p for p in round.post_list if p.send_from == "CodeInterpreter")


def test_code_that_only_computes_comes_with_no_reason_to_wait_and_says_it_ran_without_asking(
    risky_session, shell
):
    session = risky_session("total = sum(range(5))\ntotal")
    driver, request = _first_request(session)
    assert request.risks == []
    round = _finish(driver, session.execute(request))
    assert shell.user_ns["total"] == 10
    assert _code_post(round).extra["risk"] == {"paused_for": []}
    assert "Ran without asking" in round_text(round_payload(round, session_id="s"))


def test_code_that_overwrites_a_file_comes_with_the_reason(risky_session, workdir):
    (workdir / "sales.csv").write_text("a\n1\n")
    session = risky_session("with open('sales.csv', 'w') as f:\n    f.write('gone')")
    driver, request = _first_request(session)
    assert request.risks == [
        "it overwrites sales.csv, which exists (line 1: with open('sales.csv', 'w') as f:)"
    ]
    round = _finish(driver, ApprovedRun(session.execute(request)))
    post = _code_post(round)
    assert post.extra["risk"] == {"paused_for": request.risks}  # predicted: nothing unpredicted
    assert "You ran this code; it paused because it overwrites sales.csv" in round_text(
        round_payload(round, session_id="s")
    )


def test_a_variable_this_round_created_may_change_in_place_but_the_users_may_not(risky_session, shell):
    shell.run_cell("rows = [1, 2]", store_history=False)
    session = risky_session("rows.append(3)")
    _, request = _first_request(session)
    assert request.risks and "it changes `rows` in place" in request.risks[0]
    shell.user_ns.pop("rows")
    mine = risky_session("mine = []\nmine.append(1)")
    assert _first_request(mine)[1].risks == []


def test_what_the_guard_saw_that_the_grades_did_not_predict_is_recorded_and_shown(
    risky_session, shell, workdir
):
    (workdir / "notes.txt").write_text("the user's notes")
    # The user's own helper writes a file: reading the code that calls it cannot tell.
    shell.run_cell(
        "def tidy():\n    with open('notes.txt', 'w') as f:\n        f.write('')", store_history=False
    )
    session = risky_session("tidy()")
    driver, request = _first_request(session)
    assert request.risks == []
    round = _finish(driver, session.execute(request))
    assert (workdir / "notes.txt").read_text() == ""
    record = _code_post(round).extra["risk"]
    assert record == {"paused_for": [], "unpredicted": ["overwrites a file that existed before: notes.txt"]}
    text = round_text(round_payload(round, session_id="s"))
    assert "The runtime guard saw the code do what verification had not predicted" in text
    assert "notes.txt" in text


def test_a_change_in_place_the_grades_missed_is_recorded_from_the_variable_delta(risky_session, shell):
    import pandas as pd

    shell.user_ns["frame"] = pd.DataFrame({"a": [1, 2]})
    shell.run_cell("def widen(f):\n    f['b'] = 0", store_history=False)
    session = risky_session("widen(frame)")  # a function of the user's: the estimate cannot see into it
    driver, request = _first_request(session)
    assert request.risks == []
    round = _finish(driver, session.execute(request))
    assert _code_post(round).extra["risk"]["unpredicted"] == [
        "changes in place a variable the Round did not create: `frame`"
    ]


def test_an_edit_is_compared_with_its_own_grades_not_the_models(risky_session, workdir):
    (workdir / "kept.txt").write_text("kept")
    session = risky_session("print('nothing risky')")
    driver, request = _first_request(session)
    edit = "import os\nos.remove('kept.txt')"  # the user's edit: its deletion is no surprise
    round = _finish(driver, EditedRun(edit, session.execute(request, edit)))
    assert not (workdir / "kept.txt").exists()
    assert _code_post(round).extra["risk"] == {"paused_for": []}


def test_without_risky_mode_nothing_is_graded_or_recorded(make_session):
    session = make_session(one_step("x = 1"))
    driver = session.round_driver("Do it")
    request = next(driver)
    assert request.risks == []
    round = _finish(driver, session.execute(request))
    assert "risk" not in _code_post(round).extra


def test_unattended_the_code_that_would_wait_is_not_run_and_its_post_and_round_say_why(
    risky_session, workdir: Path
):
    (workdir / "sales.csv").write_text("kept")
    session = risky_session("open('sales.csv', 'w').write('gone')")
    round = session.run_round("Do it", grade_risk=True)
    assert (workdir / "sales.csv").read_text() == "kept"
    assert round.state == "failed"
    assert round.extra["failure_reason"].startswith(
        "Not run: risky mode would have asked before this code because it overwrites sales.csv"
    )
    (result,) = [a for a in _code_post(round).attachment_list if a.type.value == "execution_result"]
    assert result.content == round.extra["failure_reason"]
