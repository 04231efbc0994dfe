"""Property: however a reply is cut into chunks, the parser yields the same values as in one piece."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from twnb.roles.json_stream import JsonStreamError, ReplyStreamParser

# Characters that stress the parser: quotes, backslashes, braces, tags, surrogates, control chars.
TEXT = st.text(
    alphabet=st.sampled_from([*'ab "\\{}[]<>/:,\nuéß数😀\t\x01', "\ud83d", "\ude00"]),
    max_size=40,
)
SCALARS = st.one_of(
    st.integers(-(10**12), 10**12), st.floats(allow_nan=False, allow_infinity=False), st.booleans(), st.none()
)
VALUES = st.recursive(
    st.one_of(TEXT, SCALARS),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)),
    max_leaves=6,
)
MEMBERS = st.dictionaries(
    st.sampled_from(["thought", "plan", "message", "send_to", "x", "é"]), st.one_of(TEXT, VALUES), max_size=5
)


@st.composite
def reply_parts(draw):
    """(text before the object, the object, text after it)."""
    members = draw(MEMBERS)
    body = json.dumps(
        {"response": members}, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 2]))
    )
    before = draw(
        st.sampled_from(
            ["", "Sure! ", '<think>draft {"response": {}}</think>\n', "```json\n", "Note {x} then "]
        )
    )
    after = draw(st.sampled_from(["", "\n```", ' Done. {"response": {"m": 1}}']))
    return before, body, after


def replies():
    return reply_parts().map("".join)


def run(chunks: list[str]) -> tuple[list[tuple[str, str]], str, str | None]:
    """(key, concatenated text) per value in order, the reasoning, and the error text if any."""
    parser = ReplyStreamParser()
    values: list[tuple[str, str]] = []
    error = None
    try:
        events = [e for chunk in chunks for e in parser.feed(chunk)] + parser.close()
    except JsonStreamError as exc:
        events, error = [], str(exc)
    for key, text, is_end in events:
        if not text and not is_end:
            values.append((key, ""))
        else:
            values[-1] = (key, values[-1][1] + text)
    return values, parser.reasoning, error


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


@settings(max_examples=300, deadline=None)
@given(replies(), st.lists(st.integers(min_value=0, max_value=10_000), max_size=30))
def test_any_chunking_yields_the_same_values_as_one_chunk(reply, cuts):
    assert run(split(reply, cuts)) == run([reply])


@settings(max_examples=200, deadline=None)
@given(replies())
def test_one_char_chunks_yield_the_same_values_as_one_chunk(reply):
    assert run(list(reply)) == run([reply])


@settings(max_examples=300, deadline=None)
@given(MEMBERS)
def test_string_values_decode_as_json_loads_does(members):
    values, _, error = run([json.dumps({"response": members})])
    assert error is None
    expected = json.loads(json.dumps(members))
    for key, text in values:
        value = expected[key]
        if isinstance(value, str):
            # A surrogate escape with no partner is replaced, so the text can be written as UTF-8.
            value = "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in value)
            assert text == value
        elif isinstance(value, list | dict):
            assert json.loads(text) == value
        else:
            assert json.loads(text) == value


@settings(max_examples=200, deadline=None)
@given(reply_parts(), st.integers(min_value=0, max_value=10_000))
def test_a_reply_cut_off_before_the_object_ends_is_an_error(parts, at):
    before, body, _ = parts
    at = at % len(before + body)  # strictly before the object's last brace
    _, _, error = run([(before + body)[:at]])
    assert error is not None
