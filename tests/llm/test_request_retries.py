"""Which failed requests are sent again: what the SDK would retry, except what would queue a second
request behind one the server still works on, or meet the same refusal again."""

from __future__ import annotations

import importlib

import openai
import pytest

from twnb.llm.request_retries import RetryPolicy, names_response_format

REQUEST = openai.DefaultHttpxClient().build_request("POST", "http://127.0.0.1:1/v1/chat/completions")
# The SDK's own HTTP library (httpx, or httpx2 in later SDKs): its exceptions are what the SDK wraps.
http = importlib.import_module(type(REQUEST).__module__.split(".")[0])
POLICY = RetryPolicy(max_retries=2)


def status_error(
    status: int, body: object = None, headers: dict[str, str] | None = None
) -> openai.APIStatusError:
    response = http.Response(status, request=REQUEST, headers=headers or {})
    return openai.APIStatusError("failed", response=response, body=body)


def timeout_caused_by(cause: BaseException) -> openai.APITimeoutError:
    error = openai.APITimeoutError(request=REQUEST)
    error.__cause__ = cause
    return error


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503])
def test_what_the_sdk_retries_is_retried(status):
    assert POLICY.should_retry(status_error(status), retries_taken=0)


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_a_refusal_is_not_retried(status):
    assert not POLICY.should_retry(status_error(status), retries_taken=0)


def test_a_5xx_naming_response_format_is_not_retried():
    body = {
        "message": "1 validation error: ('body', 'response_format', 'type') "
        "Input should be 'text' or 'json_object'"
    }
    assert not POLICY.should_retry(status_error(500, body), retries_taken=0)


def test_a_timeout_while_connecting_is_retried_but_not_one_after_sending():
    assert POLICY.should_retry(timeout_caused_by(http.ConnectTimeout("connect")), retries_taken=0)
    assert not POLICY.should_retry(timeout_caused_by(http.ReadTimeout("read")), retries_taken=0)


def test_retries_stop_at_max_retries():
    assert not POLICY.should_retry(status_error(500), retries_taken=2)


def test_the_server_decides_with_x_should_retry():
    assert not POLICY.should_retry(status_error(500, headers={"x-should-retry": "false"}), retries_taken=0)
    assert POLICY.should_retry(status_error(400, headers={"x-should-retry": "true"}), retries_taken=0)


def test_the_wait_is_what_the_server_asks_else_a_growing_backoff():
    assert POLICY.delay_s(status_error(429, headers={"retry-after-ms": "250"}), 0) == 0.25
    assert POLICY.delay_s(status_error(429, headers={"retry-after": "3"}), 0) == 3.0
    assert 0.375 <= POLICY.delay_s(status_error(500), 0) <= 0.5
    assert 3.0 <= POLICY.delay_s(status_error(500), 3) <= 4.0


def test_a_wait_longer_than_a_minute_is_not_waited_for():
    assert not POLICY.should_retry(status_error(429, headers={"retry-after": "3600"}), retries_taken=0)


def test_response_format_is_recognised_in_each_spelling():
    assert names_response_format("Invalid parameter: 'response_format' of type 'json_schema'")
    assert names_response_format("json_object is not supported")
    assert not names_response_format("The server had an error while processing your request.")
