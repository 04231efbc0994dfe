"""One LLM turn on the loopback server: the request as sent, retries, what failed attempts leave,
reasoning, usage and timing, partial replies."""

from __future__ import annotations

import json

import pytest

from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.llm.errors import LLMServerError, LLMStreamDropped
from twnb.llm.messages import Msg, TextBlock, ThinkingBlock
from twnb.roles.errors import TranslationError
from twnb.roles.llm_turn import REASONING_CAP, LLMTurn, ReplyUnreadable, attempt_text, combine_reasoning
from twnb.roles.role import ReplyCutShort
from twnb.roles.translator import PostTranslator

MESSAGES = [Msg("system", "system", "You are the Planner."), Msg("User", "user", "hi")]
REPLY = json.dumps({"response": {"send_to": "User", "message": "Hello there, how can I help?"}})


@pytest.fixture
def turn(fake_llm) -> LLMTurn:
    client = OpenAIChatClient(
        api_key="test-key", base_url=fake_llm.base_url, limits=ClientLimits(max_retries=0)
    )
    return LLMTurn(client, "fake-model", "Planner", PostTranslator(), attempts=2)


def run(turn: LLMTurn):
    return turn.run(MESSAGES, post_id="post-1", send_to="Unknown")


def test_the_request_reaches_the_server_in_openai_shape(turn, fake_llm):
    fake_llm.load({"Planner": [REPLY]})
    run(turn)
    assert fake_llm.chat_requests()[0]["body"]["messages"] == [
        {"role": "system", "content": "You are the Planner."},
        {"role": "user", "content": "hi"},
    ]


def test_thinking_in_a_request_is_never_sent(turn, fake_llm):
    fake_llm.load({"Planner": [REPLY]})
    earlier = Msg(
        "Planner",
        "assistant",
        [ThinkingBlock(type="thinking", thinking="SECRET-THOUGHT"), TextBlock(type="text", text=REPLY)],
    )
    turn.run([*MESSAGES, earlier, Msg("User", "user", "and now?")], post_id="post-1", send_to="Unknown")
    sent = fake_llm.chat_requests()[0]["body"]["messages"]
    assert sent[2] == {"role": "assistant", "content": REPLY}
    assert "SECRET-THOUGHT" not in json.dumps(sent)


def test_a_request_of_plain_dicts_is_refused_with_what_to_do(turn, fake_llm):
    with pytest.raises(TypeError, match=r"takes twnb\.llm\.messages\.Msg objects, got a dict"):
        turn.run([{"role": "user", "content": "hi"}], post_id="post-1", send_to="Unknown")
    assert fake_llm.chat_requests() == []


def test_usage_has_wall_time_and_time_to_first_token(turn, fake_llm):
    fake_llm.load({"Planner": [{"content": REPLY, "slow_first_token_s": 0.2}]})
    usage = run(turn).post.extra["usage"]
    assert usage["time_to_first_token_s"] >= 0.2
    assert usage["wall_time_s"] >= usage["time_to_first_token_s"]
    assert usage["calls"] == 1 and usage["prompt_tokens"] > 0


def test_usage_of_a_retried_turn_sums_wall_time_and_keeps_the_last_first_token_time(turn, fake_llm):
    slow_unreadable = {"content": "not json", "slow_first_token_s": 0.3}
    fake_llm.load({"Planner": [slow_unreadable, {"content": REPLY, "slow_first_token_s": 0.05}]})
    usage = run(turn).post.extra["usage"]
    assert usage["calls"] == 2
    assert usage["wall_time_s"] >= 0.35
    assert 0.05 <= usage["time_to_first_token_s"] < 0.3


def test_server_reasoning_and_think_block_are_both_kept(turn, fake_llm):
    content = "<think>From the think block.</think>" + REPLY
    fake_llm.load({"Planner": [{"content": content, "reasoning": "Served."}]})
    post = run(turn).post
    assert post.extra["reasoning"] == "Served.\n\nFrom the think block."


def test_reasoning_from_both_sources_is_capped_together():
    text = combine_reasoning("a" * REASONING_CAP, "b" * 10)
    assert text == "a" * REASONING_CAP + "\n[... 12 more characters of reasoning not kept]"


def test_the_raw_text_of_a_failed_attempt_is_read_from_each_error_class():
    assert attempt_text(TranslationError("bad", raw_text="raw reply"), None) == "raw reply"
    assert attempt_text(LLMStreamDropped("cut", partial_text="part"), None) == "part"

    class Stream:
        raw_text = "so far"

    assert attempt_text(KeyboardInterrupt(), Stream()) == "so far"


def test_unreadable_replies_keep_every_raw_text(turn, fake_llm):
    fake_llm.load({"Planner": ["not json", "still not json"]})
    with pytest.raises(ReplyUnreadable) as error:
        run(turn)
    assert error.value.raw_texts == ["not json", "still not json"]


def test_unreadable_replies_keep_each_attempts_own_reason(turn, fake_llm):
    fake_llm.load({"Planner": ["not json", '{"response": {"message": "cut']})
    with pytest.raises(ReplyUnreadable) as error:
        run(turn)
    first, last = (attempt["reason"] for attempt in error.value.attempts)
    assert "contains no JSON object" in first
    assert "ended before the JSON object was complete" in last
    assert error.value.problem == str(error.value.__cause__)


def test_a_dropped_attempt_keeps_its_partial_text_then_the_retry_is_committed(turn, fake_llm):
    fake_llm.load({"Planner": [{"content": REPLY, "drop_after_chars": 30}]})
    post = run(turn).post
    assert post.message == "Hello there, how can I help?"
    assert post.extra["dropped_attempts"][0]["raw_text"] == REPLY[:30]


def test_the_last_dropped_attempt_raises_carrying_what_arrived(turn, fake_llm):
    fake_llm.load({"Planner": [{"content": REPLY, "drop_after_chars": 70, "times": 2}]})
    with pytest.raises(ReplyCutShort) as error:
        run(turn)
    assert isinstance(error.value.error, LLMStreamDropped)
    partial = error.value.post
    assert partial.id == "post-1"
    assert partial.send_to == "User" and partial.message == "Hello there, how can I he"
    assert partial.extra["raw_text"] == REPLY[:70]
    assert "LLMStreamDropped" in partial.extra["incomplete"]


def test_an_error_before_any_text_carries_no_post(turn, fake_llm):
    fake_llm.load({"Planner": [{"content": REPLY, "fault": "http_500", "times": 5}]})
    with pytest.raises(LLMServerError):
        run(turn)
