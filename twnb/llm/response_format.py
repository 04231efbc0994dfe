"""``response_format`` for a role's reply, and the fallback for servers that refuse it.

A role asks for its JSON reply with the strictest format the server takes: ``json_schema`` built from the
role's schema, or ``json_object``. Many OpenAI-compatible servers (older vLLM, llama.cpp, some proxies)
answer 400 to that parameter, a common TaskWeaver complaint (its issues #15, #336). The prompt already
asks for JSON and the translator copes with prose around it, so :class:`ResponseFormatFallback` retries
such a call once without the parameter and remembers, for the rest of the session and that model, not to
send it again.
"""

from __future__ import annotations

import copy
import logging
import re
from collections.abc import Mapping
from typing import Any

from twnb.llm.stream_proxy import StreamProxy

__all__ = [
    "ResponseFormatFallback",
    "is_response_format_rejection",
    "json_object_format",
    "json_schema_format",
]

_log = logging.getLogger(__name__)
_REJECTION_WORDS = ("response_format", "response format", "json_schema", "json_object")


def json_schema_format(schema: Mapping[str, Any], name: str = "response", *, strict: bool = True) -> dict:
    """``{"type": "json_schema", "json_schema": {...}}`` for a role's JSON schema.

    OpenAI limits the name to 64 letters, digits, ``_`` and ``-``; other characters become ``_``.
    With ``strict``, OpenAI only accepts schemas whose every object sets ``additionalProperties: false``
    and lists all its properties as required (and answers 400 otherwise, which would quietly cost the
    session its JSON mode through the fallback). So the schema sent is a copy with
    ``additionalProperties: false`` added wherever it is missing, and a schema that allows extra
    properties or has an optional property is refused here, naming where.
    """
    if not isinstance(schema, Mapping) or not schema:
        raise ValueError("json_schema_format needs the role's JSON schema as a non-empty dict.")
    clean = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "response"
    sent = _strict_copy(schema, "schema") if strict else copy.deepcopy(dict(schema))
    return {"type": "json_schema", "json_schema": {"name": clean, "strict": strict, "schema": sent}}


_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_DATA_KEYWORDS = ("enum", "const", "default", "examples", "required", "description", "title")


def _strict_copy(node: Any, where: str) -> Any:
    """``node`` with ``additionalProperties: false`` on every object; refuses what strict mode cannot take."""
    if isinstance(node, list):
        return [_strict_copy(item, f"{where}[{i}]") for i, item in enumerate(node)]
    if not isinstance(node, Mapping):
        return copy.deepcopy(node)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            # A map of names to schemas: the names are data (a property may be called "type").
            out[key] = {name: _strict_copy(sub, f"{where}.{key}.{name}") for name, sub in value.items()}
        elif key in _DATA_KEYWORDS:
            out[key] = copy.deepcopy(value)
        else:
            out[key] = _strict_copy(value, f"{where}.{key}")
    if node.get("type") == "object" or isinstance(node.get("properties"), Mapping):
        if node.get("additionalProperties", False) is not False:
            raise ValueError(
                f"{where} allows additional properties; OpenAI's strict json_schema needs "
                "additionalProperties: false there (or pass strict=False)."
            )
        out["additionalProperties"] = False
        properties = list(node.get("properties") or {})
        optional = [p for p in properties if p not in (node.get("required") or [])]
        if optional:
            raise ValueError(
                f"{where} has properties that are not required ({', '.join(optional)}); OpenAI's strict "
                "json_schema needs every property listed in 'required' (or pass strict=False)."
            )
    return out


def json_object_format() -> dict:
    """``{"type": "json_object"}``: any JSON object (the prompt must mention JSON)."""
    return {"type": "json_object"}


def is_response_format_rejection(exc: BaseException) -> bool:
    """True when ``exc`` is a bad-request error caused by the ``response_format`` parameter."""
    from twnb.llm.errors import LLMBadRequestError

    if not isinstance(exc, LLMBadRequestError):
        return False
    if getattr(exc, "param", None) == "response_format":
        return True
    texts = [str(exc)]
    if exc.__cause__ is not None:
        texts.append(str(exc.__cause__))
    text = " ".join(texts).lower()
    return any(word in text for word in _REJECTION_WORDS)


class ResponseFormatFallback:
    """A ChatClient that drops ``response_format`` once the server has refused it.

    It wraps any ChatClient (``stream(messages, *, model, role, response_format)``). A refusal can come
    when the request is made or on the stream's first read (the SDK sends lazily in some paths); both
    are caught before any text reached the caller, so the retry is invisible apart from one log line.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self._refused_models: set[str] = set()

    def refuses(self, model: str) -> bool:
        """True once the server refused ``response_format`` for ``model`` in this session."""
        return model in self._refused_models

    def stream(
        self,
        messages: list[dict],
        *,
        model: str,
        role: str = "",
        response_format: dict | None = None,
    ) -> _FallbackStream:
        if response_format is not None and model in self._refused_models:
            response_format = None
        return _FallbackStream(self, messages, model, role, response_format)

    def _remember_refusal(self, model: str, role: str) -> None:
        self._refused_models.add(model)
        _log.warning(
            "The server refused response_format for model %s (role %s); asking for plain text from now "
            "on in this session.",
            model,
            role or "-",
        )


class _FallbackStream(StreamProxy):
    """The inner client's stream, replaced once by a plain-text one if the first was refused.

    Attributes (``reasoning``, ``finish_reason``, ``usage``, ``raw_text``) are read through to
    whichever stream is current.
    """

    def __init__(
        self,
        owner: ResponseFormatFallback,
        messages: list[dict],
        model: str,
        role: str,
        response_format: dict | None,
    ) -> None:
        self._owner = owner
        self._messages = messages
        self._model = model
        self._role = role
        self._started = False
        self._current = self._open(response_format)

    def _open(self, response_format: dict | None) -> Any:
        self._response_format = response_format
        try:
            stream = self._owner.inner.stream(
                self._messages, model=self._model, role=self._role, response_format=response_format
            )
        except Exception as exc:
            if response_format is None or not is_response_format_rejection(exc):
                raise
            self._owner._remember_refusal(self._model, self._role)
            return self._open(None)
        return stream

    def __next__(self) -> str:
        try:
            chunk = next(self._current)
        except StopIteration:
            raise
        except Exception as exc:
            if self._started or self._response_format is None or not is_response_format_rejection(exc):
                raise
            self._owner._remember_refusal(self._model, self._role)
            self._current = self._open(None)
            return self.__next__()
        self._started = True
        return chunk
