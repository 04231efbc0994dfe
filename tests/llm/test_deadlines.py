"""The four deadlines of an LLM call, held against the loopback server's slow, silent and trickling replies.

A reply must bring text (or thinking) within the first-byte deadline and keep bringing it within the idle
deadline; empty deltas and keep-alive comments are no progress. A call past a deadline fails naming the
setting to raise, and is never sent again.
"""

from __future__ import annotations

import time

import pytest

from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.llm.deadlines import LLMDeadlines
from twnb.llm.errors import LLMStalled

MESSAGES = [{"role": "system", "content": "You are the Planner."}, {"role": "user", "content": "hi"}]


def client_with(fake_llm, **deadlines: float) -> OpenAIChatClient:
    limits = {"connect": 2.0, "first_byte": 5.0, "idle": 5.0, "total": 20.0, **deadlines}
    return OpenAIChatClient(
        "test-key", fake_llm.base_url, limits=ClientLimits(deadlines=LLMDeadlines(**limits), max_retries=2)
    )


def timed_failure(client: OpenAIChatClient) -> tuple[LLMStalled, float]:
    started = time.perf_counter()
    with pytest.raises(LLMStalled) as caught:
        client.stream(MESSAGES, model="fake-model").collect()
    return caught.value, time.perf_counter() - started


def test_a_trickle_of_empty_deltas_is_no_first_text(fake_llm):
    trickle = {"content": "late", "stall_after_chars": 0, "stall_s": 4, "stall_with": "empty_deltas"}
    fake_llm.load({"*": [trickle]})

    error, took = timed_failure(client_with(fake_llm, first_byte=0.5))

    assert error.setting == "llm_timeout_first_byte"
    assert "within llm_timeout_first_byte (0.5 s)" in str(error)
    assert took < 2.0  # not the 4 s the trickle lasts


def test_keep_alive_comments_after_the_reply_started_are_no_progress(fake_llm):
    stall = {"content": "abcdefgh", "stall_after_chars": 4, "stall_s": 4, "stall_with": "keepalive"}
    fake_llm.load({"*": [stall]})

    error, took = timed_failure(client_with(fake_llm, idle=0.5))

    assert error.setting == "llm_timeout_idle"
    assert error.partial_text == "abcd"
    assert took < 2.0


def test_a_server_that_goes_silent_mid_reply_misses_the_idle_deadline(fake_llm):
    # nothing at all reaches the client: the watcher ends the blocked read
    fake_llm.load({"*": [{"content": "abcdefgh", "stall_after_chars": 4, "stall_s": 4}]})

    error, took = timed_failure(client_with(fake_llm, idle=0.5, first_byte=3.0))

    assert error.setting == "llm_timeout_idle"
    assert "sent nothing new within llm_timeout_idle (0.5 s)" in str(error)
    assert took < 2.0


def test_a_reply_that_keeps_coming_is_stopped_at_the_total_deadline(fake_llm):
    fake_llm.load({"*": [{"content": "x" * 400, "chunk_size": 4, "delay_s": 0.02}]})

    error, took = timed_failure(client_with(fake_llm, total=0.6))

    assert error.setting == "llm_timeout_total"
    assert "raise llm_timeout_total" in str(error)
    assert took < 1.5


def test_thinking_counts_as_progress(fake_llm):
    thinking = {"content": "done", "reasoning": "hmm " * 10, "chunk_size": 4, "delay_s": 0.15}
    fake_llm.load({"*": [thinking]})

    reply = client_with(fake_llm, first_byte=0.5, idle=0.5).stream(MESSAGES, model="fake-model").collect()

    assert reply.text == "done"  # 2 s in all, but never 0.5 s without a piece


def test_a_slow_first_byte_within_its_deadline_is_waited_for(fake_llm):
    fake_llm.load({"*": [{"content": "slow prompt, then fast", "slow_first_token_s": 1.0}]})

    reply = client_with(fake_llm, first_byte=3.0, idle=0.3).stream(MESSAGES, model="fake-model").collect()

    assert reply.text == "slow prompt, then fast"


def test_a_stalled_call_is_never_sent_again(fake_llm):
    fake_llm.load({"*": [{"content": "late", "slow_first_token_s": 2.0}, "second"]})

    timed_failure(client_with(fake_llm, first_byte=0.3))

    assert len(fake_llm.chat_requests()) == 1


def test_no_answer_before_the_headers_is_a_first_byte_timeout_sent_once(fake_llm):
    fake_llm.load({"*": [{"content": "late", "delay_headers_s": 2.0}]})

    with pytest.raises(LLMStalled) as caught:
        client_with(fake_llm, first_byte=0.3, idle=0.3).stream(MESSAGES, model="fake-model")

    assert caught.value.setting == "llm_timeout_first_byte"
    assert len(fake_llm.chat_requests()) == 1


def test_deadlines_refuse_nonsense_naming_the_setting():
    with pytest.raises(ValueError, match="llm_timeout_idle must be a number of seconds above 0"):
        LLMDeadlines(idle=0)


def test_the_read_timeout_is_the_longest_silence_a_reply_may_have():
    assert LLMDeadlines(connect=1, first_byte=600, idle=300, total=1800).read_timeout_s == 600
    assert LLMDeadlines(connect=1, first_byte=60, idle=300, total=1800).read_timeout_s == 300
    assert LLMDeadlines(connect=1, first_byte=600, idle=300, total=100).read_timeout_s == 100


def test_the_deadlines_come_from_the_settings_table():
    from twnb.config.settings import Settings

    settings = Settings(llm_timeout_first_byte=90.0, llm_timeout_idle=30.0)

    assert LLMDeadlines.from_settings(settings) == LLMDeadlines(
        connect=10.0, first_byte=90.0, idle=30.0, total=1800.0
    )
