"""A Round's ledger (Round.extra["ledger"]): every LLM call and code run, timed, counted and priced,
from whole Rounds on a real InteractiveShell against the loopback LLM server."""

from __future__ import annotations

import pytest
from support.session_script import answer, code_reply, one_step, planner_reply

from twnb.memory.ledger import Ledger

PRICES = {"fake-model": {"input": 2.0, "output": 8.0, "cached": 0.5}}


def _ledger(round) -> Ledger:
    return Ledger.from_dict(round.extra["ledger"])


def test_ledger_has_each_llm_call_and_code_run_in_the_order_they_started(make_session):
    round = make_session(one_step("import time\ntime.sleep(0.2)")).run_round("Wait")
    entries = _ledger(round).entries
    assert [(e.kind, e.role) for e in entries] == [
        ("llm", "Planner"),
        ("llm", "CodeInterpreter"),
        ("code", "CodeInterpreter"),
        ("llm", "Planner"),
    ]
    starts = [e.start_s for e in entries]
    assert starts == sorted(starts)
    assert all(e.end_s <= round.extra["timing"]["duration_s"] + 0.01 for e in entries)


def test_code_run_duration_covers_the_code_and_carries_its_status(make_session):
    round = make_session(one_step("import time\ntime.sleep(0.3)")).run_round("Wait")
    (run,) = _ledger(round).of_kind("code")
    assert 0.3 <= run.duration_s < 3
    assert run.status == "success"
    assert run.post_id == round.post_list[2].id


def test_failed_code_run_names_the_exception(make_session):
    script = {
        "Planner": [planner_reply("CodeInterpreter", "Divide."), answer("It failed.")],
        "CodeInterpreter": [code_reply("1 / 0"), code_reply("'gave up'")],
    }
    round = make_session(script, settings={"max_retries": 1}).run_round("Divide by zero")
    runs = _ledger(round).of_kind("code")
    assert (runs[0].status, runs[0].error_type) == ("error", "ZeroDivisionError")
    assert runs[1].status == "success"


def test_llm_calls_carry_the_servers_token_counts(make_session, fake_llm):
    script = one_step("x = 1")
    script["Planner"][0] = {
        "content": script["Planner"][0],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 50},
    }
    round = make_session(script).run_round("Set x")
    first = _ledger(round).entries[0]
    assert (first.input_tokens, first.output_tokens, first.estimated) == (1000, 50, False)
    assert first.model == "fake-model" and first.status == "stop"
    assert first.time_to_first_token_s is not None and first.time_to_first_token_s <= first.duration_s


def test_totals_add_up_the_entries(make_session):
    round = make_session(one_step("x = 1")).run_round("Set x")
    data = round.extra["ledger"]
    calls = [e for e in data["entries"] if e["kind"] == "llm"]
    assert data["totals"]["input_tokens"] == sum(e["input_tokens"] for e in calls)
    assert data["totals"]["output_tokens"] == sum(e["output_tokens"] for e in calls)
    assert data["totals"]["llm_calls"] == 3 and data["totals"]["code_runs"] == 1
    # The ledger agrees with the usage the Round already summed from its posts.
    assert data["totals"]["input_tokens"] == round.extra["usage"]["prompt_tokens"]


def test_no_prices_means_no_cost(make_session):
    round = make_session(one_step("x = 1")).run_round("Set x")
    ledger = _ledger(round)
    assert all(call.cost is None for call in ledger.of_kind("llm"))
    assert ledger.totals()["cost"] is None


def test_prices_give_each_call_its_cost_and_the_round_the_sum(make_session):
    script = one_step("x = 1")
    script["Planner"][0] = {
        "content": script["Planner"][0],
        "usage": {"prompt_tokens": 1_000_000, "completion_tokens": 1000},
        "cached_tokens": 400_000,
    }
    round = make_session(script, settings={"prices": PRICES}).run_round("Set x")
    ledger = _ledger(round)
    first = ledger.entries[0]
    # 600k uncached at 2.0, 400k cached at 0.5, 1k output at 8.0 per million
    assert first.cost == pytest.approx(1.2 + 0.2 + 0.008)
    assert ledger.totals()["cost"] == pytest.approx(sum(c.cost for c in ledger.of_kind("llm")))


def test_a_model_without_a_price_gets_no_cost_and_the_round_no_total(make_session):
    round = make_session(
        one_step("x = 1"), settings={"prices": {"other-model": PRICES["fake-model"]}}
    ).run_round("Set x")
    ledger = _ledger(round)
    assert [c.cost for c in ledger.of_kind("llm")] == [None, None, None]
    assert ledger.totals()["cost"] is None and ledger.totals()["unpriced_calls"] == 3


def test_estimated_counts_get_no_cost(make_session):
    script = one_step("x = 1")
    script["Planner"][0] = {"content": script["Planner"][0], "usage": None}
    round = make_session(script, settings={"prices": PRICES}).run_round("Set x")
    first = _ledger(round).entries[0]
    assert first.estimated and first.cost is None
    assert _ledger(round).totals()["cost"] is None


def test_cached_tokens_without_a_cached_price_get_no_cost(make_session):
    script = one_step("x = 1")
    script["Planner"][0] = {"content": script["Planner"][0], "cached_tokens": 10}
    prices = {"fake-model": {"input": 2.0, "output": 8.0}}
    round = make_session(script, settings={"prices": prices}).run_round("Set x")
    calls = _ledger(round).of_kind("llm")
    assert calls[0].cost is None
    assert calls[1].cost is not None  # no cached tokens there: the price covers it


def test_a_dropped_stream_is_its_own_entry_named_by_its_error(make_session):
    script = one_step("x = 1")
    script["Planner"][0] = {"content": script["Planner"][0], "drop_after_chars": 20}
    round = make_session(script).run_round("Set x")
    calls = _ledger(round).of_kind("llm")
    assert [(c.role, c.status) for c in calls] == [
        ("Planner", "LLMStreamDropped"),
        ("Planner", "stop"),
        ("CodeInterpreter", "stop"),
        ("Planner", "stop"),
    ]
    assert calls[0].error_type == "LLMStreamDropped"


def test_a_failed_round_keeps_its_ledger(make_session):
    script = {"Planner": [{"content": "x", "fault": "http_500", "times": 5}]}
    round = make_session(script).run_round("Anything")
    assert round.state == "failed"
    (call,) = _ledger(round).entries
    assert call.status == "LLMServerError" and call.duration_s is not None


def test_the_ledger_is_autosaved_with_the_round(make_session):
    from twnb.session.conversation_store import load_conversation_file

    session = make_session(one_step("x = 1"))
    round = session.run_round("Set x")
    loaded = load_conversation_file(session.autosave_dir)
    assert loaded.rounds[-1].extra["ledger"] == round.extra["ledger"]
