"""The model's context: how big it is, where that was learned, and the budget a prompt has in it.

Where the size comes from, first found wins:

1. the ``context_size`` setting (the user knows best);
2. the server itself, asked once per model (context_probe.py): llama-server's ``/props``, vLLM's
   ``max_model_len`` in ``/v1/models``, LM Studio's ``/api/v1/models``, Ollama's ``/api/ps``;
3. a context error the server sent (context_error.py), which names it.

A prompt's budget is the context less what the reply needs (the ``max_tokens`` setting, else a
quarter of the context, between 256 and 4,096 tokens). Prompts are counted in characters: a token is
taken as 3 characters (fewer than the usual 4, so as to err on the safe side) until the server reports
a prompt's real count (its usage, or the numbers in a context error), which then sets the ratio for
that model.

A size learned from an error is used to fit prompts but not to refuse one before sending: the
server may have been restarted with a bigger context since, and it is the one that knows.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from twnb.llm.usage import messages_text

__all__ = ["ContextWindows", "KnownContext", "PromptBudget"]

DEFAULT_CHARS_PER_TOKEN = 3.0
TOKENS_PER_MESSAGE = 5  # the chat template's markers around each message
FROM_ERROR = "the server's context error"
FROM_SETTING = "the context_size setting"


@dataclass(frozen=True)
class KnownContext:
    tokens: int
    source: str  # where it was learned, as a message says it: "llama-server's /props", ...


@dataclass(frozen=True)
class PromptBudget:
    """What a prompt may spend of the model's context."""

    context: KnownContext
    reply_tokens: int
    chars_per_token: float

    @property
    def prompt_tokens(self) -> int:
        """The most tokens a prompt may have."""
        return max(self.context.tokens - self.reply_tokens, 0)

    @property
    def enforced(self) -> bool:
        """Whether a prompt over budget is refused before sending (see the module docstring)."""
        return self.context.source != FROM_ERROR

    def estimate(self, messages: list[dict[str, Any]]) -> int:
        """The tokens `messages` (openai chat messages) will take, about."""
        chars = len(messages_text(messages))
        return math.ceil(chars / self.chars_per_token) + TOKENS_PER_MESSAGE * len(messages)

    def fits(self, messages: list[dict[str, Any]]) -> bool:
        return self.estimate(messages) <= self.prompt_tokens


def reply_reserve(context_tokens: int, max_tokens: int | None) -> int:
    if max_tokens:
        return max_tokens
    return max(256, min(4096, context_tokens // 4))


class ContextWindows:
    """Each model's context for one client: the setting, else asked of the server once, else learned.

    `probe(model)` asks the server (None: it would not say); it is called at most once per model.
    Thread-safe: roles of concurrent sessions may share a client."""

    def __init__(
        self,
        *,
        context_size: int | None = None,
        max_tokens: int | None = None,
        probe: Callable[[str], KnownContext | None] | None = None,
    ) -> None:
        self.context_size = context_size
        self.max_tokens = max_tokens
        self.probe = probe
        self._known: dict[str, KnownContext | None] = {}
        self._chars_per_token: dict[str, float] = {}
        self._lock = threading.Lock()

    def known(self, model: str) -> KnownContext | None:
        """The model's context, if anything says it."""
        if self.context_size:
            return KnownContext(self.context_size, FROM_SETTING)
        with self._lock:
            if model in self._known:
                return self._known[model]
        found = self.probe(model) if self.probe is not None else None
        with self._lock:
            return self._known.setdefault(model, found)

    def peek(self, model: str) -> KnownContext | None:
        """What is known of the model's context now, without asking the server."""
        if self.context_size:
            return KnownContext(self.context_size, FROM_SETTING)
        with self._lock:
            return self._known.get(model)

    def budget(self, model: str) -> PromptBudget | None:
        """The budget of a prompt for `model`; None when its context is not known."""
        context = self.known(model)
        if context is None:
            return None
        ratio = self._chars_per_token.get(model, DEFAULT_CHARS_PER_TOKEN)
        return PromptBudget(context, reply_reserve(context.tokens, self.max_tokens), ratio)

    def observe(self, model: str, prompt_chars: int, prompt_tokens: int) -> None:
        """A server's count of a prompt of `prompt_chars` characters: the ratio for this model."""
        if prompt_tokens > 0 and prompt_chars > 0:
            with self._lock:
                self._chars_per_token[model] = prompt_chars / prompt_tokens

    def learn(
        self, model: str, context_tokens: int | None, prompt_tokens: int | None, prompt_chars: int
    ) -> bool:
        """A context error's numbers; True when they taught something new (a refit may now fit)."""
        new = False
        if prompt_tokens:
            before = self._chars_per_token.get(model)
            self.observe(model, prompt_chars, prompt_tokens)
            new = before != self._chars_per_token.get(model)
        if context_tokens and not self.context_size:
            with self._lock:
                current = self._known.get(model)
                if current is None or current.tokens != context_tokens:
                    self._known[model] = KnownContext(context_tokens, FROM_ERROR)
                    new = True
        return new
