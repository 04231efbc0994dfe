"""Reading a server's "the prompt is over the context" error, and saying what to change.

Servers word it each their own way; what twnb needs from the text is the context size (to fit the
next prompt to it) and, when given, the prompt's size in tokens (which tells how many characters a
token is for this model). Phrasings, as the servers send them:

- llama-server: ``request (2155 tokens) exceeds the available context size (2048 tokens)``
- llama-cpp-python: ``Requested tokens (2155) exceed context window of 2048``
- vLLM and OpenAI: ``This model's maximum context length is 4096 tokens. However, you requested 4348
  tokens (4332 in the messages, 16 in the completion)`` (or ``... your messages resulted in N
  tokens``, ``... your request has N input tokens``)
- LM Studio: ``Trying to keep the first 2155 tokens when context the overflows. However, the model is
  loaded with context length of only 2048 tokens``

Ollama says nothing: it cuts the prompt to its ``num_ctx`` silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ContextOverflow", "context_hint", "read_context_error"]

_NUMBER = r"(\d[\d,]*)"
_CONTEXT = (
    re.compile(rf"available context size \({_NUMBER} tokens\)", re.I),
    re.compile(rf"exceeds? context window of {_NUMBER}", re.I),
    re.compile(rf"maximum context length is {_NUMBER}", re.I),
    re.compile(rf"context length of only {_NUMBER}", re.I),
    re.compile(rf"context (?:size|window|length) (?:of|is) {_NUMBER}", re.I),
)
_PROMPT = (
    re.compile(rf"request \({_NUMBER} tokens\)", re.I),
    re.compile(rf"requested tokens \({_NUMBER}\)", re.I),
    re.compile(rf"{_NUMBER} in the messages", re.I),
    re.compile(rf"messages resulted in {_NUMBER} tokens", re.I),
    re.compile(rf"request has {_NUMBER} input tokens", re.I),
    re.compile(rf"keep the first {_NUMBER} tokens", re.I),
)


@dataclass(frozen=True)
class ContextOverflow:
    """What an overflow error said: the context size, and the prompt's size when it gave it."""

    context_tokens: int
    prompt_tokens: int | None = None

    def describe(self) -> str:
        if self.prompt_tokens is not None:
            return f"the prompt has {self.prompt_tokens:,} tokens, the context holds {self.context_tokens:,}"
        return f"the context holds {self.context_tokens:,} tokens"


def _first_number(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        found = pattern.search(text)
        if found:
            return int(found.group(1).replace(",", ""))
    return None


def read_context_error(text: str) -> ContextOverflow | None:
    """The overflow `text` reports (a server's error message), or None when it is about something else."""
    context = _first_number(_CONTEXT, text)
    if context is None or context <= 0:
        return None
    return ContextOverflow(context, _first_number(_PROMPT, text))


def context_hint() -> str:
    """What to change, for each server people run themselves."""
    return (
        "Give the model a larger context (llama-server -c N, llama-cpp-python --n_ctx N, Ollama num_ctx "
        "or OLLAMA_CONTEXT_LENGTH, vLLM --max-model-len, LM Studio's context length when loading), or "
        "use a model with a bigger one."
    )
