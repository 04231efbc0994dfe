"""Azure OpenAI through the same client: the deployment path and the api-key header."""

from __future__ import annotations

import pytest

from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.llm.errors import LLMNotFoundError

MESSAGES = [{"role": "user", "content": "hi"}]


def azure_client(fake_llm) -> OpenAIChatClient:
    return OpenAIChatClient(
        "azure-test-key",
        azure_endpoint=fake_llm.root_url,
        api_version="2024-10-21",
        limits=ClientLimits(timeout=5.0),
    )


def test_azure_requests_land_on_the_deployment_path_with_the_api_key_header(fake_llm):
    fake_llm.load({"*": ["from azure"]})

    text = "".join(azure_client(fake_llm).stream(MESSAGES, model="my-deployment"))

    request = fake_llm.chat_requests()[0]
    assert text == "from azure"
    assert request["path"] == "/openai/deployments/my-deployment/chat/completions"
    assert request["query"] == {"api-version": "2024-10-21"}
    assert request["headers"]["api-key"] == "azure-test-key"
    assert "authorization" not in request["headers"]
    assert request["body"]["stream_options"] == {"include_usage": True}


def test_azure_404_names_the_deployment_url(fake_llm):
    fake_llm.load({"*": [{"fault": "http_404"}]})

    with pytest.raises(LLMNotFoundError) as caught:
        azure_client(fake_llm).stream(MESSAGES, model="missing-deployment")

    assert "/openai/deployments/missing-deployment/chat/completions" in str(caught.value)
    assert "deployment name" in str(caught.value)
