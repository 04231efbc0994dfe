"""One streamed chat completion: content deltas as they arrive, reasoning kept apart, usage at the end.

A stream that stops before its finish reason is a transport failure (docs/architecture.md, "Dropped streams
end silently": the SDK's iterator just stops when a connection drops), so `ChatStream` raises
`LLMStreamDropped` after yielding what it had; it never passes a truncated reply off as complete.

`ChatStream` reads chunks as the openai SDK yields them (`ChatCompletionChunk`) or as plain dicts of the
same shape, so a replayed recording can feed it too.
"""

from __future__ import annotations

import json
import time
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from twnb.llm.errors import (
    ErrorContext,
    LLMError,
    LLMMalformedStreamError,
    LLMStreamDropped,
    llm_error_from,
)
from twnb.llm.usage import Usage


@dataclass
class ChatReply:
    """A whole reply, collected from a stream (see `OpenAIChatClient.complete`)."""

    text: str
    reasoning: str
    finish_reason: str
    usage: Usage
    attempts: int = 1
    # The text of attempts whose stream dropped, oldest first: kept, never mixed into `text`.
    dropped_texts: list[str] = field(default_factory=list)


def collect_reply(stream: Any) -> ChatReply:
    """Read the rest of `stream` (a ChatStream, or a wrapper's proxy of one) and return the whole reply.

    Never passes a reply cut short (closed early) off as whole."""
    for _ in stream:
        pass
    if stream.usage is None or stream.finish_reason is None:
        raise RuntimeError("collect() on a stream that was closed early: there is no whole reply")
    return ChatReply(stream.raw_text, stream.reasoning, stream.finish_reason, stream.usage)


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _read_chunk(chunk: Any) -> tuple[str, str, str | None, Any, str]:
    """(content, reasoning, finish_reason, usage, model) of one chunk; only choice 0 counts."""
    content = reasoning = ""
    finish = None
    for choice in _get(chunk, "choices") or ():
        if (_get(choice, "index") or 0) != 0:
            continue
        delta = _get(choice, "delta")
        if delta is not None:
            content = _get(delta, "content") or ""
            # Thinking text is `reasoning_content` (DeepSeek, vLLM) or `reasoning` (Ollama, OpenRouter).
            reasoning = _get(delta, "reasoning_content") or _get(delta, "reasoning") or ""
        finish = _get(choice, "finish_reason") or finish
    return content, reasoning, finish, _get(chunk, "usage"), _get(chunk, "model") or ""


class ChatStream:
    """Iterate for content deltas (str). Filled as it runs: `raw_text`, `reasoning`, `finish_reason`;
    `usage` (a `Usage`) once the stream has ended, whether it ended well or not."""

    def __init__(
        self,
        chunks: Iterable[Any],
        ctx: ErrorContext,
        *,
        prompt_text: str = "",
        started: float | None = None,
    ) -> None:
        # Pieces in lists, joined on demand: `self.raw_text += piece` would copy the whole text per chunk.
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self.model = ctx.model
        self.response_id: str | None = None  # the server's completion id (`chatcmpl-...`), if it sends one
        self.done = False
        self._chunks = chunks
        self._ctx = ctx
        self._prompt_text = prompt_text
        self._started = time.perf_counter() if started is None else started
        self._first_token: float | None = None
        self._server_usage: Any = None
        self._iterator = self._run()

    @property
    def raw_text(self) -> str:
        """The content so far."""
        if len(self._text) > 1:
            self._text[:] = ["".join(self._text)]
        return self._text[0] if self._text else ""

    @property
    def reasoning(self) -> str:
        """The thinking text so far (`reasoning_content` / `reasoning` deltas), never part of the content."""
        if len(self._reasoning) > 1:
            self._reasoning[:] = ["".join(self._reasoning)]
        return self._reasoning[0] if self._reasoning else ""

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        return next(self._iterator)

    def collect(self) -> ChatReply:
        """Read the rest of the stream and return the whole reply (raises as iteration does)."""
        return collect_reply(self)

    def close(self) -> None:
        """Stop early and release the connection (what was read stays in the attributes)."""
        self._iterator.close()

    def __enter__(self) -> ChatStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------------------
    def _run(self) -> Generator[str, None, None]:
        error: LLMError | None = None
        try:
            for chunk in self._chunks:
                content, reasoning, finish, usage, model = _read_chunk(chunk)
                if model:
                    self.model = model
                if self.response_id is None:
                    self.response_id = _get(chunk, "id") or None
                if usage is not None:
                    self._server_usage = usage
                if (content or reasoning) and self._first_token is None:
                    self._first_token = time.perf_counter()
                if reasoning:
                    self._reasoning.append(reasoning)
                if finish:
                    self.finish_reason = finish
                if content:
                    self._text.append(content)
                    yield content
        except LLMError:
            self._finish()
            raise
        except Exception as exc:
            error = self._broken(exc)
            if error is None:
                raise
        finally:
            close = getattr(self._chunks, "close", None)
            if close is not None:
                close()
        self._finish()
        if error is not None:
            # Outside the handler: the SDK's exception must not ride along as the hidden __context__.
            raise error
        if self.finish_reason is None:
            raise self._dropped(
                LLMStreamDropped,
                f"The stream from {self._ctx.url} for {self._ctx.call} ended without a finish reason "
                f"after {len(self.raw_text)} characters: the connection dropped. The partial reply is "
                "not used; run it again.",
            )

    def _broken(self, exc: Exception) -> LLMError | None:
        """The error for a stream that broke mid-way; None for exceptions that are bugs."""
        import openai

        got = f"after {len(self.raw_text)} characters"
        if isinstance(exc, json.JSONDecodeError):
            return self._dropped(
                LLMMalformedStreamError,
                f"The server at {self._ctx.url} sent a malformed event (not JSON: {exc.msg}) {got} of "
                f"{self._ctx.call}. The partial reply is not used; if it happens again, the server or a "
                "proxy in between is mangling the stream.",
            )
        if isinstance(exc, openai.APITimeoutError):
            limit = f"{self._ctx.timeout:g} s" if self._ctx.timeout else "the timeout"
            return self._dropped(
                LLMStreamDropped,
                f"The stream from {self._ctx.url} for {self._ctx.call} stalled: no data for {limit} "
                f"({got}). Run it again, or raise the timeout for slow models.",
            )
        if isinstance(exc, openai.APIConnectionError):
            return self._dropped(
                LLMStreamDropped,
                f"The connection to {self._ctx.url} broke during {self._ctx.call} ({got}). "
                "The partial reply is not used; run it again.",
            )
        return llm_error_from(exc, self._ctx)

    def _dropped(self, cls: type[LLMStreamDropped], message: str) -> LLMStreamDropped:
        return cls(
            message,
            partial_text=self.raw_text,
            partial_reasoning=self.reasoning,
            url=self._ctx.url,
            model=self._ctx.model,
        )

    def _finish(self) -> None:
        if self.done:
            return
        self.done = True
        if self._server_usage is not None:
            usage = Usage.from_server(self._server_usage, model=self.model)
        else:
            usage = Usage.estimate(
                prompt_text=self._prompt_text,
                completion_text=self.reasoning + self.raw_text,
                model=self.model,
            )
        now = time.perf_counter()
        usage.wall_time_s = now - self._started
        if self._first_token is not None:
            usage.time_to_first_token_s = self._first_token - self._started
        self.usage = usage
