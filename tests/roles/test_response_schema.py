"""Each role's response_format: its own schema, valid for strict structured output."""

from __future__ import annotations

import pytest

from twnb.roles.code_interpreter import CodeInterpreter
from twnb.roles.planner import STOP_VALUES, Planner
from twnb.roles.planner_prompt import Worker
from twnb.roles.response_schema import role_response_format
from twnb.roles.role_setup import RoleBrief
from twnb.roles.translator import PostTranslator


def objects(node):
    """Every JSON-schema object node in `node`."""
    if isinstance(node, dict):
        if node.get("type") == "object":
            yield node
        for value in node.values():
            yield from objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from objects(value)


def roles(response_format="json_schema"):
    brief = RoleBrief(response_format=response_format)
    code = CodeInterpreter(None, "m", PostTranslator(), brief=brief)
    planner = Planner(None, "m", PostTranslator(), workers=[Worker(code.alias, code.intro)], brief=brief)
    return planner, code


def test_planner_asks_for_its_own_schema_with_recipients_and_stop_values():
    planner, _ = roles()
    fmt = planner.turn.response_format
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    response = fmt["json_schema"]["schema"]["properties"]["response"]["properties"]
    assert response["send_to"]["enum"] == ["CodeInterpreter", "User"]
    assert tuple(response["stop"]["enum"]) == STOP_VALUES


def test_codeinterpreter_asks_for_its_own_keys_only():
    _, code = roles()
    response = code.turn.response_format["json_schema"]["schema"]["properties"]["response"]
    assert sorted(response["properties"]) == ["reply_content", "reply_type", "thought"]


def test_both_schemas_meet_strict_modes_rules():
    for role in roles():
        schema = role.turn.response_format["json_schema"]["schema"]
        for node in objects(schema):
            assert node["additionalProperties"] is False
            assert sorted(node["required"]) == sorted(node["properties"])


def test_a_schema_with_an_optional_property_cannot_be_strict():
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": []}
    with pytest.raises(ValueError, match=r"properties that are not required \(a\)"):
        role_response_format("json_schema", schema, "r")


def test_json_object_and_none_are_still_available():
    assert roles("json_object")[0].turn.response_format == {"type": "json_object"}
    assert roles(None)[1].turn.response_format is None


def test_an_unknown_choice_is_refused_clearly():
    with pytest.raises(ValueError, match="not one of 'json_schema', 'json_object'"):
        role_response_format("xml", {"type": "object"}, "r")
