"""Cassettes are written by the one YAML writer (twnb.memory.dump_yaml) and read by the one reader: text
libyaml cannot hold (a lone surrogate, a half emoji a model sent) and YAML's own line breaks (U+2028)
survive a recording and a replay, and a hostile cassette is refused like a hostile conversation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.llm.cassette import CassetteError, RecordingClient, ReplayClient, load_cassette

ODD = "half an emoji \ud83d, a line\u2028separator, a next-line\x85mark, and\ttabs  "
REPLY = json.dumps({"response": {"message": ODD, "send_to": "User"}}, ensure_ascii=False)
# The openai SDK refuses to send a lone surrogate, so only the reply (decoded from "\\ud83d") has one.
ASKED = ODD.replace("\ud83d", "")
MESSAGES = [{"role": "system", "content": "You are the Planner."}, {"role": "user", "content": ASKED}]


def _record(fake_llm, path: Path) -> str:
    fake_llm.load({"Planner": [REPLY]})
    client = RecordingClient(
        OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=5.0)), path
    )
    return "".join(client.stream(MESSAGES, model="fake-model", role="Planner"))


def test_odd_text_is_recorded_and_read_back_exactly(fake_llm, tmp_path):
    path = tmp_path / "s.cassette.yaml"
    live = _record(fake_llm, path)
    (entry,) = load_cassette(path)
    assert entry.content == live and "\ud83d" in live and "\u2028" in live
    assert entry.messages[1]["content"] == ASKED


def test_odd_text_replays_exactly(fake_llm, tmp_path):
    path = tmp_path / "s.cassette.yaml"
    live = _record(fake_llm, path)
    fake_llm.stop()
    replayed = "".join(ReplayClient(path).stream(MESSAGES, model="fake-model", role="Planner"))
    assert replayed == live


def test_the_unicode_line_separator_is_escaped_in_the_file(fake_llm, tmp_path):
    path = tmp_path / "s.cassette.yaml"
    _record(fake_llm, path)
    text = path.read_text(encoding="utf-8")
    assert "\u2028" not in text and "\\L" in text


@pytest.mark.timeout(5)
def test_an_alias_bomb_cassette_is_refused_naming_the_file_and_line(tmp_path):
    path = tmp_path / "bomb.cassette.yaml"
    path.write_text("twnb_cassette: 1\n---\na: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n")
    with pytest.raises(CassetteError, match=rf"cassette: {path}: line 4, column 4: a YAML alias"):
        load_cassette(path)
