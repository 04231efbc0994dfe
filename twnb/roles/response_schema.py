"""The `response_format` a role asks for: its own JSON schema (`json_schema`), or `json_object`.

A role's schema lives in its prompt file as text (the system prompt shows it to the model). Sent as a
`json_schema` response format with `strict`, a server that supports it (OpenAI, Azure, vLLM, llama.cpp,
Ollama) can only produce replies that fit: the right keys, `send_to` among the recipients, `stop` among
TaskWeaver's values. Strict mode requires every object to list all its properties as required and to
forbid others; `strict_schema` checks the first and adds the second. A server that refuses the
parameter gets plain text from then on (`twnb.llm.response_format.ResponseFormatFallback`, which the
session's client wraps): the prompt still asks for JSON and the translator copes with prose around it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Literal

ResponseFormatChoice = Literal["json_schema", "json_object"] | dict[str, Any] | None


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `schema` valid for strict structured output: `additionalProperties: false` on every
    object. An object whose `required` leaves out one of its properties is a ValueError naming it."""
    result = copy.deepcopy(dict(schema))

    def visit(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object":
                properties = node.get("properties") or {}
                missing = [name for name in properties if name not in (node.get("required") or [])]
                if missing:
                    raise ValueError(
                        f"{where}: strict structured output needs every property required; "
                        f"add {', '.join(missing)} to 'required'"
                    )
                node["additionalProperties"] = False
            for key, value in node.items():
                visit(value, f"{where}.{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                visit(value, f"{where}[{index}]")

    visit(result, "schema")
    return result


def role_response_format(choice: ResponseFormatChoice, schema: Mapping[str, Any], name: str) -> dict | None:
    """What a role sends as `response_format` for `choice`: "json_schema" (its own schema, strict),
    "json_object", a dict passed as is, or None (nothing)."""
    from twnb.llm.response_format import json_object_format, json_schema_format

    if choice is None or isinstance(choice, dict):
        return choice
    if choice == "json_schema":
        return json_schema_format(strict_schema(schema), name)
    if choice == "json_object":
        return json_object_format()
    raise ValueError(
        f"response_format {choice!r} is not one of 'json_schema', 'json_object', a dict or None"
    )
