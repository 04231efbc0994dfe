"""Fixtures shared by every test folder.

`fake_llm`: a loopback OpenAI-compatible server (tests/fakellm) started for one test and stopped after it.

    def test_x(fake_llm):
        fake_llm.load({"Planner": ["{...}"], "*": ["hi"]})
        client = OpenAIChatClient(api_key="test-key", base_url=fake_llm.base_url)
        ...
        assert fake_llm.requests()[0]["body"]["stream"] is True
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

# The fake server lives beside the tests, not in the package: tests/ is on the import path through
# pytest's `pythonpath` (pyproject.toml), as is the repository's root (hatch_build.py).
from fakellm.server import FakeLLMServer


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    """A started FakeLLMServer with an empty script: `.base_url` (ends in /v1), `.root_url`
    (Azure's endpoint), `.load(script)`, `.requests()`, `.chat_requests()`, `.remaining()`, `.reset()`."""
    server = FakeLLMServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def forget_refused_formats() -> Iterator[None]:
    """The process remembers which response_format each server refused (per URL and model): a test's
    loopback server may reuse an earlier one's port, so every test starts with nothing remembered."""
    yield
    from twnb.llm.response_format import PROCESS_FORMATS

    PROCESS_FORMATS.clear()
