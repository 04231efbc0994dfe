"""Token usage and timing of one LLM call, kept on the Post's `extra["usage"]`.

Counts come from the server's usage chunk (`stream_options={"include_usage": True}`); a server that
sends none gets an estimate of about four characters a token, marked `estimated=True` so nobody mistakes
it for a bill.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """About four characters a token: the usual rule of thumb for English and code."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def messages_text(messages: list[dict[str, Any]]) -> str:
    """The text of openai chat messages, for estimating usage when the server reports none."""
    parts = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return "\n".join(parts)


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    model: str = ""
    wall_time_s: float = 0.0
    time_to_first_token_s: float | None = None
    estimated: bool = False

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Usage:
        """Unknown keys are ignored, so usage saved by a later version still loads."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    @classmethod
    def from_server(cls, usage: Any, *, model: str) -> Usage:
        """From the SDK's `CompletionUsage` (or a plain dict of the same shape)."""
        data = usage if isinstance(usage, dict) else usage.model_dump()
        details = data.get("prompt_tokens_details") or {}
        # DeepSeek reports cache hits under its own name.
        cached = details.get("cached_tokens") or data.get("prompt_cache_hit_tokens") or 0
        return cls(
            prompt_tokens=int(data.get("prompt_tokens") or 0),
            completion_tokens=int(data.get("completion_tokens") or 0),
            cached_tokens=int(cached),
            model=model,
        )

    @classmethod
    def estimate(cls, *, prompt_text: str, completion_text: str, model: str) -> Usage:
        return cls(
            prompt_tokens=estimate_tokens(prompt_text),
            completion_tokens=estimate_tokens(completion_text),
            model=model,
            estimated=True,
        )
