"""make_client: resolved settings become a real client, checked against the loopback server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from twnb.config import Redactor
from twnb.config.resolution import resolve_settings
from twnb.config.settings import SettingsError
from twnb.config.table import PLACEHOLDER_API_KEY
from twnb.llm.client import make_client
from twnb.llm.errors import LLMAuthError

CANARY_KEY = "sk-canary-settings-0123456789abcdefgh"
MESSAGES = [{"role": "user", "content": "hi"}]


def resolved_for(tmp_path: Path, environ: dict[str, str], **kwargs):
    return resolve_settings(workdir=tmp_path, home=tmp_path, environ=environ, **kwargs)


def test_azure_settings_reach_the_deployment_path_with_the_api_key_header(fake_llm, tmp_path):
    fake_llm.load({"*": ["from azure"]})
    resolved = resolved_for(
        tmp_path,
        {
            "AZURE_OPENAI_ENDPOINT": fake_llm.root_url,
            "AZURE_OPENAI_API_KEY": CANARY_KEY,
            "TWNB_MODEL": "my-deployment",
        },
    )
    client = make_client(resolved, timeout=5.0)

    text = "".join(client.stream(MESSAGES, model=resolved.settings.model_for("Planner")))

    request = fake_llm.chat_requests()[0]
    assert text == "from azure"
    assert request["path"] == "/openai/deployments/my-deployment/chat/completions"
    assert request["query"] == {"api-version": resolved.settings.api_version}
    assert request["headers"]["api-key"] == CANARY_KEY
    assert "authorization" not in request["headers"]


def test_openai_compatible_settings_send_the_key_as_a_bearer_token(fake_llm, tmp_path):
    fake_llm.load({"*": ["hello"]})
    resolved = resolved_for(tmp_path, {"OPENAI_BASE_URL": fake_llm.base_url, "OPENAI_API_KEY": CANARY_KEY})

    text = "".join(make_client(resolved, timeout=5.0).stream(MESSAGES, model="fake-model"))

    request = fake_llm.chat_requests()[0]
    assert text == "hello"
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == f"Bearer {CANARY_KEY}"


def test_a_local_server_without_a_key_gets_the_placeholder(fake_llm, tmp_path):
    fake_llm.load({"*": ["local"]})
    resolved = resolved_for(tmp_path, {"LLM_API_BASE": fake_llm.base_url, "LLM_MODEL": "llama3"})

    text = "".join(make_client(resolved, timeout=5.0).stream(MESSAGES, model=resolved.require_model()))

    assert text == "local"
    assert fake_llm.chat_requests()[0]["headers"]["authorization"] == f"Bearer {PLACEHOLDER_API_KEY}"
    assert fake_llm.chat_requests()[0]["body"]["model"] == "llama3"


def test_a_dotenv_key_reaches_the_server_while_os_environ_stays_clean(fake_llm, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={CANARY_KEY}\nOPENAI_BASE_URL={fake_llm.base_url}\n")
    fake_llm.load({"*": ["ok"]})
    resolved = resolve_settings(workdir=tmp_path, home=tmp_path)

    "".join(make_client(resolved, timeout=5.0).stream(MESSAGES, model="fake-model"))

    assert fake_llm.chat_requests()[0]["headers"]["authorization"] == f"Bearer {CANARY_KEY}"
    assert "OPENAI_API_KEY" not in os.environ


def test_no_key_for_openai_is_a_settings_error_before_any_request(tmp_path):
    with pytest.raises(SettingsError, match="No API key found for OpenAI"):
        make_client(resolved_for(tmp_path, {}))


def test_a_refused_key_never_appears_in_the_error(fake_llm, tmp_path):
    # The fake's 401 echoes the key it was sent, as careless servers do.
    fake_llm.load({"*": [{"fault": "http_401"}]})
    resolved = resolved_for(tmp_path, {"OPENAI_BASE_URL": fake_llm.base_url, "OPENAI_API_KEY": CANARY_KEY})
    client = make_client(resolved, redactor=Redactor.from_settings(resolved, environ={}), timeout=5.0)

    with pytest.raises(LLMAuthError) as caught:
        client.stream(MESSAGES, model="fake-model")

    assert CANARY_KEY not in str(caught.value)
    assert CANARY_KEY not in repr(caught.value)
