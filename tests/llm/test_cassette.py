"""Record a session's LLM calls against the loopback server, then replay them with no server at all."""

from __future__ import annotations

import logging
import warnings
from pathlib import Path

import pytest
import yaml

from twnb.config import RedactingFilter, Redactor
from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.llm.cassette import (
    CassetteDriftWarning,
    CassetteError,
    CassetteExhausted,
    RecordingClient,
    ReplayClient,
    cassette_path_for,
    load_cassette,
    messages_sha256,
)
from twnb.llm.errors import LLMAuthError, LLMStreamDropped

CANARY_KEY = "sk-canary-cassette-0123456789abcdef"
CANARY_ENV = "canary-env-secret-5f4e3d2c"

PLANNER_SYSTEM = {"role": "system", "content": "You are the Planner. Plan the work."}
CODER_SYSTEM = {"role": "system", "content": "You are the CodeInterpreter. Write Python."}
PLANNER_1 = '{"response": {"message": "step one", "send_to": "CodeInterpreter"}}'
CODER_1 = '{"response": {"thought": "add", "reply_type": "python", "reply_content": "1 + 1"}}'
PLANNER_2 = '{"response": {"message": "The answer is 2.", "send_to": "User"}}'
SCRIPT = {
    "Planner": [{"content": PLANNER_1, "reasoning": "think first"}, PLANNER_2],
    "CodeInterpreter": [CODER_1],
}


def session_calls(user_text: str = "what is 1 + 1?") -> list[tuple[str, list[dict]]]:
    """The three calls of a small Round: Planner, CodeInterpreter, Planner."""
    return [
        ("Planner", [PLANNER_SYSTEM, {"role": "user", "content": user_text}]),
        ("CodeInterpreter", [CODER_SYSTEM, {"role": "user", "content": "step one"}]),
        (
            "Planner",
            [PLANNER_SYSTEM, {"role": "user", "content": user_text}, {"role": "user", "content": "2"}],
        ),
    ]


def run(client, calls) -> list[dict]:
    out = []
    for role, messages in calls:
        stream = client.stream(messages, model="fake-model", role=role)
        chunks = list(stream)
        out.append(
            {
                "chunks": chunks,
                "text": "".join(chunks),
                "reasoning": stream.reasoning,
                "finish_reason": stream.finish_reason,
                "usage": (stream.usage.prompt_tokens, stream.usage.completion_tokens),
            }
        )
    return out


@pytest.fixture
def recorded(fake_llm, tmp_path: Path):
    """A cassette recorded from three live calls; returns (path, live results)."""
    fake_llm.load(SCRIPT)
    path = cassette_path_for(tmp_path / "session.yaml")
    client = RecordingClient(
        OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=5.0)), path
    )
    live = run(client, session_calls())
    return path, live


def test_the_cassette_sits_beside_the_conversation():
    assert cassette_path_for(Path("/runs/session.yaml")) == Path("/runs/session.cassette.yaml")


def test_recording_keeps_every_request_and_reply(recorded):
    path, live = recorded
    entries = load_cassette(path)
    assert [e.role for e in entries] == ["Planner", "CodeInterpreter", "Planner"]
    assert [e.index for e in entries] == [0, 1, 2]
    assert [e.content for e in entries] == [PLANNER_1, CODER_1, PLANNER_2]
    assert entries[0].reasoning == "think first"
    assert entries[1].messages == session_calls()[1][1]
    assert entries[0].finish_reason == "stop"
    assert (entries[0].usage["prompt_tokens"], entries[0].usage["completion_tokens"]) == live[0]["usage"]


def test_replay_serves_the_same_replies_without_a_server(recorded, fake_llm):
    path, live = recorded
    fake_llm.stop()  # nothing to talk to: the replay must not need it
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no drift warning for an identical session
        replayed = run(ReplayClient(path), session_calls())
    for got, want in zip(replayed, live, strict=True):
        assert (got["text"], got["reasoning"], got["finish_reason"], got["usage"]) == (
            want["text"],
            want["reasoning"],
            want["finish_reason"],
            want["usage"],
        )


def test_replay_streams_in_chunks_like_a_live_server(recorded):
    path, _ = recorded
    result = run(ReplayClient(path, chunk_size=8), session_calls()[:1])[0]
    assert len(result["chunks"]) == -(-len(PLANNER_1) // 8)
    assert all(len(c) <= 8 for c in result["chunks"])


def test_replay_serves_each_role_in_its_own_order(recorded):
    path, _ = recorded
    client = ReplayClient(path)
    calls = session_calls()
    # Asking out of the recorded order is drift, warned about, but each role still gets its own replies.
    with pytest.warns(CassetteDriftWarning):
        coder = "".join(client.stream(calls[1][1], model="m", role="CodeInterpreter"))
        planner = "".join(client.stream(calls[0][1], model="m", role="Planner"))
    assert (coder, planner) == (CODER_1, PLANNER_1)


def test_a_drifted_request_warns_naming_the_call_and_the_message(recorded):
    path, _ = recorded
    client = ReplayClient(path)
    calls = session_calls()
    run(client, calls[:1])
    changed = [CODER_SYSTEM, {"role": "user", "content": "step one, but different"}]

    with pytest.warns(CassetteDriftWarning) as caught:
        text = "".join(client.stream(changed, model="m", role="CodeInterpreter"))

    message = str(caught[0].message)
    assert text == CODER_1  # the recorded reply is still served
    assert "call 2 (CodeInterpreter)" in message
    assert "message 2 (user)" in message
    assert "step one, but different" in message


def test_a_request_from_another_role_than_recorded_warns_naming_both_roles(recorded):
    path, _ = recorded
    calls = session_calls()
    with pytest.warns(CassetteDriftWarning, match="recorded a Planner call here, but CodeInterpreter asked"):
        list(ReplayClient(path).stream(calls[1][1], model="m", role="CodeInterpreter"))


def test_running_out_of_replies_is_a_clear_error(recorded):
    path, _ = recorded
    client = ReplayClient(path)
    run(client, session_calls())
    with pytest.raises(CassetteExhausted, match="no more replies for role 'CodeInterpreter': it recorded 1"):
        client.stream(session_calls()[1][1], model="m", role="CodeInterpreter")


def test_recording_appends_to_an_existing_cassette(recorded, fake_llm):
    path, _ = recorded
    fake_llm.load({"*": ["more"]})
    client = RecordingClient(
        OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=5.0)), path
    )
    run(client, [("Other", [{"role": "user", "content": "again"}])])
    assert [e.index for e in load_cassette(path)] == [0, 1, 2, 3]


def test_a_dropped_stream_is_recorded_and_replays_as_dropped(fake_llm, tmp_path):
    fake_llm.load({"*": [{"content": "partial reply text", "drop_after_chars": 7}]})
    path = tmp_path / "c.cassette.yaml"
    client = RecordingClient(
        OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=5.0)), path
    )
    with pytest.raises(LLMStreamDropped):
        list(client.stream([{"role": "user", "content": "x"}], model="fake-model"))

    entry = load_cassette(path)[0]
    assert entry.error["type"] == "LLMStreamDropped" and entry.content == "partial"

    replay = ReplayClient(path).stream([{"role": "user", "content": "x"}], model="fake-model")
    with pytest.raises(LLMStreamDropped) as caught:
        list(replay)
    assert caught.value.partial_text == "partial"


def test_a_refused_request_is_recorded_and_replays_as_the_same_error(fake_llm, tmp_path):
    fake_llm.load({"*": [{"fault": "http_401"}]})
    path = tmp_path / "c.cassette.yaml"
    client = RecordingClient(
        OpenAIChatClient(CANARY_KEY, fake_llm.base_url, limits=ClientLimits(timeout=5.0)), path
    )
    with pytest.raises(LLMAuthError):
        client.stream([{"role": "user", "content": "x"}], model="fake-model")
    with pytest.raises(LLMAuthError, match=r"^\(replayed\)"):
        ReplayClient(path).stream([{"role": "user", "content": "x"}], model="fake-model")
    assert CANARY_KEY not in path.read_text()


def test_canary_secrets_never_reach_the_cassette_the_log_or_an_error(fake_llm, tmp_path, monkeypatch, caplog):
    """A key, a secret-named environment value and a key-shaped string in the prompt, the reply and
    the server's error text: none is written anywhere."""
    monkeypatch.setenv("TWNB_TEST_SERVICE_TOKEN", CANARY_ENV)
    redactor = Redactor([CANARY_KEY])
    caplog.handler.addFilter(RedactingFilter(redactor))
    fake_llm.load({"*": [f"reply quoting {CANARY_ENV}", {"fault": "http_401"}]})
    path = tmp_path / "s.cassette.yaml"
    client = RecordingClient(
        OpenAIChatClient(
            CANARY_KEY, fake_llm.base_url, redact=redactor.redact, limits=ClientLimits(timeout=5.0)
        ),
        path,
        redactor=redactor,
    )
    prompt = [{"role": "user", "content": f"env printed {CANARY_ENV}; key {CANARY_KEY}"}]

    with caplog.at_level(logging.DEBUG):  # the SDK logs whole requests at DEBUG
        assert CANARY_ENV in "".join(client.stream(prompt, model="fake-model"))
        with pytest.raises(LLMAuthError) as caught:
            client.stream(prompt, model="fake-model")
        logging.getLogger("twnb.test").warning("prompt was %s", prompt)

    text = path.read_text()
    for canary in (CANARY_KEY, CANARY_ENV):
        assert canary not in text
        assert canary not in caplog.text
        assert canary not in str(caught.value)
    assert "[redacted]" in text and "[redacted]" in caplog.text
    documents = list(yaml.safe_load_all(text))
    assert not any(key.lower() in ("authorization", "api-key", "headers") for d in documents for key in d)


def test_a_file_that_is_not_a_cassette_is_refused(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text("id: conv-1\nrounds: []\n")
    with pytest.raises(CassetteError, match="is not a twnb cassette"):
        ReplayClient(path)


def test_a_missing_cassette_says_how_to_get_one(tmp_path):
    with pytest.raises(CassetteError, match=r"No cassette at .*Record one first"):
        ReplayClient(tmp_path / "none.cassette.yaml")


def test_twnb_run_ids_are_not_drift():
    # Post, Round and session ids (and artifact names built from them) are new on every run.
    recorded = [{"role": "user", "content": "see post-20261130-130031-40e552f3-display-1.png"}]
    replayed = [{"role": "user", "content": "see post-20270101-000000-0123abcd-display-1.png"}]
    assert messages_sha256(recorded) == messages_sha256(replayed)
    assert messages_sha256(recorded) != messages_sha256([{"role": "user", "content": "see other.png"}])
