"""The incremental reply parser: finding {"response": {...}} in what real models write, and streaming it."""

from __future__ import annotations

import json
from collections.abc import Iterable

import pytest

from twnb.roles.json_stream import JsonStreamError, ReplyEvent, ReplyStreamParser, parse_reply_stream

BARE_KEYS = {"thought", "reply_type", "reply_content", "message", "send_to", "plan"}


def events_of(chunks: Iterable[str], **kwargs) -> list[ReplyEvent]:
    return list(parse_reply_stream(chunks, **kwargs))


def values_of(events: Iterable[ReplyEvent]) -> dict[str, str]:
    values: dict[str, str] = {}
    for key, text, _ in events:
        values[key] = values.get(key, "") + text
    return values


def cut(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def every_split(text: str) -> Iterable[list[str]]:
    for i in range(1, len(text)):
        yield [text[:i], text[i:]]


def feed_all(parser: ReplyStreamParser, chunks: Iterable[str]) -> list[ReplyEvent]:
    events: list[ReplyEvent] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    return events


# --------------------------------------------------------------------------- the object's members


def test_each_key_is_announced_empty_before_its_value():
    events = events_of(['{"response": {"thought": "a", "message": "b"}}'])
    assert events == [
        ("thought", "", False),
        ("thought", "a", True),
        ("message", "", False),
        ("message", "b", True),
    ]


def test_string_values_stream_in_pieces_as_chunks_arrive():
    events = events_of(['{"response": {"message": "Hel', "lo wo", 'rld"}}'])
    assert events == [
        ("message", "", False),
        ("message", "Hel", False),
        ("message", "lo wo", False),
        ("message", "rld", True),
    ]


def test_keys_in_any_order_come_out_in_reply_order():
    events = events_of(['{"response": {"message": "m", "send_to": "User", "plan": "p", "stop": "x"}}'])
    assert [key for key, text, is_end in events if is_end] == ["message", "send_to", "plan", "stop"]


@pytest.mark.parametrize("literal", ["true", "false", "null", "0", "-0", "12.50", "1e10", "-3.5E-2"])
def test_numbers_booleans_and_null_yield_their_json_text_exactly(literal):
    for chunks in [[f'{{"response": {{"v": {literal}}}}}'], cut(f'{{"response": {{"v": {literal}}}}}', 1)]:
        assert values_of(events_of(chunks)) == {"v": literal}


def test_a_boolean_is_never_duplicated_like_taskweavers_trutrue():
    events = events_of(cut('{"response": {"stop": true}}', 3))
    assert [e for e in events if e[0] == "stop"] == [("stop", "", False), ("stop", "true", True)]


def test_nested_values_yield_json_dumps_of_the_value_once_complete():
    value = {"a": [1, 2.5, None, True, {"b": "é\n"}], "c": {}}
    events = events_of(cut('{"response": {"v": ' + json.dumps(value, indent=2) + "}}", 5))
    assert [e for e in events if e[0] == "v"] == [("v", "", False), ("v", json.dumps(value), True)]


def test_a_raw_newline_inside_a_string_is_accepted_as_models_write_it():
    assert values_of(events_of(['{"response": {"thought": "line 1\nline 2"}}'])) == {
        "thought": "line 1\nline 2"
    }


def test_members_after_the_response_object_are_ignored():
    events = events_of(['{"response": {"message": "hi"}, "meta": {"message": "not me"}}'])
    assert values_of(events) == {"message": "hi"}


# --------------------------------------------------------------------------- escapes across chunks


@pytest.mark.parametrize(
    ("escaped", "decoded"),
    [
        ("\\u00e9", "é"),
        ("\\ud83d\\ude00", "😀"),
        ("\\n", "\n"),
        ("\\\\", "\\"),
        ('\\"', '"'),
        ("\\/", "/"),
        ("\\t\\r\\b\\f", "\t\r\b\f"),
        ("a\\\\\\nb", "a\\\nb"),
    ],
)
def test_escapes_decode_the_same_wherever_the_chunks_are_cut(escaped, decoded):
    reply = '{"response": {"m": "<' + escaped + '>"}}'
    for chunks in every_split(reply):
        assert values_of(events_of(chunks)) == {"m": "<" + decoded + ">"}, chunks
    assert values_of(events_of(cut(reply, 1))) == {"m": "<" + decoded + ">"}


def test_a_lone_surrogate_escape_becomes_the_replacement_character():
    assert values_of(events_of(['{"response": {"m": "a\\ud83db", "n": "\\ude00"}}'])) == {
        "m": "a\ufffdb",
        "n": "\ufffd",
    }


def test_unicode_text_passes_through_unchanged():
    text = "数据分析 — naïve café 😀"
    assert values_of(events_of(cut(json.dumps({"response": {"m": text}}, ensure_ascii=False), 3))) == {
        "m": text
    }


# --------------------------------------------------------------------------- what surrounds the object


def test_a_think_block_is_reasoning_and_json_inside_it_is_ignored():
    parser = ReplyStreamParser()
    reply = '<think>Maybe {"response": {"message": "draft"}}? No.</think>\n{"response": {"message": "final"}}'
    events = feed_all(parser, [reply]) + parser.close()
    assert values_of(events) == {"message": "final"}
    assert parser.reasoning == 'Maybe {"response": {"message": "draft"}}? No.'


def test_thinking_tags_are_reasoning_too():
    parser = ReplyStreamParser()
    feed_all(parser, ['<thinking>step 1</thinking>{"response": {"m": "x"}}'])
    parser.close()
    assert parser.reasoning == "step 1"


def test_a_closing_think_tag_alone_makes_the_text_before_it_reasoning():
    parser = ReplyStreamParser()
    events = feed_all(parser, ['Let me think.</think>\n{"response": {"m": "x"}}']) + parser.close()
    assert (parser.reasoning, values_of(events)) == ("Let me think.", {"m": "x"})


def test_think_tags_are_recognised_wherever_the_chunks_are_cut():
    reply = '<think>a<b</think>{"response": {"m": "x"}}'
    for chunks in every_split(reply):
        parser = ReplyStreamParser()
        events = feed_all(parser, chunks) + parser.close()
        assert (parser.reasoning, values_of(events)) == ("a<b", {"m": "x"}), chunks


def test_reasoning_is_capped_but_counted():
    parser = ReplyStreamParser(reasoning_cap=10)
    feed_all(parser, ["<think>", "x" * 25, '</think>{"response": {}}'])
    parser.close()
    assert (parser.reasoning, parser.reasoning_chars) == ("x" * 10, 25)


def test_a_markdown_fence_with_prose_before_and_after_is_accepted():
    reply = (
        'Here is my answer:\n```json\n{\n  "response": {\n    "message": "hi"\n  }\n}\n```\nHope it helps!'
    )
    assert values_of(events_of(cut(reply, 4))) == {"message": "hi"}


def test_braces_in_prose_before_the_object_are_skipped():
    reply = 'Use {curly} braces, or {"example": 1}, then: {"response": {"message": "hi"}}'
    assert values_of(events_of(cut(reply, 3))) == {"message": "hi"}


def test_the_response_member_may_follow_other_members_of_the_outer_object():
    assert values_of(events_of(['{"id": 7, "response": {"message": "hi"}}'])) == {"message": "hi"}


def test_text_after_the_object_is_ignored_even_another_object():
    reply = '{"response": {"message": "first"}}\n\nAlso: {"response": {"message": "second"}} <think>x'
    assert values_of(events_of([reply])) == {"message": "first"}


def test_an_object_without_the_wrapper_is_accepted_when_its_first_key_is_a_known_output_key():
    parser = ReplyStreamParser(bare_keys=BARE_KEYS)
    events = feed_all(parser, ['```json\n{"thought": "t", "reply_type": "python"}\n```']) + parser.close()
    assert (values_of(events), parser.wrapped) == ({"thought": "t", "reply_type": "python"}, False)


def test_an_object_without_the_wrapper_is_refused_when_its_first_key_is_unknown():
    with pytest.raises(JsonStreamError) as caught:
        events_of(['{"name": "x", "thought": "t"}'], bare_keys=BARE_KEYS)
    assert caught.value.kind == "missing"
    assert '"name"' in str(caught.value)


def test_without_bare_keys_the_wrapper_is_required():
    with pytest.raises(JsonStreamError, match='no "response" object'):
        events_of(['{"thought": "t"}'])


# --------------------------------------------------------------------------- errors


def test_an_empty_reply_has_no_json_object():
    with pytest.raises(JsonStreamError, match="contains no JSON object") as caught:
        events_of([""])
    assert caught.value.kind == "missing"


def test_prose_only_has_no_json_object():
    with pytest.raises(JsonStreamError, match="contains no JSON object"):
        events_of(["I cannot help with that."])


def test_an_unclosed_think_block_says_the_reply_ended_inside_it():
    with pytest.raises(JsonStreamError, match="ended inside a <think> block"):
        events_of(["<think>still thinking"])


def test_a_response_that_is_not_an_object_is_named():
    with pytest.raises(JsonStreamError, match='"response" must be a JSON object, found a string'):
        events_of(['{"response": "hello"}'])


def test_a_truncated_reply_yields_what_arrived_then_raises_naming_the_key():
    stream = parse_reply_stream(['{"response": {"thought": "done", "message": "This is '])
    seen = []
    with pytest.raises(JsonStreamError, match='complete \\(in the value of "message"\\)') as caught:
        for event in stream:
            seen.append(event)
    assert caught.value.kind == "truncated"
    assert values_of(seen) == {"thought": "done", "message": "This is "}


def test_a_missing_final_brace_is_truncation():
    with pytest.raises(JsonStreamError) as caught:
        events_of(['{"response": {"message": "hi"}'])
    assert caught.value.kind == "truncated"


def test_a_missing_comma_is_invalid_json_that_names_the_place():
    with pytest.raises(JsonStreamError) as caught:
        events_of(['{"response": {"thought": "a" "message": "b"}}'])
    assert caught.value.kind == "invalid"
    assert str(caught.value) == (
        "invalid JSON after the value of \"thought\": expected ',' or '}', found '\"'"
    )


def test_a_python_literal_is_named_in_the_error():
    with pytest.raises(JsonStreamError, match="found 'True'"):
        events_of(['{"response": {"stop": True}}'])


def test_an_invalid_escape_is_named_in_the_error():
    with pytest.raises(JsonStreamError, match=r"invalid escape '\\\\q'"):
        events_of(['{"response": {"m": "a\\qb"}}'])


def test_a_bad_number_is_named_in_the_error():
    with pytest.raises(JsonStreamError, match="expected a valid JSON number, found '01'"):
        events_of(['{"response": {"n": 01}}'])


def test_single_quoted_json_is_not_json():
    with pytest.raises(JsonStreamError, match="a key in double quotes"):
        events_of(["{\"response\": {'message': 'hi'}}"])


def test_a_single_quoted_object_is_named_as_such():
    with pytest.raises(JsonStreamError, match="uses single quotes, but JSON keys and strings need double"):
        events_of(["Here: {'response': {'message': 'hi'}}"])


def test_feed_never_raises_and_close_reports_the_error():
    parser = ReplyStreamParser()
    assert parser.feed('{"response": {"a": 1 2}}') == [("a", "", False), ("a", "1", True)]
    assert parser.feed("more text") == []
    with pytest.raises(JsonStreamError):
        parser.close()


# --------------------------------------------------------------------------- TaskWeaver's own inputs

TW_RESPONSE_STR1 = """{
    "response": {
        "thought": "This is the thought",
        "python": "print('This is the code')",
        "text": "This is the text",
        "execution_status": "SUCCESS",
        "execution_result": "This is the execution result",
        "send_to": "Planner",
        "message": "This is the message"
    }
}"""

TW_RESPONSE_ERR_STR1 = """{
    "response": {
        "thought": "This is the thought",
        "python": "print('This is the code')",
        "text": {"error": {"type": "t1", "content": "This is the error"}},
        "execution_status": 1,
        "execution_result": ["This", "is the execution", "result"],
        "send_to": "Planner",
        "message": "This is the message",
        "obj_in_arr": [{"key1": "value1"}, {"key2": "value2"}],
        "arr_in_obj": {"key1": ["value1", "value2"], "key2": ["value3", "value4"]}
    }
}"""

TW_RESPONSE_ERR_STR2 = """{
    "response": {
        "thought": "This is the thought",
        "python": "print('This is the code')",
        "text": {"error": "This is the error",
        "execution_status": "ERROR",
        "execution_result": ["This", "is the execution", "result"],
        "send_to": "Planner",
        "message": "This is the message",
        "obj_in_arr": [{"key1": "value1"}, {"key2": "value2"}],
        "arr_in_obj": {"key1": ["value1", "value2"], "key2": ["value3", "value4"]}
    }
}"""


def word_chunks(text: str, seed: int) -> list[str]:
    """TaskWeaver's test chunking: 1 to 10 words at a time."""
    import random

    rng = random.Random(seed)
    words, chunks, pos = text.split(" "), [], 0
    while pos < len(words):
        n = rng.randint(1, 10)
        chunks.append(" ".join(words[pos : pos + n]) + " ")
        pos += n
    return chunks


@pytest.mark.parametrize("seed", range(5))
def test_taskweaver_seven_key_reply_gives_seven_completed_values(seed):
    completed = [e for e in events_of(word_chunks(TW_RESPONSE_STR1, seed)) if e[2]]
    assert len(completed) == 7


@pytest.mark.parametrize("seed", range(5))
def test_taskweaver_mixed_value_reply_gives_nine_values_as_json_text(seed):
    values = values_of(events_of(word_chunks(TW_RESPONSE_ERR_STR1, seed)))
    assert len(values) == 9
    assert values["text"] == '{"error": {"type": "t1", "content": "This is the error"}}'
    assert values["execution_result"] == '["This", "is the execution", "result"]'
    assert values["execution_status"] == "1"
    assert values["obj_in_arr"] == '[{"key1": "value1"}, {"key2": "value2"}]'
    assert values["arr_in_obj"] == '{"key1": ["value1", "value2"], "key2": ["value3", "value4"]}'


def test_taskweaver_broken_reply_gives_three_values_then_says_it_is_truncated():
    seen = []
    with pytest.raises(JsonStreamError) as caught:
        for event in parse_reply_stream(word_chunks(TW_RESPONSE_ERR_STR2, 0)):
            seen.append(event)
    assert len([e for e in seen if e[2]]) == 3
    assert caught.value.kind == "truncated"
