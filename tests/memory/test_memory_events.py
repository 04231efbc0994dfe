"""Events are frozen dataclasses; observers receive them; a failing observer never breaks the Round."""

import dataclasses
import logging
import typing

import pytest

from twnb.memory import (
    AttachmentDelta,
    AttachmentType,
    Event,
    MessageDelta,
    NullObserver,
    Observer,
    ObserverGroup,
    Post,
    PostCommitted,
    PostRetry,
    PostStarted,
    RoundEnded,
    RoundFailed,
    RoundStarted,
    StatusChanged,
    UsageReported,
)
from twnb.memory.events import (
    CodeRunEnded,
    CodeRunStarted,
    EventRelay,
    LLMCallEnded,
    LLMCallStarted,
    PluginCalled,
)

ALL_EVENTS = [
    RoundStarted("round-1", "q"),
    RoundEnded("round-1", "failed", "boom"),
    RoundFailed("round-1", "boom"),
    PostStarted("post-1", "Planner", "CodeInterpreter"),
    MessageDelta("post-1", "Hel", False),
    AttachmentDelta("post-1", "atta-1", AttachmentType.thought, "th", True),
    PostRetry("post-1", "stream dropped"),
    PostCommitted(Post.create("m", "Planner")),
    StatusChanged("running code"),
    UsageReported("post-1", {"prompt_tokens": 3}),
    LLMCallStarted("1", "Planner", "m", "openai", "127.0.0.1", 8000, "json", ({"role": "user"},)),
    LLMCallEnded("1", "Planner", "m", "stop", {"prompt_tokens": 3}),
    CodeRunStarted("post-1", "x = 1"),
    CodeRunEnded("post-1", "success", 0.1, None, ("a.png",)),
    PluginCalled(
        "post-1", "add", "mcp", "2026-01-01T00:00:00.000+00:00", 0.01, None, (("a", "int"),), "int 3"
    ),
]


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def on_event(self, event: Event) -> None:
        self.events.append(event)


class Broken:
    def on_event(self, event: Event) -> None:
        raise RuntimeError("view crashed")


def test_event_union_lists_every_event_type():
    assert set(typing.get_args(Event)) == {type(event) for event in ALL_EVENTS}


@pytest.mark.parametrize("event", ALL_EVENTS, ids=lambda e: type(e).__name__)
def test_events_are_frozen(event):
    for field in dataclasses.fields(event):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(event, field.name, "changed")


@pytest.mark.parametrize("event", ALL_EVENTS, ids=lambda e: type(e).__name__)
def test_events_built_by_keyword_equal_and_hash_like_those_built_by_position(event):
    values = {field.name: getattr(event, field.name) for field in dataclasses.fields(event)}
    again = type(event)(**values)
    assert again == event
    if not isinstance(event, PostCommitted | UsageReported):  # these hold mutable data
        assert hash(again) == hash(event)


def test_replace_gives_a_new_delta_with_one_field_changed():
    delta = AttachmentDelta("post-1", "atta-1", AttachmentType.thought, "th", False)
    assert dataclasses.replace(delta, text="ought", is_end=True) == AttachmentDelta(
        "post-1", "atta-1", AttachmentType.thought, "ought", True
    )
    assert delta.text == "th"


def test_deltas_with_different_text_are_not_equal():
    assert MessageDelta("post-1", "a", False) != MessageDelta("post-1", "b", False)


def test_event_fields_are_the_agreed_ones():
    names = {type(e).__name__: [f.name for f in dataclasses.fields(e)] for e in ALL_EVENTS}
    assert names == {
        "RoundStarted": ["round_id", "user_query"],
        "RoundEnded": ["round_id", "state", "failure_reason"],
        "RoundFailed": ["round_id", "reason", "error_type"],
        "PostStarted": ["post_id", "send_from", "send_to"],
        "MessageDelta": ["post_id", "text", "is_end"],
        "AttachmentDelta": ["post_id", "attachment_id", "type", "text", "is_end"],
        "PostRetry": ["post_id", "reason"],
        "PostCommitted": ["post"],
        "StatusChanged": ["text"],
        "UsageReported": ["post_id", "usage"],
        "LLMCallStarted": [
            "call_id",
            "role",
            "model",
            "provider",
            "server_address",
            "server_port",
            "output_type",
            "messages",
        ],
        "LLMCallEnded": [
            "call_id",
            "role",
            "response_model",
            "finish_reason",
            "usage",
            "error_type",
            "error",
            "response_id",
            "output_text",
        ],
        "CodeRunStarted": ["post_id", "code"],
        "CodeRunEnded": [
            "post_id",
            "status",
            "duration_s",
            "error_type",
            "artifacts",
            "result_text",
            "waited_s",
            "waited_after_s",
        ],
        "PluginCalled": [
            "post_id",
            "name",
            "source",
            "started_at",
            "duration_s",
            "error",
            "arguments",
            "result",
        ],
    }


def test_recorder_null_and_group_satisfy_the_observer_protocol():
    assert all(isinstance(o, Observer) for o in (Recorder(), NullObserver(), ObserverGroup([])))


def test_null_observer_accepts_every_event():
    observer = NullObserver()
    assert [observer.on_event(event) for event in ALL_EVENTS] == [None] * len(ALL_EVENTS)


def test_group_fans_out_to_every_observer_in_order():
    first, second = Recorder(), Recorder()
    group = ObserverGroup([first, second])
    for event in ALL_EVENTS:
        group.on_event(event)
    assert first.events == ALL_EVENTS and second.events == ALL_EVENTS


def test_group_swallows_a_failing_observer_and_keeps_delivering(caplog):
    after = Recorder()
    group = ObserverGroup([Broken(), after])
    with caplog.at_level(logging.ERROR, logger="twnb.memory.events"):
        group.on_event(StatusChanged("x"))
    assert after.events == [StatusChanged("x")]
    assert "view crashed" in caplog.text and "StatusChanged" in caplog.text


def test_group_add_appends_an_observer():
    group, recorder = ObserverGroup(), Recorder()
    group.add(recorder)
    group.on_event(StatusChanged("x"))
    assert recorder.events == [StatusChanged("x")]


def test_a_relay_passes_events_to_the_connected_observer_only_while_connected():
    relay, recorder = EventRelay(), Recorder()
    relay.on_event(StatusChanged("before"))
    relay.connect(recorder)
    relay.on_event(StatusChanged("during"))
    relay.connect(None)
    relay.on_event(StatusChanged("after"))
    assert recorder.events == [StatusChanged("during")]
