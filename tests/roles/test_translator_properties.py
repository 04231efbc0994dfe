"""Property: however a reply is cut into chunks, raw_text_to_post builds the same Post and the same text
through its events as from the reply in one piece."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from twnb.memory import AttachmentDelta, MessageDelta, Post
from twnb.roles.errors import TranslationError
from twnb.roles.translator import PostTranslator

translator = PostTranslator()

TEXT = st.text(alphabet=st.sampled_from([*'ab "\\{}<>/\nué数😀\t', "\ud83d"]), max_size=30)
VALUE = st.one_of(TEXT, TEXT, st.integers(), st.booleans(), st.none(), st.lists(TEXT, max_size=2))
KEYS = st.sampled_from(
    ["thought", "reply_type", "reply_content", "plan", "stop", "send_to", "message", "other"]
)


@st.composite
def replies(draw) -> str:
    members = draw(st.lists(st.tuples(KEYS, VALUE), max_size=6))
    body = "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in members) + "}"  # keys may repeat
    reply = json.dumps({"response": None}).replace("null", body)
    think = draw(st.sampled_from(["", "<think>why {x}</think>", "thinking...</think>"]))
    fence = draw(st.booleans())
    if fence:
        reply = "```json\n" + reply + "\n```"
    truncate = draw(st.booleans())
    if truncate:  # a dropped tail: the translation must fail the same way however it is chunked
        reply = reply[: draw(st.integers(min_value=0, max_value=len(reply)))]
    return think + reply


def snapshot(chunks: list[str]):
    """What a caller can observe: the Post (ids aside), the error, and the text carried by events."""
    events: list[object] = []

    class Recorder:
        def on_event(self, event: object) -> None:
            events.append(event)

    error = None
    try:
        post = translator.raw_text_to_post(chunks, "Planner", Recorder(), post_id="p")
    except TranslationError as exc:
        post, error = exc.partial_post, (exc.kind, str(exc), exc.raw_text)
    assert isinstance(post, Post)
    order = [a.id for a in post.attachment_list]
    streamed: dict[str, str] = {}
    message = ""
    for event in events:
        if isinstance(event, AttachmentDelta):
            streamed[event.attachment_id] = streamed.get(event.attachment_id, "") + event.text
        elif isinstance(event, MessageDelta):
            message += event.text
    return (
        [(a.type, a.content) for a in post.attachment_list],
        post.message,
        post.send_to,
        post.extra,
        error,
        [streamed.get(i) for i in order],
        message,
    )


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


@settings(max_examples=300, deadline=None)
@given(replies(), st.lists(st.integers(min_value=0, max_value=10_000), max_size=25))
def test_any_chunking_gives_the_same_post_and_the_same_streamed_text(reply, cuts):
    assert snapshot(split(reply, cuts)) == snapshot([reply])


@settings(max_examples=100, deadline=None)
@given(replies())
def test_streamed_text_equals_the_final_contents(reply):
    attachments, message, _, _, error, streamed, streamed_message = snapshot(list(reply))
    if error is None:
        assert streamed == [content for _, content in attachments]
        assert streamed_message == message
