"""One streamed chat completion: content deltas as they arrive, reasoning kept apart, usage at the end.

A stream that stops before its finish reason is a transport failure (docs/architecture.md, "Dropped streams
end silently": the SDK's iterator just stops when a connection drops), so `ChatStream` raises
`LLMStreamDropped` after yielding what it had; it never passes a truncated reply off as complete.
How else a stream can end, each with its own error (twnb/llm/errors.py):

- no event at all after HTTP 200: `LLMEmptyReply` (llama-cpp-python's answer to a prompt over its
  context), never mistaken for a dropped connection;
- `finish_reason: length`: `LLMReplyTruncated`, saying which limit (the context or the output cap),
  the numbers and what to change;
- an error event inside the stream: `LLMStreamErrorEvent` (a dropped stream, so retried) with the
  server's words, or `LLMContextExceeded` when those words are about the context;
- a deadline missed (deadlines.py): `LLMStalled`, naming the setting to raise. Empty deltas and
  keep-alives do not count as progress.

`ChatStream` reads chunks as the openai SDK yields them (`ChatCompletionChunk`) or as plain dicts of the
same shape, so a replayed recording can feed it too.
"""

from __future__ import annotations

import json
import time
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from twnb.llm.context_error import context_hint, read_context_error
from twnb.llm.deadlines import LLMDeadlines, StreamWatch
from twnb.llm.errors import (
    ErrorContext,
    LLMContextExceeded,
    LLMEmptyReply,
    LLMError,
    LLMMalformedStreamError,
    LLMReplyTruncated,
    LLMStalled,
    LLMStreamDropped,
    LLMStreamErrorEvent,
    capitalized,
    llm_error_from,
)
from twnb.llm.usage import Usage, estimate_tokens

if TYPE_CHECKING:
    from twnb.llm.chat_client import ReplyStream


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


def collect_reply(stream: ReplyStream) -> ChatReply:
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
        watch: StreamWatch | None = None,
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
        # Holds the reply to its deadlines (deadlines.py); None: no deadlines (a replay, say).
        self._watch = watch
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
        watch = self._watch
        events = 0
        perf = time.perf_counter
        try:
            for chunk in self._chunks:
                events += 1
                content, reasoning, finish, usage, model = _read_chunk(chunk)
                now = perf()
                if content or reasoning:
                    if self._first_token is None:
                        self._first_token = now
                    if watch is not None:
                        watch.progress(now)
                if watch is not None and now >= watch.due:
                    # Empty deltas or keep-alives past a deadline: the server is busy, not answering.
                    watch.missed(now)
                    break
                if model:
                    self.model = model
                if self.response_id is None:
                    self.response_id = _get(chunk, "id") or None
                if usage is not None:
                    self._server_usage = usage
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
            if watch is not None:
                watch.stop()
            close = getattr(self._chunks, "close", None)
            if close is not None:
                close()
        self._finish()
        if watch is not None and watch.stall is not None:
            raise self._stalled(watch)
        if error is not None:
            # Outside the handler: the SDK's exception must not ride along as the hidden __context__.
            raise error
        if self.finish_reason is None:
            if events == 0:
                raise self._empty()
            raise self._dropped(
                LLMStreamDropped,
                f"The stream from {self._ctx.url} for {self._ctx.call} ended without a finish reason "
                f"after {len(self.raw_text)} characters: the connection dropped. The partial reply is "
                "not used; run it again.",
            )
        if self.finish_reason == "length":
            raise LLMReplyTruncated(
                truncation_message(self._ctx, self.usage), url=self._ctx.url, model=self._ctx.model
            )

    def _stalled(self, watch: StreamWatch) -> LLMStalled:
        stall = watch.missed(time.perf_counter())
        deadlines = watch.deadlines
        what = {
            "first_byte": "sent no text or thinking",
            "idle": "sent nothing new",
            "total": "had not finished",
        }[stall.deadline]
        advice = {
            "first_byte": "A long prompt on a CPU server, or a model thinking before it writes, needs more",
            "idle": "A server this slow between pieces needs more",
            "total": "A reply this long on this server needs more",
        }[stall.deadline]
        return LLMStalled(
            f"{capitalized(self._ctx.call)} timed out: the server at {self._ctx.url} {what} within "
            f"{deadlines.describe(stall.deadline)} ({len(self.raw_text)} characters received). "
            f"{advice}: raise {stall.setting}. It is not sent again, so as not to queue a second "
            "request behind the first.",
            setting=stall.setting,
            partial_text=self.raw_text,
            url=self._ctx.url,
            model=self._ctx.model,
        )

    def _empty(self) -> LLMEmptyReply:
        tokens = estimate_tokens(self._prompt_text)
        known = self._ctx.context_tokens
        size = f" of a {known:,}-token context" if known else ""
        return LLMEmptyReply(
            f"The server at {self._ctx.url} answered {self._ctx.call} with HTTP 200 and then sent nothing "
            f"(no event, no [DONE]). Most likely the prompt (~{tokens:,} tokens{size}) is over the model's "
            f"context: llama-cpp-python answers so. {context_hint()} Or set context_size to the server's "
            "context, and twnb fits its prompts to it. If the prompt is small, the connection dropped: "
            "run it again.",
            url=self._ctx.url,
            model=self._ctx.model,
        )

    def _broken(self, exc: Exception) -> LLMError | None:
        """The error for a stream that broke mid-way; None for exceptions that are bugs."""
        import openai  # lazy: openai (~380 ms, 700 modules) loads with the first request, not at import

        got = f"after {len(self.raw_text)} characters"
        if isinstance(exc, json.JSONDecodeError):
            return self._dropped(
                LLMMalformedStreamError,
                f"The server at {self._ctx.url} sent a malformed event (not JSON: {exc.msg}) {got} of "
                f"{self._ctx.call}. The partial reply is not used; if it happens again, the server or a "
                "proxy in between is mangling the stream.",
            )
        if isinstance(exc, openai.APITimeoutError):
            # The HTTP read timeout (the longest silence the deadlines allow) struck mid-stream.
            deadlines = self._ctx.deadlines or LLMDeadlines()
            watch = StreamWatch(deadlines, self._started)
            if self._first_token is not None:
                watch.progress(self._first_token)
            watch.missed(max(time.perf_counter(), watch.due))
            return self._stalled(watch)
        if isinstance(exc, openai.APIConnectionError):
            return self._dropped(
                LLMStreamDropped,
                f"The connection to {self._ctx.url} broke during {self._ctx.call} ({got}). "
                "The partial reply is not used; run it again.",
            )
        if isinstance(exc, openai.APIError) and not isinstance(exc, openai.APIStatusError):
            # An error event inside the stream: the server's own words, which may say why.
            said = self._ctx.scrub(str(getattr(exc, "message", "") or exc))
            overflow = read_context_error(said)
            if overflow is not None:
                how = f"the server at {self._ctx.url} said: {said}"
                return LLMContextExceeded.said(
                    self._ctx.call, overflow, how, url=self._ctx.url, model=self._ctx.model
                )
            return LLMStreamErrorEvent(
                f"The server at {self._ctx.url} sent an error in the middle of {self._ctx.call} ({got}): "
                f"{said}",
                server_message=said,
                partial_text=self.raw_text,
                partial_reasoning=self.reasoning,
                url=self._ctx.url,
                model=self._ctx.model,
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


def truncation_message(ctx: ErrorContext, usage: Usage | None) -> str:
    """One line for a reply that stopped at `finish_reason: length`: which limit, the numbers, what to
    change. The context is the limit when prompt and reply filled it; `max_tokens` when the reply
    reached it; otherwise the server's own output cap or the context, whichever it was."""
    mark = "~" if usage is not None and usage.estimated else ""
    prompt = usage.prompt_tokens if usage is not None else 0
    reply = usage.completion_tokens if usage is not None else 0
    numbers = f"the prompt took {mark}{prompt:,} tokens and the reply {mark}{reply:,}"
    start = f"{capitalized(ctx.call)} stopped at a token limit (finish_reason: length): {numbers}"
    context, cap = ctx.context_tokens, ctx.max_tokens
    if context and prompt + reply >= 0.9 * context:
        return (
            f"{start}, which fills the {context:,}-token context. The reply cannot be used. {context_hint()}"
        )
    if cap and reply >= 0.9 * cap:
        return f"{start}, the max_tokens setting ({cap:,}). The reply cannot be used: raise max_tokens."
    held = f" (the context holds {context:,})" if context else ""
    unknown = (
        ""
        if context
        else " Setting context_size to the model's context lets twnb keep room for the reply in every prompt."
    )
    return (
        f"{start}{held}. The reply cannot be used. Raise the server's output limit (llama-server -n, "
        "Ollama num_predict, the max_tokens setting), or, if the context is the limit, "
        + context_hint()[0].lower()
        + context_hint()[1:]
        + unknown
    )
