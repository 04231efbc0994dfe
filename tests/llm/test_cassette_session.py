"""The session's client stack: redacted prompts, response_format fallback, recording, then replay."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from twnb.llm.redacting_client import RedactingClient
from twnb.llm.redaction import Redactor
from twnb.llm.response_format import json_object_format
from twnb.llm.session_client import session_chat_client
from twnb.llm.settings import resolve_settings

CANARY_KEY = "sk-canary-session-0123456789abcdef"
CANARY_ENV = "canary-session-env-9z8y7x6w"
SYSTEM = {"role": "system", "content": "You are the Planner."}
REPLY_1 = '{"response": {"message": "one"}}'
REPLY_2 = '{"response": {"message": "two"}}'


@pytest.fixture
def resolved(fake_llm, tmp_path: Path):
    environ = {
        "OPENAI_BASE_URL": fake_llm.base_url,
        "OPENAI_API_KEY": CANARY_KEY,
        "TWNB_MODEL": "fake-model",
        "WAREHOUSE_PASSWORD": CANARY_ENV,
    }
    return resolve_settings(workdir=tmp_path, home=tmp_path, environ=environ)


def redactor_for(resolved) -> Redactor:
    return Redactor.from_settings(resolved, environ={"WAREHOUSE_PASSWORD": CANARY_ENV})


def test_a_redacting_client_sends_no_secret_in_a_prompt(fake_llm):
    from twnb.llm.client import OpenAIChatClient

    fake_llm.load({"*": ["ok"]})
    client = RedactingClient(
        OpenAIChatClient("test-key", fake_llm.base_url, timeout=5.0), Redactor([CANARY_ENV])
    )
    list(client.stream([{"role": "user", "content": f"the output was {CANARY_ENV}"}], model="fake-model"))
    sent = fake_llm.chat_requests()[0]["body"]["messages"]
    assert sent == [{"role": "user", "content": "the output was [redacted]"}]


def test_record_with_the_session_stack_then_replay_it(fake_llm, resolved, tmp_path):
    fake_llm.load({"Planner": [{"content": REPLY_1, "reject_response_format": True}, REPLY_2]})
    cassette = tmp_path / "s.cassette.yaml"
    redactor = redactor_for(resolved)
    live = session_chat_client(resolved, redactor=redactor, record_to=cassette, timeout=5.0)
    calls = [
        [SYSTEM, {"role": "user", "content": f"printed {CANARY_ENV}"}],
        [SYSTEM, {"role": "user", "content": "next"}],
    ]
    model = resolved.settings.model_for("Planner")
    texts = [
        "".join(live.stream(m, model=model, role="Planner", response_format=json_object_format()))
        for m in calls
    ]

    bodies = json.dumps([r["body"] for r in fake_llm.chat_requests()])
    assert texts == [REPLY_1, REPLY_2]
    assert CANARY_ENV not in bodies  # redacted before it left
    assert ["response_format" in r["body"] for r in fake_llm.chat_requests()] == [True, False, False]
    assert CANARY_ENV not in cassette.read_text() and CANARY_KEY not in cassette.read_text()

    fake_llm.stop()
    replay = session_chat_client(resolved, redactor=redactor, replay_from=cassette)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = ["".join(replay.stream(m, model=model, role="Planner")) for m in calls]
    assert again == texts


def test_recording_and_replaying_at_once_is_refused(resolved, tmp_path):
    with pytest.raises(ValueError, match="Record or replay, not both"):
        session_chat_client(resolved, record_to=tmp_path / "a", replay_from=tmp_path / "b")
