"""Every failure the client meets, against the loopback server's injected faults (real SDK, real HTTP)."""

from __future__ import annotations

import traceback

import pytest

from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.llm.errors import (
    LLMAuthError,
    LLMBadRequestError,
    LLMConnectionError,
    LLMError,
    LLMMalformedStreamError,
    LLMNotFoundError,
    LLMRateLimitError,
    LLMServerError,
    LLMStreamDropped,
    LLMTimeoutError,
)

MESSAGES = [{"role": "system", "content": "You are the Planner."}, {"role": "user", "content": "hi"}]
CANARY_KEY = "sk-canary-0123456789abcdefghij"


def make_client(fake_llm, **options) -> OpenAIChatClient:
    options.setdefault("timeout", 5.0)
    return OpenAIChatClient(CANARY_KEY, fake_llm.base_url, limits=ClientLimits(**options))


def all_text(err: BaseException) -> str:
    """Everything a user, a logger or a debugger can reach from the error, hidden context included."""
    texts, seen, todo = [], set(), [err]
    while todo:
        exc = todo.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        texts += [str(exc), repr(exc), "".join(traceback.format_exception(exc))]
        todo += [exc.__cause__, exc.__context__]
    return "".join(texts)


def test_401_says_check_the_key_and_base_url_and_never_shows_the_key(fake_llm):
    fake_llm.load({"*": [{"fault": "http_401"}]})  # the fake echoes the key it got, as some servers do

    with pytest.raises(LLMAuthError) as caught:
        make_client(fake_llm).stream(MESSAGES, model="fake-model")

    message = str(caught.value)
    assert "API key" in message and "base URL" in message
    assert fake_llm.base_url in message
    assert CANARY_KEY not in all_text(caught.value)
    assert caught.value.status_code == 401


def test_404_names_the_model_and_the_url(fake_llm):
    fake_llm.load({"*": [{"fault": "http_404"}]})

    with pytest.raises(LLMNotFoundError) as caught:
        make_client(fake_llm).stream(MESSAGES, model="no-such-model")

    assert "'no-such-model'" in str(caught.value)
    assert f"{fake_llm.base_url}/chat/completions" in str(caught.value)


def test_connection_refused_names_the_url(refused_port):
    url = f"http://127.0.0.1:{refused_port}/v1"
    client = OpenAIChatClient("test-key", url, limits=ClientLimits(max_retries=0))

    with pytest.raises(LLMConnectionError) as caught:
        client.stream(MESSAGES, model="fake-model")

    assert url in str(caught.value)
    assert "Could not connect" in str(caught.value)


@pytest.mark.parametrize("fault", ["http_429", "http_500"])
def test_429_and_500_are_retried_until_they_succeed(fake_llm, fault):
    fake_llm.load({"*": [{"content": "made it", "fault": fault, "times": 2}]})

    text = "".join(make_client(fake_llm, max_retries=2).stream(MESSAGES, model="fake-model"))

    assert text == "made it"
    retry_counts = [r["headers"]["x-stainless-retry-count"] for r in fake_llm.chat_requests()]
    assert retry_counts == ["0", "1", "2"]


def test_429_after_the_retries_says_rate_limited(fake_llm):
    fake_llm.load({"*": [{"fault": "http_429", "times": 10}]})

    with pytest.raises(LLMRateLimitError) as caught:
        make_client(fake_llm, max_retries=1).stream(MESSAGES, model="fake-model")

    assert "Rate limited" in str(caught.value)
    assert "after 1 retry" in str(caught.value)
    assert len(fake_llm.chat_requests()) == 2


def test_500_after_the_retries_is_a_server_error_naming_the_role(fake_llm):
    fake_llm.load({"*": [{"fault": "http_500", "times": 10}]})

    with pytest.raises(LLMServerError) as caught:
        make_client(fake_llm, max_retries=1).stream(MESSAGES, model="fake-model", role="Planner")

    assert "HTTP 500" in str(caught.value)
    assert "Planner call" in str(caught.value)


def test_a_refused_parameter_is_a_bad_request_carrying_the_param(fake_llm):
    fake_llm.load({"*": [{"content": "{}", "reject_response_format": True}]})
    client = make_client(fake_llm)

    with pytest.raises(LLMBadRequestError) as caught:
        client.stream(MESSAGES, model="fake-model", response_format={"type": "json_object"})

    assert caught.value.param == "response_format"
    assert "response_format" in str(caught.value)
    # the caller may then send it without the parameter
    assert "".join(client.stream(MESSAGES, model="fake-model")) == "{}"


@pytest.mark.parametrize("drop_mode", ["clean", "abort"])
def test_a_dropped_stream_raises_after_yielding_what_it_had(fake_llm, drop_mode):
    fake_llm.load({"*": [{"content": "0123456789", "drop_after_chars": 6, "drop_mode": drop_mode}]})
    stream = make_client(fake_llm).stream(MESSAGES, model="fake-model")
    pieces = []

    with pytest.raises(LLMStreamDropped) as caught:
        for piece in stream:
            pieces.append(piece)

    assert "".join(pieces) == "012345" == caught.value.partial_text
    assert stream.finish_reason is None
    assert stream.usage is not None and stream.usage.estimated


def test_a_stream_error_hides_the_sdks_exception_entirely(fake_llm):
    fake_llm.load({"*": [{"content": "0123456789", "drop_after_chars": 4, "drop_mode": "abort"}]})

    with pytest.raises(LLMStreamDropped) as caught:
        list(make_client(fake_llm).stream(MESSAGES, model="fake-model"))

    assert caught.value.__cause__ is None and caught.value.__context__ is None


def test_complete_retries_a_dropped_stream_and_keeps_the_dropped_text_apart(fake_llm):
    fake_llm.load({"*": [{"content": "the full reply", "drop_after_chars": 4}]})

    reply = make_client(fake_llm, stream_retries=2).complete(MESSAGES, model="fake-model")

    assert reply.text == "the full reply"
    assert reply.attempts == 2
    assert reply.dropped_texts == ["the "]


def test_complete_gives_up_after_stream_retries(fake_llm):
    fake_llm.load({"*": [{"content": "never whole", "drop_after_chars": 5, "times": 10}]})

    with pytest.raises(LLMStreamDropped, match="Gave up after 2 attempts"):
        make_client(fake_llm, stream_retries=1).complete(MESSAGES, model="fake-model")

    assert len(fake_llm.chat_requests()) == 2


def test_malformed_sse_is_a_clear_error(fake_llm):
    fake_llm.load({"*": [{"content": "abcdefgh", "malformed_sse": True}]})
    stream = make_client(fake_llm).stream(MESSAGES, model="fake-model")

    with pytest.raises(LLMMalformedStreamError) as caught:
        list(stream)

    assert isinstance(caught.value, LLMError)
    assert "malformed event" in str(caught.value)
    assert caught.value.partial_text == "abcd"


def test_a_stream_silent_past_the_first_byte_deadline_is_a_timeout_naming_its_setting(fake_llm):
    fake_llm.load({"*": [{"content": "late", "slow_first_token_s": 1.0}]})
    stream = make_client(fake_llm, timeout=0.3).stream(MESSAGES, model="fake-model")

    with pytest.raises(LLMTimeoutError, match=r"within llm_timeout_first_byte \(0.3 s\)") as caught:
        list(stream)

    assert caught.value.setting == "llm_timeout_first_byte"


def test_no_headers_within_the_first_byte_deadline_is_a_timeout_sent_only_once(fake_llm):
    fake_llm.load({"*": [{"content": "late", "delay_headers_s": 1.0}]})

    with pytest.raises(LLMTimeoutError) as caught:
        make_client(fake_llm, timeout=0.3, max_retries=2).stream(MESSAGES, model="fake-model")

    assert "within llm_timeout_first_byte (0.3 s)" in str(caught.value)
    assert fake_llm.base_url in str(caught.value)
    assert len(fake_llm.chat_requests()) == 1  # never queued behind the one the server still works on


def test_no_key_and_no_server_says_what_to_set():
    with pytest.raises(LLMAuthError, match="Set OPENAI_API_KEY"):
        OpenAIChatClient(None)


def test_the_client_repr_never_shows_the_key(fake_llm):
    assert CANARY_KEY not in repr(make_client(fake_llm))


def test_a_redactor_given_cleans_server_text_in_errors(fake_llm):
    fake_llm.load({"*": [{"fault": "http_401"}]})
    client = OpenAIChatClient(
        CANARY_KEY, fake_llm.base_url, redact=lambda text: text.replace("Incorrect", "<cleaned>")
    )

    with pytest.raises(LLMAuthError, match="<cleaned> API key provided"):
        client.stream(MESSAGES, model="fake-model")
