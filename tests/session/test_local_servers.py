"""Whole Rounds against the loopback server acting like the servers people run themselves: each surprise
ends the Round with one clear line, at once, or is got through (a context learned and fitted to, an error
event retried)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.session_script import answer, code_reply, one_step, planner_reply

from twnb.llm.deadlines import LLMDeadlines

FORMAT_ERROR = "output does not match the expected format"


@pytest.fixture
def session_with(fake_llm: Any, shell: Any, workdir: Path):
    """A session like make_session's, with the client's deadlines and other options chosen."""
    from twnb.config import ResolvedSettings, Settings
    from twnb.kernel import LiveShellExecutor
    from twnb.llm import ClientLimits, OpenAIChatClient
    from twnb.session import build_session

    def make(script: dict[str, Any], *, settings: dict[str, Any] | None = None, **client_options: Any):
        fake_llm.load(script)
        folder = workdir / ".twnb"
        executor = LiveShellExecutor(shell, workdir, folder / "artifacts", session_dir=folder)
        client_options.setdefault("timeout", 5.0)
        client = OpenAIChatClient(
            "test-key", fake_llm.base_url, limits=ClientLimits(max_retries=0, **client_options)
        )
        resolved = ResolvedSettings(Settings(model="fake-model", **(settings or {})), {}, workdir)
        return build_session(resolved, executor, client=client)

    return make


def test_a_reply_at_the_context_edge_fails_the_round_at_once_saying_so(session_with, fake_llm):
    fake_llm.behaves_like, fake_llm.context_size = "llama-server", 6000
    session = session_with({"Planner": [planner_reply("User", "x" * 30_000)]})

    round = session.run_round("Say a lot")

    assert round.state == "failed"
    reason = round.extra["failure_reason"]
    assert "finish_reason: length" in reason and "6,000-token context" in reason
    assert len(fake_llm.chat_requests()) == 1  # not sent three times
    assert round.post_list[-1].extra.get("raw_text")  # what arrived is kept


def test_a_stall_fails_the_round_naming_the_setting_to_raise(session_with, fake_llm):
    stalled = {"content": answer("late"), "stall_after_chars": 0, "stall_s": 3, "stall_with": "empty_deltas"}
    deadlines = LLMDeadlines(connect=2, first_byte=0.4, idle=0.4, total=10)
    session = session_with({"Planner": [stalled]}, deadlines=deadlines)

    round = session.run_round("Anything")

    assert round.state == "failed"
    assert "raise llm_timeout_first_byte" in round.extra["failure_reason"]
    assert len(fake_llm.chat_requests()) == 1


def test_an_empty_200_is_reported_as_a_likely_context_overflow(session_with, fake_llm):
    fake_llm.behaves_like, fake_llm.context_size = "llama-cpp-python", 300
    session = session_with(one_step("z = 1"))

    round = session.run_round("Set z")

    assert round.state == "failed"
    reason = round.extra["failure_reason"]
    assert "over the model's context" in reason and "connection dropped:" not in reason.split("If the")[0]
    sent = [r["body"]["response_format"]["type"] for r in fake_llm.chat_requests()]
    assert sent == ["json_schema", "json_object"]  # its 500 on json_schema, then one empty 200, not three


def test_an_error_event_mid_stream_is_retried_and_the_round_goes_on(session_with, fake_llm):
    flaky = {"content": planner_reply("CodeInterpreter", "Run it"), "error_event": FORMAT_ERROR}
    session = session_with({"Planner": [flaky, answer("Done.")], "CodeInterpreter": [code_reply("e = 1")]})

    round = session.run_round("Set e")

    assert round.state == "finished"
    dropped = round.post_list[1].extra["dropped_attempts"]
    assert len(dropped) == 1 and FORMAT_ERROR in dropped[0]["reason"]


def test_error_events_past_the_attempts_fail_the_round_with_the_servers_words(session_with, fake_llm):
    flaky = {"content": planner_reply("CodeInterpreter", "Run it"), "error_event": FORMAT_ERROR, "times": 9}
    session = session_with({"Planner": [flaky]})

    round = session.run_round("Set f")

    assert round.state == "failed"
    assert FORMAT_ERROR in round.extra["failure_reason"]
    assert len(fake_llm.chat_requests()) == 3


def test_a_context_error_teaches_the_context_and_the_prompt_is_fitted_to_it(session_with, fake_llm):
    # a 2,000-token context (~8,000 characters) the server does not say before the first call
    fake_llm.behaves_like, fake_llm.context_size = "vllm", 2000
    fake_llm.models = ["another-model"]  # /v1/models does not list it: the context is unknown at first
    big = "- col_{i}: int64, 1,000 values\n"
    session = session_with(one_step("g = 1"))
    session.planner.namespace_summary = lambda: "".join(big.format(i=i) for i in range(400))

    round = session.run_round("Set g")

    assert round.state == "finished"
    sizes = [len(str(r["body"]["messages"])) for r in fake_llm.chat_requests()]
    assert sizes[1] < sizes[0]  # refused, then sent fitted
    assert len(sizes) == 4  # the refused call, then the Round's three


def test_a_prompt_that_fits_no_way_fails_before_it_is_sent(session_with, fake_llm):
    fake_llm.behaves_like, fake_llm.context_size = "llama-server", 600
    session = session_with(one_step("h = 1"))

    round = session.run_round("Set h")

    assert round.state == "failed"
    reason = round.extra["failure_reason"]
    assert "The Planner's prompt does not fit the model's context" in reason
    assert "600-token context (llama-server's /props)" in reason and "llama-server -c N" in reason
    assert fake_llm.chat_requests() == []


def test_a_small_known_context_gets_a_fitted_prompt_without_a_refusal(session_with, fake_llm):
    fake_llm.behaves_like, fake_llm.context_size = "llama-server", 4000
    session = session_with(one_step("k = 1"))
    wide = "".join(f"- col_{i}: int64\n" for i in range(2000))
    session.planner.namespace_summary = lambda: wide
    session.code_interpreter.namespace_summary = lambda: wide

    round = session.run_round("Set k")

    assert round.state == "finished"
    for request in fake_llm.chat_requests():
        prompt = "".join(m["content"] for m in request["body"]["messages"])
        assert len(prompt) / 4 <= 4000 - 1000  # what the server counts fits, with room for the reply
