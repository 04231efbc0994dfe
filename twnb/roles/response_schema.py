"""The `response_format` a role asks for: its own JSON schema (`json_schema`), or `json_object`.

A role's schema lives in its prompt file as text (the system prompt shows it to the model). Sent as a
`json_schema` response format with `strict`, a server that supports it (OpenAI, Azure, vLLM, llama.cpp,
Ollama) can only produce replies that fit: the right keys, `send_to` among the recipients, `stop` among
TaskWeaver's values. Strict mode requires every object to list all its properties as required and to
forbid others; `twnb.llm.response_format.json_schema_format` checks the first and adds the second. A
server that refuses `json_schema` is asked for `json_object`, and one that refuses that gets plain text
(`ResponseFormatFallback`, which the session's client wraps): the prompt still asks for JSON and the
translator copes with prose around it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from twnb.llm import json_object_format, json_schema_format

ResponseFormatChoice = Literal["json_schema", "json_object"] | dict[str, Any] | None


def role_response_format(
    choice: ResponseFormatChoice, schema: Mapping[str, Any], name: str
) -> dict[str, Any] | None:
    """What a role sends as `response_format` for `choice`: "json_schema" (its own schema, strict),
    "json_object", a dict passed as is, or None (nothing)."""
    if choice is None or isinstance(choice, dict):
        return choice
    if choice == "json_schema":
        return json_schema_format(schema, name)
    if choice == "json_object":
        return json_object_format()
    raise ValueError(f"response_format {choice!r} is not one of 'json_schema', 'json_object', a dict or None")
