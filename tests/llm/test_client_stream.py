"""OpenAIChatClient streaming against the loopback server, with the real openai SDK."""

from __future__ import annotations

import math
import time

import pytest

from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.llm.stream import ChatStream
from twnb.llm.usage import Usage

MESSAGES = [
    {"role": "system", "content": "You are the Planner."},
    {"role": "user", "content": "Count the rows of data.csv"},
]


@pytest.fixture
def client(fake_llm) -> OpenAIChatClient:
    return OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=5.0))


def test_content_arrives_as_the_chunks_the_server_sent(fake_llm, client):
    fake_llm.load({"*": [{"content": "hello world", "chunk_size": 4}]})

    pieces = list(client.stream(MESSAGES, model="fake-model"))

    assert pieces == ["hell", "o wo", "rld"]


def test_the_first_piece_is_available_before_the_server_has_sent_the_rest(fake_llm, client):
    fake_llm.load({"*": [{"content": "abcdefgh", "chunk_size": 2, "delay_s": 0.1}]})
    stream = client.stream(MESSAGES, model="fake-model")

    next(stream)
    first_at = time.perf_counter()
    rest = list(stream)
    last_at = time.perf_counter()

    assert rest == ["cd", "ef", "gh"]
    assert last_at - first_at >= 0.2  # three more chunks were still on their way


def test_finished_stream_records_text_and_finish_reason(fake_llm, client):
    fake_llm.load({"*": [{"content": "the whole reply", "finish_reason": "stop"}]})
    stream = client.stream(MESSAGES, model="fake-model")

    reply = stream.collect()

    assert (reply.text, reply.finish_reason) == ("the whole reply", "stop")
    assert (stream.raw_text, stream.finish_reason, stream.done) == ("the whole reply", "stop", True)


def test_usage_is_read_from_the_usage_chunk_with_cached_tokens(fake_llm, client):
    fake_llm.load(
        {
            "*": [
                {
                    "content": "ok",
                    "usage": {"prompt_tokens": 1200, "completion_tokens": 34},
                    "cached_tokens": 1024,
                }
            ]
        }
    )
    stream = client.stream(MESSAGES, model="fake-model")
    list(stream)

    usage = stream.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens) == (1200, 34, 1024)
    assert usage.estimated is False
    assert usage.model == "fake-model"


def test_usage_is_estimated_when_the_server_sends_none(fake_llm, client):
    content = "x" * 41
    fake_llm.load({"*": [{"content": content, "usage": None}]})
    stream = client.stream(MESSAGES, model="fake-model")
    list(stream)

    prompt_chars = len("\n".join(m["content"] for m in MESSAGES))
    assert stream.usage.estimated is True
    assert stream.usage.completion_tokens == math.ceil(41 / 4)
    assert stream.usage.prompt_tokens == math.ceil(prompt_chars / 4)


def test_usage_times_the_first_token_and_the_whole_call(fake_llm, client):
    fake_llm.load({"*": [{"content": "abcdefgh", "slow_first_token_s": 0.2, "delay_s": 0.05}]})
    stream = client.stream(MESSAGES, model="fake-model")
    list(stream)

    usage = stream.usage
    assert usage.time_to_first_token_s is not None
    assert 0.2 <= usage.time_to_first_token_s < usage.wall_time_s


def test_reasoning_is_kept_apart_from_the_content(fake_llm, client):
    fake_llm.load({"*": [{"reasoning": "The user wants a count.", "content": "{}"}]})
    stream = client.stream(MESSAGES, model="fake-model")

    pieces = list(stream)

    assert "".join(pieces) == "{}" == stream.raw_text
    assert stream.reasoning == "The user wants a count."


def test_slow_chunks_still_stream_within_the_timeout(fake_llm):
    # each chunk well within the timeout, the whole reply (15 chunks, 1.5 s) well past it; the gap's
    # margin (0.9 s) is wide, as a loaded machine delays a chunk by a few tenths of a second
    client = OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=1.0))
    fake_llm.load({"*": [{"content": "slow but steady", "chunk_size": 1, "delay_s": 0.1}]})

    assert "".join(client.stream(MESSAGES, model="fake-model")) == "slow but steady"


def test_requests_ask_for_a_stream_with_usage(fake_llm, client):
    fake_llm.load({"*": ["ok"]})
    list(client.stream(MESSAGES, model="fake-model"))

    body = fake_llm.chat_requests()[0]["body"]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["model"] == "fake-model"
    assert body["messages"] == MESSAGES
    assert "response_format" not in body


def test_response_format_is_forwarded_when_given(fake_llm, client):
    fake_llm.load({"*": ["{}"]})
    fmt = {"type": "json_object"}
    list(client.stream(MESSAGES, model="fake-model", response_format=fmt))

    assert fake_llm.chat_requests()[0]["body"]["response_format"] == fmt


def test_the_api_key_is_sent_as_a_bearer_token(fake_llm, client):
    fake_llm.load({"*": ["ok"]})
    list(client.stream(MESSAGES, model="fake-model"))

    assert fake_llm.chat_requests()[0]["headers"]["authorization"] == "Bearer test-key"


def test_close_stops_early_and_keeps_what_was_read(fake_llm, client):
    fake_llm.load({"*": [{"content": "abcdefghijkl", "chunk_size": 4}]})
    with client.stream(MESSAGES, model="fake-model") as stream:
        first = next(stream)

    assert first == "abcd" == stream.raw_text
    assert stream.finish_reason is None
    with pytest.raises(StopIteration):
        next(stream)


def test_a_message_that_is_not_a_chat_message_is_refused_before_sending(fake_llm, client):
    with pytest.raises(ValueError, match=r"messages\[1\] must be an openai chat message"):
        client.stream([MESSAGES[0], "hello"], model="fake-model")  # type: ignore[list-item]
    assert fake_llm.requests() == []


def test_a_stream_can_be_fed_plain_dict_chunks():
    """What a replayed recording gives: dicts of the SDK's chunk shape."""
    from twnb.llm.errors import ErrorContext

    chunks = [
        {"model": "m", "choices": [{"index": 0, "delta": {"reasoning": "hm"}}]},
        {"model": "m", "choices": [{"index": 0, "delta": {"content": "hi"}}]},
        {"model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {"model": "m", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 1}},
    ]
    stream = ChatStream(chunks, ErrorContext(url="replay", model="m"))

    assert list(stream) == ["hi"]
    assert (stream.reasoning, stream.finish_reason) == ("hm", "stop")
    assert stream.usage.prompt_tokens == 3


def test_a_local_server_needs_no_key(fake_llm):
    client = OpenAIChatClient(None, fake_llm.base_url)
    fake_llm.load({"*": ["ok"]})

    assert "".join(client.stream(MESSAGES, model="fake-model")) == "ok"


def test_usage_round_trips_through_a_dict_and_ignores_unknown_keys():
    usage = Usage(10, 5, 2, "m", 1.5, 0.25, estimated=True)

    assert Usage.from_dict({**usage.to_dict(), "added_later": 1}) == usage
    assert usage.total_tokens == 15
