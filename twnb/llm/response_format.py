"""``response_format`` for a role's reply, and the fallback for servers that refuse it.

A role asks for its JSON reply with the strictest format the server takes: ``json_schema`` built from the
role's schema, or ``json_object``. Many OpenAI-compatible servers (older vLLM, llama.cpp, some proxies)
refuse that parameter, a common TaskWeaver complaint (its issues #15, #336), each in its own way: 400 or
422 (vLLM, DeepSeek), or 500 with a validation error naming ``response_format`` (llama-cpp-python's
server: ``Input should be 'text' or 'json_object'``). The prompt already asks for JSON and the
translator copes with prose around it, so :class:`ResponseFormatFallback` retries such a call a step
down the chain (``json_schema`` -> ``json_object`` -> plain text) and remembers, per server and model,
not to ask for the refused step again: in a :class:`FormatMemory`, the process's own
(`PROCESS_FORMATS`) for every session of the notebook, so a refusal is met, and said, once.

The step after ``json_schema`` is ``json_object`` carrying the same schema as ``schema``: the form
llama-cpp-python documents for its JSON-schema mode (its grammar then holds the reply to the schema,
as ``json_schema`` would); a server that ignores the extra key still gives JSON, one that refuses it
is asked for plain ``json_object``.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Mapping
from typing import Any

from twnb.base import get_logger
from twnb.llm.chat_client import ChatClient, ReplyStream
from twnb.llm.errors import LLMBadRequestError, LLMContextExceeded, LLMError
from twnb.llm.request_retries import names_response_format
from twnb.llm.stream_proxy import StreamProxy

__all__ = [
    "PROCESS_FORMATS",
    "FormatMemory",
    "ResponseFormatFallback",
    "is_response_format_rejection",
    "json_object_format",
    "json_object_with_schema",
    "json_schema_format",
]

_log = get_logger(__name__)


def json_schema_format(
    schema: Mapping[str, Any], name: str = "response", *, strict: bool = True
) -> dict[str, Any]:
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


def json_object_format() -> dict[str, Any]:
    """``{"type": "json_object"}``: any JSON object (the prompt must mention JSON)."""
    return {"type": "json_object"}


def is_response_format_rejection(exc: BaseException) -> bool:
    """True when ``exc`` is the server refusing the ``response_format`` parameter: an HTTP error (400,
    422, a 5xx, ...) that names it (its ``param``, or its text)."""

    if not isinstance(exc, LLMError) or isinstance(exc, LLMContextExceeded):
        return False
    if isinstance(exc, LLMBadRequestError):
        if exc.param == "response_format":
            return True
    elif exc.status_code is None:  # not an answer to the request (a dropped stream, an error event)
        return False
    texts = [str(exc)]
    if exc.__cause__ is not None:
        texts.append(str(exc.__cause__))
    return names_response_format(" ".join(texts))


# The chain, strictest first: a server that refuses one step is asked for the next.
JSON_SCHEMA, JSON_OBJECT, TEXT = "json_schema", "json_object", "text"
JSON_OBJECT_SCHEMA = "json_object with schema"
_CHAIN = (JSON_SCHEMA, JSON_OBJECT_SCHEMA, JSON_OBJECT, TEXT)
_SAID = {JSON_OBJECT_SCHEMA: "json_object with the schema", JSON_OBJECT: "json_object", TEXT: "plain text"}


def _kind(response_format: dict[str, Any] | None) -> str:
    """Where a response_format stands in the chain (an unknown type counts as json_object's rank)."""
    if response_format is None:
        return TEXT
    if response_format.get("type") == JSON_SCHEMA:
        return JSON_SCHEMA
    return JSON_OBJECT_SCHEMA if "schema" in response_format else JSON_OBJECT


def json_object_with_schema(response_format: dict[str, Any]) -> dict[str, Any]:
    """``{"type": "json_object", "schema": ...}`` for a ``json_schema`` response_format (llama-cpp-python's
    JSON-schema mode)."""
    schema = (response_format.get("json_schema") or {}).get("schema")
    return {"type": "json_object", "schema": schema} if isinstance(schema, dict) else json_object_format()


class FormatMemory:
    """The strictest format each server and model still takes, as learned from their refusals."""

    def __init__(self) -> None:
        self._accepts: dict[tuple[str, str], str] = {}  # (server, model) -> the strictest kind still sent
        self._lock = threading.Lock()

    def accepted(self, server: str, model: str) -> str:
        return self._accepts.get((server, model), JSON_SCHEMA)

    def step_down(self, server: str, model: str, to: str) -> bool:
        """Remember that only `to` or less is taken; True when that is news (said once, by the caller)."""
        with self._lock:
            current = self.accepted(server, model)
            if _CHAIN.index(to) <= _CHAIN.index(current):
                return False
            self._accepts[(server, model)] = to
            return True

    def clear(self) -> None:
        with self._lock:
            self._accepts.clear()


#: What this process has learned: every session of the notebook (a new one is built when a setting
#: changes) asks each server only for what it takes.
PROCESS_FORMATS = FormatMemory()


class ResponseFormatFallback:
    """A ChatClient that steps ``response_format`` down a chain as the server refuses it.

    ``json_schema`` refused -> ``json_object`` with the schema -> plain ``json_object`` -> plain text
    (no ``response_format``). Many servers take ``json_object`` but not ``json_schema`` (DeepSeek, older
    Azure api-versions, llama-cpp-python, some vLLM and Ollama builds), so a refused schema keeps JSON
    mode when it can. Each step is remembered per server (`server`, its URL) and model in `memory`
    (default: one of its own; sessions share `PROCESS_FORMATS`) and logged once.

    It wraps any ChatClient (``stream(messages, *, model, role, response_format)``). A refusal can come
    when the request is made or on the stream's first read (the SDK sends lazily in some paths); both
    are caught before any text reached the caller, so the retry is invisible apart from the log line.
    """

    def __init__(self, inner: ChatClient, *, server: str = "", memory: FormatMemory | None = None) -> None:
        self.inner = inner
        self.server = server
        self.memory = memory if memory is not None else FormatMemory()

    def accepted(self, model: str) -> str:
        """The strictest format still asked of ``model``: ``"json_schema"`` (nothing refused yet),
        ``"json_object with schema"``, ``"json_object"`` or ``"text"``."""
        return self.memory.accepted(self.server, model)

    def refuses(self, model: str) -> bool:
        """True once the server refused every ``response_format`` for ``model`` in this session."""
        return self.accepted(model) == TEXT

    def stream(
        self,
        messages: list[dict[str, Any]],
        *,
        model: str,
        role: str = "",
        response_format: dict[str, Any] | None = None,
    ) -> _FallbackStream:
        return _FallbackStream(self, messages, model, role, self._allowed(model, response_format))

    def _allowed(self, model: str, response_format: dict[str, Any] | None) -> dict[str, Any] | None:
        """``response_format`` as far as ``model`` takes it: unchanged, json_object (with the schema, when
        there is one and the server may take it), or None."""
        accepted = self.accepted(model)
        if _CHAIN.index(_kind(response_format)) >= _CHAIN.index(accepted):
            return response_format
        if accepted == JSON_OBJECT_SCHEMA and response_format is not None:
            return json_object_with_schema(response_format)
        return json_object_format() if accepted in (JSON_OBJECT_SCHEMA, JSON_OBJECT) else None

    def _refused(
        self, model: str, role: str, response_format: dict[str, Any] | None
    ) -> dict[str, Any] | None:
        """Remember that ``response_format`` was refused; the next format to try."""
        refused = _kind(response_format)
        step = _CHAIN[_CHAIN.index(refused) + 1]
        if self.memory.step_down(self.server, model, step):  # news only once, however many ask
            _log.warning(
                "The server refused response_format %s for model %s (role %s); asking for %s from now on "
                "(set response_format to choose it outright).",
                refused,
                model,
                role or "-",
                _SAID[step],
            )
        return self._allowed(model, response_format)


class _FallbackStream(StreamProxy):
    """The inner client's stream, replaced by one a step down the chain while the server refuses.

    Attributes (``reasoning``, ``finish_reason``, ``usage``, ``raw_text``) are read through to
    whichever stream is current.
    """

    def __init__(
        self,
        owner: ResponseFormatFallback,
        messages: list[dict[str, Any]],
        model: str,
        role: str,
        response_format: dict[str, Any] | None,
    ) -> None:
        self._owner = owner
        self._messages = messages
        self._model = model
        self._role = role
        self._started = False
        self._current = self._open(response_format)

    def _open(self, response_format: dict[str, Any] | None) -> ReplyStream:
        self._response_format = response_format
        try:
            stream = self._owner.inner.stream(
                self._messages, model=self._model, role=self._role, response_format=response_format
            )
        except Exception as exc:
            if response_format is None or not is_response_format_rejection(exc):
                raise
            return self._open(self._owner._refused(self._model, self._role, response_format))
        return stream

    def __next__(self) -> str:
        try:
            chunk = next(self._current)
        except StopIteration:
            raise
        except Exception as exc:
            if self._started or self._response_format is None or not is_response_format_rejection(exc):
                raise
            following = self._owner._refused(self._model, self._role, self._response_format)
            self._current = self._open(following)
            return self.__next__()
        self._started = True
        return chunk
