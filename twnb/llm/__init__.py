"""llm layer: messages, the streaming client, cassettes, redaction (docs/architecture.md, "Layers").

Names are exported lazily: `import twnb.llm` stays cheap, and the openai SDK is imported only when a
client is built.
"""

from __future__ import annotations

import importlib
from typing import Any

# public name -> the module that defines it
_EXPORTS = {
    # the streaming client (client.py, stream.py, usage.py, errors.py)
    "ChatClient": "twnb.llm.client",
    "OpenAIChatClient": "twnb.llm.client",
    "ChatStream": "twnb.llm.stream",
    "ChatReply": "twnb.llm.stream",
    "Usage": "twnb.llm.usage",
    "LLMError": "twnb.llm.errors",
    "LLMAuthError": "twnb.llm.errors",
    "LLMNotFoundError": "twnb.llm.errors",
    "LLMConnectionError": "twnb.llm.errors",
    "LLMTimeoutError": "twnb.llm.errors",
    "LLMRateLimitError": "twnb.llm.errors",
    "LLMServerError": "twnb.llm.errors",
    "LLMBadRequestError": "twnb.llm.errors",
    "LLMStreamDropped": "twnb.llm.errors",
    "LLMMalformedStreamError": "twnb.llm.errors",
    # the client from settings, messages, response_format, record/replay, redaction (the llm surface)
    "make_client": "twnb.llm.client",
    "Msg": "twnb.llm.messages",
    "TextBlock": "twnb.llm.messages",
    "ThinkingBlock": "twnb.llm.messages",
    "ImageBlock": "twnb.llm.messages",
    "Base64Source": "twnb.llm.messages",
    "URLSource": "twnb.llm.messages",
    "ToolUseBlock": "twnb.llm.messages",
    "ToolResultBlock": "twnb.llm.messages",
    "to_openai_messages": "twnb.llm.messages",
    "post_to_msg": "twnb.llm.messages",
    "msg_to_post": "twnb.llm.messages",
    "ResponseFormatFallback": "twnb.llm.response_format",
    "json_schema_format": "twnb.llm.response_format",
    "json_object_format": "twnb.llm.response_format",
    "RecordingClient": "twnb.llm.cassette",
    "ReplayClient": "twnb.llm.cassette",
    "CassetteDriftWarning": "twnb.llm.cassette",
    "CassetteExhausted": "twnb.llm.cassette",
    "cassette_path_for": "twnb.llm.cassette",
    "Redactor": "twnb.config.redaction",
    "RedactingFilter": "twnb.config.redaction",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'twnb.llm' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
