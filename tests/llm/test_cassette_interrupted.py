"""Calls that end badly are recorded too (Ctrl-C, a stream closed or dropped early), so a replay of the
session serves the same sequence and stops where the recording stopped."""

from __future__ import annotations

import gc
import signal
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.llm.cassette import STREAM_CLOSED, CassetteExhausted, RecordingClient, ReplayClient, load_cassette

# Ctrl-C is sent as a real SIGINT, which Python's own handler turns into KeyboardInterrupt mid-read.
pytestmark = pytest.mark.skipif(
    not hasattr(signal, "pthread_kill") or signal.getsignal(signal.SIGINT) is not signal.default_int_handler,
    reason="needs POSIX signals and Python's own SIGINT handler",
)

PLANNER = [{"role": "system", "content": "You are the Planner."}, {"role": "user", "content": "count"}]
CODER = [{"role": "system", "content": "You are the CodeInterpreter."}, {"role": "user", "content": "go"}]
LONG = "0123456789" * 8
SLOW = {"content": LONG, "chunk_size": 4, "delay_s": 0.1}  # 20 chunks over two seconds


def live_client(fake_llm, path: Path) -> RecordingClient:
    return RecordingClient(
        OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=10.0)), path
    )


def ctrl_c_soon() -> threading.Timer:
    """SIGINT to the main thread in 50 ms: Python raises KeyboardInterrupt there, mid-read."""
    main = threading.main_thread().ident
    timer = threading.Timer(0.05, signal.pthread_kill, (main, signal.SIGINT))
    timer.start()
    return timer


def read_until_interrupted(stream: Iterator[str]) -> str:
    got: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        got.append(next(stream))  # the first chunk is in before Ctrl-C
        timer = ctrl_c_soon()
        try:
            for piece in stream:
                got.append(piece)
        finally:
            timer.join()
    return "".join(got)


def read(stream: Iterator[str], pieces: int) -> str:
    return "".join(next(stream) for _ in range(pieces))


def test_a_call_interrupted_by_ctrl_c_is_recorded_with_what_arrived(fake_llm, tmp_path):
    fake_llm.load({"Planner": [SLOW]})
    path = tmp_path / "s.cassette.yaml"

    stream = live_client(fake_llm, path).stream(PLANNER, model="fake-model", role="Planner")
    arrived = read_until_interrupted(stream)

    [entry] = load_cassette(path)
    assert 0 < len(arrived) < len(LONG)
    assert entry.content == arrived and entry.finish_reason is None
    assert entry.error == {
        "type": "KeyboardInterrupt",
        "at": "stream",
        "message": f"interrupted (Ctrl-C) after {len(arrived)} characters",
    }


def test_ctrl_c_while_the_request_is_made_is_recorded_at_the_request(fake_llm, tmp_path):
    fake_llm.load({"Planner": [{"content": "late", "delay_headers_s": 1.0}]})
    path = tmp_path / "s.cassette.yaml"
    client = live_client(fake_llm, path)

    timer = ctrl_c_soon()
    with pytest.raises(KeyboardInterrupt):
        client.stream(PLANNER, model="fake-model", role="Planner")
    timer.join()

    [entry] = load_cassette(path)
    assert (entry.error["type"], entry.error["at"], entry.content) == ("KeyboardInterrupt", "request", "")
    with pytest.raises(KeyboardInterrupt, match=r"^\(replayed\) interrupted \(Ctrl-C\)"):
        ReplayClient(path).stream(PLANNER, model="fake-model", role="Planner")


def test_record_then_replay_a_session_with_an_interrupted_call(fake_llm, tmp_path):
    fake_llm.load({"Planner": [SLOW, "plan"], "CodeInterpreter": ["code"]})
    path = tmp_path / "s.cassette.yaml"
    live = live_client(fake_llm, path)
    arrived = read_until_interrupted(live.stream(PLANNER, model="fake-model", role="Planner"))
    after = [
        "".join(live.stream(PLANNER, model="fake-model", role="Planner")),  # the user runs it again
        "".join(live.stream(CODER, model="fake-model", role="CodeInterpreter")),
    ]
    fake_llm.stop()

    replay = ReplayClient(path, chunk_size=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no drift: the replay is in step with the recording
        replayed = read_until_interrupted_replay(replay.stream(PLANNER, model="fake-model", role="Planner"))
        again = [
            "".join(replay.stream(PLANNER, model="fake-model", role="Planner")),
            "".join(replay.stream(CODER, model="fake-model", role="CodeInterpreter")),
        ]

    assert after == ["plan", "code"]
    assert (replayed, again) == (arrived, after)
    assert replay.remaining() == {}


def read_until_interrupted_replay(stream: Iterator[str]) -> str:
    """A replayed Ctrl-C comes from the cassette itself, after the text that had arrived."""
    got: list[str] = []
    replayed_ctrl_c = r"^\(replayed\) interrupted \(Ctrl-C\) after \d+ characters$"
    with pytest.raises(KeyboardInterrupt, match=replayed_ctrl_c):
        for piece in stream:
            got.append(piece)
    return "".join(got)


def test_a_stream_closed_early_is_recorded_with_what_was_read(fake_llm, tmp_path):
    fake_llm.load({"Planner": [LONG]})
    path = tmp_path / "s.cassette.yaml"

    stream = live_client(fake_llm, path).stream(PLANNER, model="fake-model", role="Planner")
    read_text = read(stream, 3)
    stream.close()

    [entry] = load_cassette(path)
    assert (entry.content, entry.finish_reason) == (read_text, None)
    assert entry.error == {
        "type": STREAM_CLOSED,
        "at": "stream",
        "message": "closed by the caller after 12 characters, before the reply ended",
    }


def test_a_closed_call_replays_in_step_when_the_replay_closes_it_too(fake_llm, tmp_path):
    fake_llm.load({"Planner": [LONG, "second"]})
    path = tmp_path / "s.cassette.yaml"
    live = live_client(fake_llm, path)
    first = live.stream(PLANNER, model="fake-model", role="Planner")
    read_text = read(first, 3)
    first.close()
    "".join(live.stream(PLANNER, model="fake-model", role="Planner"))

    replay = ReplayClient(path, chunk_size=4)
    stream = replay.stream(PLANNER, model="fake-model", role="Planner")
    replayed = read(stream, 3)
    stream.close()

    assert replayed == read_text
    assert "".join(replay.stream(PLANNER, model="fake-model", role="Planner")) == "second"


def test_a_replay_reading_past_where_the_call_was_closed_is_told_it_drifted(fake_llm, tmp_path):
    fake_llm.load({"Planner": [LONG]})
    path = tmp_path / "s.cassette.yaml"
    stream = live_client(fake_llm, path).stream(PLANNER, model="fake-model", role="Planner")
    read(stream, 3)
    stream.close()

    replayed = ReplayClient(path).stream(PLANNER, model="fake-model", role="Planner")

    with pytest.raises(CassetteExhausted, match="closed by its caller after 12 characters; this replay"):
        list(replayed)


def test_a_stream_dropped_unread_is_recorded_in_its_place(fake_llm, tmp_path):
    fake_llm.load({"Planner": [LONG, "second"]})
    path = tmp_path / "s.cassette.yaml"
    live = live_client(fake_llm, path)

    abandoned = live.stream(PLANNER, model="fake-model", role="Planner")
    read_text = read(abandoned, 2)  # the caller gives up without close() (say, the translator raised)
    second = live.stream(PLANNER, model="fake-model", role="Planner")
    del abandoned
    gc.collect()
    "".join(second)

    entries = load_cassette(path)
    assert [(e.index, e.content, (e.error or {}).get("type")) for e in entries] == [
        (0, read_text, STREAM_CLOSED),
        (1, "second", None),
    ]
