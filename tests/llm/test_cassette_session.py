"""The session's client stack: redacted prompts, response_format fallback, recording, then replay."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from twnb.config import Redactor
from twnb.config.resolution import resolve_settings
from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.llm.cassette import load_cassette
from twnb.llm.redacting_client import RedactingClient
from twnb.llm.response_format import json_object_format, json_schema_format
from twnb.llm.session_client import session_chat_client

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
    fake_llm.load({"*": ["ok"]})
    client = RedactingClient(
        OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=5.0)),
        Redactor([CANARY_ENV]),
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


def test_a_client_passed_as_inner_gets_redaction_fallback_and_recording(fake_llm, resolved, tmp_path):
    fake_llm.load({"Planner": [{"content": REPLY_1, "reject_response_format": ["json_schema"]}]})
    cassette = tmp_path / "s.cassette.yaml"
    inner = OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=5.0))
    client = session_chat_client(resolved, redactor=redactor_for(resolved), inner=inner, record_to=cassette)
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    messages = [SYSTEM, {"role": "user", "content": f"printed {CANARY_ENV}"}]
    rf = json_schema_format(schema)

    text = "".join(client.stream(messages, model="fake-model", role="Planner", response_format=rf))

    sent = fake_llm.chat_requests()
    assert text == REPLY_1
    assert [r["body"]["response_format"]["type"] for r in sent] == ["json_schema", "json_object"]
    assert sent[-1]["body"]["messages"][-1]["content"] == "printed [redacted]"
    assert [entry.content for entry in load_cassette(cassette)] == [REPLY_1]


def test_an_inner_client_and_a_replay_are_refused_together(resolved, tmp_path):
    with pytest.raises(ValueError, match=r"Pass a client to wrap \(inner\) or a cassette to replay"):
        session_chat_client(resolved, inner=object(), replay_from=tmp_path / "c.yaml")


def test_client_options_with_an_inner_client_are_refused_naming_them(resolved):
    with pytest.raises(ValueError, match=r"^Client options \(max_retries, timeout\) configure the live"):
        session_chat_client(resolved, inner=object(), timeout=5.0, max_retries=1)
