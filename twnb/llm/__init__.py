"""llm layer (see DESIGN.md §1).

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
