"""The key proxy on its own: the official openai SDK, given a placeholder key, reaches the fake server
through it with the real key, streams arrive in pieces, and one connection carries many requests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakellm import FakeLLMServer
from openai import AzureOpenAI, OpenAI

from twnb.confine.key_proxy import KeyProxyServer, Upstream

KEY = "sk-proj-proxyTEST0123456789abcdefghij"


@pytest.fixture
def proxied(fake_llm: FakeLLMServer) -> Iterator[KeyProxyServer]:
    server = KeyProxyServer(Upstream(fake_llm.base_url, KEY))
    server.serve_in_thread()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def test_the_real_key_replaces_the_placeholder(fake_llm: FakeLLMServer, proxied: KeyProxyServer) -> None:
    fake_llm.load({"*": ["hello"]})
    client = OpenAI(api_key="placeholder", base_url=proxied.proxy_url())
    reply = client.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content == "hello"
    assert fake_llm.chat_requests()[-1]["headers"]["authorization"] == f"Bearer {KEY}"


def test_a_stream_arrives_in_pieces_and_unchanged(fake_llm: FakeLLMServer, proxied: KeyProxyServer) -> None:
    fake_llm.load({"*": ["one two three four"]})
    client = OpenAI(api_key="placeholder", base_url=proxied.proxy_url())
    stream = client.chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    pieces = [c.choices[0].delta.content for c in stream if c.choices and c.choices[0].delta.content]
    assert len(pieces) > 1 and "".join(pieces) == "one two three four"


def test_one_connection_carries_many_requests(fake_llm: FakeLLMServer, proxied: KeyProxyServer) -> None:
    fake_llm.load({"*": ["a", "b", "c"]})
    client = OpenAI(api_key="placeholder", base_url=proxied.proxy_url())
    texts = [
        client.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "hi"}])
        .choices[0]
        .message.content
        for _ in range(3)
    ]
    assert texts == ["a", "b", "c"]


def test_azure_gets_the_key_as_its_api_key_header(fake_llm: FakeLLMServer) -> None:
    fake_llm.behaves_like = "azure"
    fake_llm.load({"*": ["hello"]})
    server = KeyProxyServer(Upstream(fake_llm.azure_endpoint, KEY, azure=True))
    server.serve_in_thread()
    try:
        client = AzureOpenAI(
            api_key="placeholder", azure_endpoint=server.proxy_url(), api_version="2024-10-21"
        )
        client.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "hi"}])
    finally:
        server.shutdown()
        server.server_close()
    assert fake_llm.chat_requests()[-1]["headers"]["api-key"] == KEY
