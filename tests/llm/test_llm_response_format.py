"""response_format: the strictest format a server takes, and a remembered fallback when it refuses."""

from __future__ import annotations

import logging

import pytest

from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.llm.errors import LLMAuthError, LLMBadRequestError
from twnb.llm.response_format import (
    FormatMemory,
    ResponseFormatFallback,
    is_response_format_rejection,
    json_object_format,
    json_schema_format,
)

SCHEMA = {
    "type": "object",
    "properties": {"response": {"type": "object", "properties": {}, "additionalProperties": False}},
    "required": ["response"],
    "additionalProperties": False,
}
MESSAGES = [
    {"role": "system", "content": "You are the Planner. Reply in JSON."},
    {"role": "user", "content": "hi"},
]
REPLY = '{"response": {"message": "hello"}}'


def client_for(fake_llm) -> ResponseFormatFallback:
    return ResponseFormatFallback(
        OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=5.0))
    )


def test_json_schema_format_has_the_openai_shape():
    assert json_schema_format(SCHEMA, "planner_reply") == {
        "type": "json_schema",
        "json_schema": {"name": "planner_reply", "strict": True, "schema": SCHEMA},
    }


# The shape of the roles' schemas (twnb/roles/prompts/*.yaml): everything required, extras not forbidden.
ROLE_LIKE_SCHEMA = {
    "type": "object",
    "properties": {
        "response": {
            "type": "object",
            "properties": {
                "thought": {"type": "string"},
                "reply_type": {"type": "string", "enum": ["python"]},
            },
            "required": ["thought", "reply_type"],
        }
    },
    "required": ["response"],
}


def test_strict_adds_additional_properties_false_to_every_object_and_leaves_the_input_alone():
    sent = json_schema_format(ROLE_LIKE_SCHEMA)["json_schema"]["schema"]

    assert sent["additionalProperties"] is False
    assert sent["properties"]["response"]["additionalProperties"] is False
    assert "additionalProperties" not in ROLE_LIKE_SCHEMA["properties"]["response"]


def test_strict_refuses_an_optional_property_naming_it_and_where():
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "required": ["a"],
    }

    with pytest.raises(ValueError, match=r"^schema has properties that are not required \(b\)"):
        json_schema_format(schema)


def test_strict_refuses_an_object_open_to_extra_properties():
    open_object = {"type": "object", "additionalProperties": True}
    schema = {**ROLE_LIKE_SCHEMA, "properties": {"response": open_object}}

    with pytest.raises(ValueError, match=r"^schema\.properties\.response allows additional properties"):
        json_schema_format(schema)


def test_a_property_named_like_a_keyword_is_just_a_property():
    schema = {
        "type": "object",
        "properties": {"properties": {"type": "string"}, "type": {"type": "string"}},
        "required": ["properties", "type"],
    }

    sent = json_schema_format(schema)["json_schema"]["schema"]

    assert sent["properties"] == schema["properties"]


def test_without_strict_the_schema_is_sent_as_given():
    assert json_schema_format(ROLE_LIKE_SCHEMA, strict=False)["json_schema"]["schema"] == ROLE_LIKE_SCHEMA


def test_a_schema_name_is_made_acceptable_to_openai():
    name = json_schema_format(SCHEMA, "Code Interpreter reply!" + "x" * 80)["json_schema"]["name"]
    assert name.startswith("Code_Interpreter_reply_") and len(name) == 64


def test_an_empty_schema_is_refused():
    with pytest.raises(ValueError, match="non-empty dict"):
        json_schema_format({})


def test_json_object_format():
    assert json_object_format() == {"type": "json_object"}


def test_an_accepted_format_is_sent_as_given(fake_llm):
    fake_llm.load({"*": [REPLY]})
    rf = json_schema_format(SCHEMA, "planner")

    text = "".join(
        client_for(fake_llm).stream(MESSAGES, model="fake-model", role="Planner", response_format=rf)
    )

    assert text == REPLY
    assert fake_llm.chat_requests()[0]["body"]["response_format"] == rf


def test_a_refused_format_falls_back_to_plain_text_once_and_remembers(fake_llm, caplog):
    fake_llm.load({"*": [{"content": REPLY, "reject_response_format": True}, REPLY]})
    client = client_for(fake_llm)
    rf = json_object_format()

    with caplog.at_level(logging.WARNING, logger="twnb.llm.response_format"):
        first = "".join(client.stream(MESSAGES, model="fake-model", role="Planner", response_format=rf))
    second = "".join(client.stream(MESSAGES, model="fake-model", role="Planner", response_format=rf))

    sent = ["response_format" in r["body"] for r in fake_llm.chat_requests()]
    assert (first, second) == (REPLY, REPLY)
    assert sent == [True, False, False]  # refused once, then never sent again
    assert client.refuses("fake-model")
    expected = "refused response_format json_object for model fake-model (role Planner); asking for plain"
    assert expected in caplog.text


def sent_formats(fake_llm) -> list[str | None]:
    return [(r["body"].get("response_format") or {}).get("type") for r in fake_llm.chat_requests()]


def test_a_refused_json_schema_falls_back_to_json_object_carrying_the_schema_and_remembers(fake_llm, caplog):
    only_schema_refused = {"content": REPLY, "reject_response_format": ["json_schema"]}
    fake_llm.load({"*": [only_schema_refused, only_schema_refused]})
    client = client_for(fake_llm)
    rf = json_schema_format(SCHEMA, "planner")

    with caplog.at_level(logging.WARNING, logger="twnb.llm.response_format"):
        texts = [
            "".join(client.stream(MESSAGES, model="fake-model", role="Planner", response_format=rf))
            for _ in range(2)
        ]

    assert texts == [REPLY, REPLY]
    assert sent_formats(fake_llm) == ["json_schema", "json_object", "json_object"]
    # llama-cpp-python's JSON-schema mode: the schema rides along, so the reply still fits it there
    assert [r["body"]["response_format"].get("schema") for r in fake_llm.chat_requests()[1:]] == [SCHEMA] * 2
    assert client.accepted("fake-model") == "json_object with schema" and not client.refuses("fake-model")
    assert [r.getMessage() for r in caplog.records] == [
        "The server refused response_format json_schema for model fake-model (role Planner); asking for "
        "json_object with the schema from now on (set response_format to choose it outright)."
    ]


def test_a_server_refusing_both_formats_gets_plain_text_logging_each_step_once(fake_llm, caplog):
    fake_llm.load({"*": [{"content": REPLY, "reject_response_format": True}, REPLY, REPLY]})
    client = client_for(fake_llm)
    rf = json_schema_format(SCHEMA, "planner")

    with caplog.at_level(logging.WARNING, logger="twnb.llm.response_format"):
        texts = [
            "".join(client.stream(MESSAGES, model="fake-model", role="Planner", response_format=rf))
            for _ in range(3)
        ]

    assert texts == [REPLY] * 3
    assert sent_formats(fake_llm) == ["json_schema", "json_object", "json_object", None, None, None]
    assert client.refuses("fake-model")
    steps = [r.getMessage().split(" from now on")[0] for r in caplog.records]
    assert steps == [
        "The server refused response_format json_schema for model fake-model (role Planner); asking for "
        "json_object with the schema",
        "The server refused response_format json_object with schema for model fake-model (role Planner); "
        "asking for json_object",
        "The server refused response_format json_object for model fake-model (role Planner); asking for "
        "plain text",
    ]


def test_after_json_schema_was_refused_a_json_object_request_is_sent_as_asked(fake_llm):
    fake_llm.load({"*": [{"content": REPLY, "reject_response_format": ["json_schema"]}, REPLY]})
    client = client_for(fake_llm)
    "".join(client.stream(MESSAGES, model="fake-model", response_format=json_schema_format(SCHEMA)))

    "".join(client.stream(MESSAGES, model="fake-model", response_format=json_object_format()))

    assert sent_formats(fake_llm) == ["json_schema", "json_object", "json_object"]


def test_a_json_schema_refusal_is_remembered_per_model(fake_llm):
    fake_llm.load({"*": [{"content": REPLY, "reject_response_format": ["json_schema"]}, REPLY]})
    client = client_for(fake_llm)
    rf = json_schema_format(SCHEMA)

    "".join(client.stream(MESSAGES, model="small-model", response_format=rf))
    "".join(client.stream(MESSAGES, model="big-model", response_format=rf))

    assert sent_formats(fake_llm) == ["json_schema", "json_object", "json_schema"]
    assert client.accepted("small-model") == "json_object with schema"
    assert client.accepted("big-model") == "json_schema"


def test_the_memory_is_per_model(fake_llm):
    fake_llm.load({"*": [{"content": REPLY, "reject_response_format": True}, REPLY]})
    client = client_for(fake_llm)
    "".join(client.stream(MESSAGES, model="small-model", response_format=json_object_format()))
    "".join(client.stream(MESSAGES, model="big-model", response_format=json_object_format()))
    assert ["response_format" in r["body"] for r in fake_llm.chat_requests()] == [True, False, True]


def test_collect_goes_through_the_fallback(fake_llm):
    fake_llm.load({"*": [{"content": REPLY, "reject_response_format": True}]})
    reply = (
        client_for(fake_llm)
        .stream(MESSAGES, model="fake-model", response_format=json_object_format())
        .collect()
    )
    assert (reply.text, reply.finish_reason) == (REPLY, "stop")


def test_other_errors_are_not_swallowed(fake_llm):
    fake_llm.load({"*": [{"fault": "http_401"}]})
    with pytest.raises(LLMAuthError):
        client_for(fake_llm).stream(MESSAGES, model="fake-model", response_format=json_object_format())
    assert len(fake_llm.chat_requests()) == 1


def test_a_rejection_is_recognised_by_param_or_by_its_text():
    assert is_response_format_rejection(LLMBadRequestError("bad", param="response_format"))
    assert is_response_format_rejection(LLMBadRequestError("HTTP 400: 'response_format' is not supported"))
    assert not is_response_format_rejection(
        LLMBadRequestError("HTTP 400: max_tokens too large", param="max_tokens")
    )
    assert not is_response_format_rejection(ValueError("response_format"))


def test_a_stream_closed_early_is_never_collected_as_a_whole_reply(fake_llm):
    fake_llm.load({"*": [{"content": REPLY, "chunk_size": 4}]})
    stream = client_for(fake_llm).stream(MESSAGES, model="fake-model", response_format=json_object_format())
    next(stream)
    stream.close()

    with pytest.raises(RuntimeError, match="closed early"):
        stream.collect()


def test_a_500_naming_response_format_steps_down_at_once_without_retries(fake_llm, caplog):
    # llama-cpp-python's server answers json_schema with HTTP 500 and a validation error naming it
    fake_llm.load(
        {
            "*": [
                {
                    "content": REPLY,
                    "reject_response_format": ["json_schema"],
                    "reject_response_format_status": 500,
                }
            ]
        }
    )
    client = ResponseFormatFallback(
        OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=5.0, max_retries=2))
    )

    with caplog.at_level(logging.WARNING, logger="twnb.llm.response_format"):
        text = "".join(
            client.stream(MESSAGES, model="fake-model", response_format=json_schema_format(SCHEMA))
        )

    assert text == REPLY
    assert sent_formats(fake_llm) == ["json_schema", "json_object"]  # the 500 was not sent again
    assert "refused response_format json_schema" in caplog.text


def test_a_500_about_something_else_is_retried_and_never_taken_for_a_refusal(fake_llm):
    fake_llm.load({"*": [{"content": REPLY, "fault": "http_500", "times": 1}]})
    client = ResponseFormatFallback(
        OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=5.0, max_retries=2))
    )

    text = "".join(client.stream(MESSAGES, model="fake-model", response_format=json_schema_format(SCHEMA)))

    assert text == REPLY
    assert sent_formats(fake_llm) == ["json_schema", "json_schema"]
    assert client.accepted("fake-model") == "json_schema"


def test_a_refusal_learned_by_one_session_is_not_met_again_by_the_next(fake_llm, caplog):
    # every session of a notebook shares the process's memory, keyed by server and model
    fake_llm.load({"*": [{"content": REPLY, "reject_response_format": ["json_schema"]}, REPLY]})
    memory = FormatMemory()
    rf = json_schema_format(SCHEMA)

    def session_client() -> ResponseFormatFallback:
        inner = OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=5.0))
        return ResponseFormatFallback(inner, server=fake_llm.base_url, memory=memory)

    with caplog.at_level(logging.WARNING, logger="twnb.llm.response_format"):
        for _ in range(2):
            "".join(session_client().stream(MESSAGES, model="fake-model", response_format=rf))

    assert sent_formats(fake_llm) == ["json_schema", "json_object", "json_object"]
    assert len(caplog.records) == 1  # said once


def test_the_same_model_on_another_server_is_asked_afresh():
    memory = FormatMemory()
    memory.step_down("http://127.0.0.1:8080/v1", "qwen", "json_object")

    assert memory.accepted("http://127.0.0.1:8080/v1", "qwen") == "json_object"
    assert memory.accepted("http://127.0.0.1:11434/v1", "qwen") == "json_schema"
