"""How else a stream ends, each said for what it is: a reply cut at a token limit, an HTTP 200 with nothing
after it, an error event in the middle (against the loopback server acting like the real ones)."""

from __future__ import annotations

import pytest

from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.llm.errors import LLMEmptyReply, LLMReplyTruncated, LLMStreamDropped, LLMStreamErrorEvent

MESSAGES = [{"role": "system", "content": "You are the Planner."}, {"role": "user", "content": "hi"}]
FORMAT_ERROR = "output does not match the expected format"


def client_for(fake_llm, **options) -> OpenAIChatClient:
    return OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=5.0, **options))


def test_a_reply_at_the_context_edge_says_the_context_with_its_numbers(fake_llm):
    fake_llm.behaves_like, fake_llm.context_size = "llama-server", 40
    fake_llm.load({"*": ["x" * 400]})
    client = client_for(fake_llm)
    client.context.known("fake-model")  # what a role's prompt budget does before each call

    with pytest.raises(LLMReplyTruncated) as caught:
        client.stream(MESSAGES, model="fake-model").collect()

    message = str(caught.value)
    assert "finish_reason: length" in message
    assert "fills the 40-token context" in message
    assert "llama-server -c N" in message


def test_a_reply_at_max_tokens_says_max_tokens(fake_llm):
    fake_llm.load(
        {"*": [{"content": "x" * 64, "finish_reason": "length", "usage": {"completion_tokens": 16}}]}
    )

    with pytest.raises(LLMReplyTruncated, match=r"the max_tokens setting \(16\).*raise max_tokens"):
        client_for(fake_llm, max_tokens=16).stream(MESSAGES, model="fake-model").collect()


def test_a_cut_reply_is_sent_once(fake_llm):
    fake_llm.load({"*": [{"content": "cut", "finish_reason": "length"}, "whole"]})

    with pytest.raises(LLMReplyTruncated):
        client_for(fake_llm).complete(MESSAGES, model="fake-model")

    assert len(fake_llm.chat_requests()) == 1


def test_estimated_counts_are_marked_in_the_message(fake_llm):
    fake_llm.behaves_like = "llama-cpp-python"  # never sends usage while streaming
    fake_llm.load({"*": [{"content": "cut", "finish_reason": "length"}]})

    with pytest.raises(LLMReplyTruncated, match=r"the prompt took ~\d+ tokens and the reply ~1"):
        client_for(fake_llm).stream(MESSAGES, model="fake-model").collect()


def test_max_tokens_is_sent_to_a_local_server_as_max_tokens(fake_llm):
    fake_llm.load({"*": ["ok"]})

    client_for(fake_llm, max_tokens=300).stream(MESSAGES, model="fake-model").collect()

    body = fake_llm.chat_requests()[0]["body"]
    assert body["max_tokens"] == 300 and "max_completion_tokens" not in body


def test_max_tokens_is_sent_to_azure_as_max_completion_tokens(fake_llm):
    fake_llm.load({"*": ["ok"]})
    client = OpenAIChatClient(
        "k", azure_endpoint=fake_llm.root_url, limits=ClientLimits(timeout=5.0, max_tokens=300)
    )

    client.stream(MESSAGES, model="my-deployment").collect()

    body = fake_llm.chat_requests()[0]["body"]
    assert body["max_completion_tokens"] == 300 and "max_tokens" not in body


def test_an_empty_200_over_the_context_is_said_to_be_a_likely_overflow(fake_llm):
    fake_llm.behaves_like, fake_llm.context_size = "llama-cpp-python", 4
    fake_llm.load({"*": ["never sent"]})

    with pytest.raises(LLMEmptyReply) as caught:
        client_for(fake_llm).stream(MESSAGES, model="fake-model").collect()

    message = str(caught.value)
    assert "HTTP 200 and then sent nothing" in message
    assert "over the model's context" in message and "--n_ctx" in message
    assert not isinstance(caught.value, LLMStreamDropped)  # not "the connection dropped"


def test_an_empty_200_is_not_sent_again(fake_llm):
    fake_llm.load({"*": [{"content": "x", "empty_200": True}, "x"]})

    with pytest.raises(LLMEmptyReply):
        client_for(fake_llm).complete(MESSAGES, model="fake-model")

    assert len(fake_llm.chat_requests()) == 1


def test_an_error_event_mid_stream_carries_the_servers_words(fake_llm):
    fake_llm.load({"*": [{"content": "abcdefgh", "error_event": FORMAT_ERROR}]})

    with pytest.raises(LLMStreamErrorEvent) as caught:
        client_for(fake_llm).stream(MESSAGES, model="fake-model").collect()

    assert caught.value.server_message == FORMAT_ERROR
    assert FORMAT_ERROR in str(caught.value)
    assert caught.value.partial_text == "abcd"


def test_an_error_event_is_retried_as_a_dropped_stream(fake_llm):
    fake_llm.load({"*": [{"content": "whole reply", "error_event": FORMAT_ERROR, "times": 1}]})

    reply = client_for(fake_llm, stream_retries=2).complete(MESSAGES, model="fake-model")

    assert reply.text == "whole reply"
    assert reply.attempts == 2


def test_error_events_past_the_retries_are_reported_with_the_servers_words(fake_llm):
    fake_llm.load({"*": [{"content": "whole reply", "error_event": FORMAT_ERROR, "times": 5}]})

    with pytest.raises(LLMStreamErrorEvent, match=f"{FORMAT_ERROR}.*Gave up after 3 attempts"):
        client_for(fake_llm, stream_retries=2).complete(MESSAGES, model="fake-model")

    assert len(fake_llm.chat_requests()) == 3
