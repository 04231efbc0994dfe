"""twnb's HTTP client never logs credentials, whatever logging the user turned on (real SDK, real HTTP
to the loopback server, a base URL with a password in it)."""

from __future__ import annotations

import logging

import pytest

from twnb.config.redaction import Redactor
from twnb.llm import ClientLimits, OpenAIChatClient

MESSAGES = [{"role": "user", "content": "hi"}]
URL_PASSWORD = "LlmPw-canary-Zx81Qa7"
KEY = "sk-canary-logs-0123456789abcdef"


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def everything_logged():
    """What a user's `logging.basicConfig(level=logging.DEBUG)` would show: every record of every logger."""
    handler = Collect()
    handler.setFormatter(logging.Formatter("%(name)s %(message)s"))
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield handler
    root.removeHandler(handler)
    root.setLevel(level)


@pytest.mark.parametrize("redactor", [Redactor(environ={}), None], ids=["session redactor", "no redactor"])
def test_the_requests_url_password_and_the_key_never_reach_the_users_log_handlers(
    fake_llm, everything_logged, redactor
):
    fake_llm.load({"*": [{"content": "hello"}]})
    base_url = fake_llm.base_url.replace("://", f"://llm:{URL_PASSWORD}@", 1)
    redact = redactor.redact if redactor is not None else None
    reply = OpenAIChatClient(KEY, base_url, redact=redact, limits=ClientLimits(timeout=5.0)).complete(
        MESSAGES, model="m"
    )
    assert reply.text == "hello"
    logged = "\n".join(everything_logged.lines)
    assert "HTTP Request: POST" in logged  # httpx logged the request, URL included
    assert URL_PASSWORD not in logged and KEY not in logged
