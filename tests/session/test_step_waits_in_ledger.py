"""Step mode's waits for the user's decision are drawn as waiting in the Round's ledger and waterfall,
never as the code's time (a skipped piece of code read "code 1 run 3.5 s" for code that never ran).

The driver is driven as step mode drives it (`waits_for_user=True`), with the person's pause as a real
sleep: the time is what the ledger measures."""

from __future__ import annotations

import time

import pytest
from support.session_script import one_step

from twnb.memory import Ledger
from twnb.render import timeline_html
from twnb.render.timeline import totals_text
from twnb.session.code_request import ApprovedRun, Skipped

PAUSE_S = 0.4  # the person reading the code before deciding
# The code entry may also hold the session's own work around the run (events dispatched to observers,
# the result recorded): far less than the pause, however loaded the machine.
SLACK_S = 0.05


def _decided(make_session, decide):
    session = make_session(one_step("x = 1"))
    driver = session.round_driver("Set x", waits_for_user=True)
    request = next(driver)
    time.sleep(PAUSE_S)
    with pytest.raises(StopIteration) as stop:
        driver.send(decide(session, request))
    return Ledger.from_dict(stop.value.value.extra["ledger"])


def test_the_wait_before_run_is_a_wait_entry_and_the_code_entry_is_the_run_alone(make_session):
    spent: list[float] = []

    def run(session, request):
        started = time.perf_counter()
        result = session.execute(request)
        spent.append(time.perf_counter() - started)  # the run alone, however slow the machine
        return ApprovedRun(result)

    ledger = _decided(make_session, run)
    (wait,), (code,) = ledger.of_kind("wait"), ledger.of_kind("code")
    assert (wait.role, wait.duration_s >= PAUSE_S) == ("User", True)
    assert code.duration_s <= spent[0] + SLACK_S and code.start_s >= wait.end_s - 0.002
    assert ledger.totals()["code_s"] <= spent[0] + SLACK_S
    assert "waiting for you" in totals_text(ledger)


def test_a_skipped_piece_is_all_waiting_and_no_code_time(make_session):
    ledger = _decided(make_session, lambda session, request: Skipped())
    (wait,), (code,) = ledger.of_kind("wait"), ledger.of_kind("code")
    assert wait.duration_s >= PAUSE_S
    assert code.duration_s < SLACK_S and code.status == "skipped"
    drawn = timeline_html(ledger)
    assert "waiting for your decision" in drawn
    assert 'data-kind="wait"' in drawn


def test_a_plain_round_has_no_waits(make_session):
    session = make_session(one_step("x = 1"))
    round = session.run_round("Set x")
    assert Ledger.from_dict(round.extra["ledger"]).of_kind("wait") == []
