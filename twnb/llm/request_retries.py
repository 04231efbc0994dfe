"""Which failed requests are sent again, and after how long (the SDK's own retries are off).

The openai SDK retries 408, 409, 429, 5xx, connection errors and every timeout by itself. Two of those
hurt with the servers people run themselves, so twnb decides instead:

- a timeout after the request was sent: the server may still be working on it (llama-cpp-python keeps
  generating after the client hangs up), and a second request would queue behind the first. Only a
  timeout while connecting is retried; a slow reply is a deadline to raise (deadlines.py).
- a refusal of ``response_format`` sent as a 5xx (llama-cpp-python answers ``json_schema`` with HTTP
  500): it would be refused the same way each time; the fallback (response_format.py) asks for the
  next format instead.

Everything else the SDK would retry is retried the same way: up to `max_retries` times, waiting what
the server asks (``retry-after-ms``, ``retry-after``: at most a minute) or 0.5 s doubling to 8 s.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

__all__ = ["RetryPolicy", "names_response_format"]

_RETRIED_STATUS = (408, 409, 429)
_FORMAT_WORDS = ("response_format", "response format", "json_schema", "json_object")


def names_response_format(text: str) -> bool:
    """True when a server's error text is about the ``response_format`` parameter."""
    lowered = text.lower()
    return any(word in lowered for word in _FORMAT_WORDS)


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 2
    initial_delay_s: float = 0.5
    max_delay_s: float = 8.0
    max_retry_after_s: float = 60.0

    def should_retry(self, exc: BaseException, retries_taken: int) -> bool:
        """Whether a request that failed with `exc` (an openai SDK error) is sent again."""
        import openai  # lazy: openai (~380 ms, 700 modules) loads with the first request, not at import

        if retries_taken >= self.max_retries:
            return False
        if isinstance(exc, openai.APITimeoutError):
            return type(exc.__cause__).__name__ in ("ConnectTimeout", "PoolTimeout")
        if isinstance(exc, openai.APIConnectionError):
            return True
        if not isinstance(exc, openai.APIStatusError):
            return False
        headers = exc.response.headers
        said = headers.get("x-should-retry")
        if said in ("true", "false"):
            return said == "true"
        after = _retry_after(headers)
        if after is not None and after > self.max_retry_after_s:
            return False
        if exc.status_code not in _RETRIED_STATUS and exc.status_code < 500:
            return False
        return not names_response_format(_body_text(exc))

    def delay_s(self, exc: BaseException, retries_taken: int) -> float:
        """How long to wait before sending again: what the server asked, else a growing backoff."""
        response = getattr(exc, "response", None)
        after = _retry_after(response.headers) if response is not None else None
        if after is not None and 0 <= after <= self.max_retry_after_s:
            return after
        backoff = min(self.initial_delay_s * 2.0**retries_taken, self.max_delay_s)
        return backoff * (1 - 0.25 * random.random())


def _retry_after(headers: Any) -> float | None:
    """Seconds the server asked to wait (``retry-after-ms``, or ``retry-after`` in seconds or as a date)."""
    try:
        millis = headers.get("retry-after-ms")
        if millis is not None:
            return float(millis) / 1000
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return float(value)
        except ValueError:
            return (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds()
    except (TypeError, ValueError):
        return None


def _body_text(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    return f"{body} {getattr(exc, 'message', '')}"
