"""One LLM reply turned into one Post, with bounded retries that never leave half an attempt behind.

Each attempt streams through the translator into a scratch Post that carries the final post id, so
the view shows the text as it arrives. A dropped stream (`LLMStreamDropped`) or a reply the translator
cannot read (`TranslationError`) is an attempt lost: a `PostRetry` tells the view to clear that post,
the raw text is kept in `post.extra["dropped_attempts"]`, and the call is sent again. Only a complete
attempt is committed.

The request comes in as `Msg`s (twnb.llm.messages) and is turned into the openai format here, in one
place, right before the call: whatever client wraps the real one (RedactingClient, the recorder) sees
the plain dicts, and thinking blocks are never sent back.

Usage (`post.extra["usage"]`): tokens, calls and LLM wall time summed over the turn's attempts, the
model, `estimated` when the server sent no counts, and `time_to_first_token_s` of the attempt the post
came from (the last one; None if no text arrived).

A reply longer than `max_reply_chars` is stopped there (the stream is closed, not read to its end) and
raises `ReplyTooLong`, which fails the Round with that reason: a model that rambles megabytes once would
do it again, and storing and showing all of it helps no one. Its post keeps the text up to the limit.

Every other LLM error (after the SDK's own HTTP retries), the last dropped stream and Ctrl-C go up to
the session, which fails the Round with its posts kept. What had arrived is not thrown away: when any
text arrived, the error comes wrapped in a `ReplyCutShort` (role.py) whose `post` is built from it,
marked `extra["incomplete"]` (why) with that text in `extra["raw_text"]`, for the session to keep.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from twnb.base import now_iso
from twnb.llm import (
    ChatClient,
    ContextWindows,
    LLMStreamDropped,
    Msg,
    PromptBudget,
    ReplyStream,
    Usage,
    messages_text,
    to_openai_messages,
)
from twnb.memory import (
    DroppedAttempt,
    NullObserver,
    Observer,
    Post,
    PostRetry,
    PostStarted,
    StatusChanged,
    TimingRecord,
    UsageRecord,
    UsageReported,
    add_usage,
)
from twnb.roles.errors import TranslationError
from twnb.roles.role import ReplyCutShort, RoleFailure
from twnb.roles.translator import REASONING_CAP, PostTranslator  # one cap for every thinking source


class ReplyUnreadable(Exception):
    """Every attempt gave a reply the translator could not read. `attempts` holds each one's `reason`
    and `raw_text`, oldest first; the last attempt's `TranslationError` is the `__cause__`. `usage` is
    what the attempts spent, all the same."""

    def __init__(
        self, message: str, attempts: list[DroppedAttempt], usage: UsageRecord | None = None
    ) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.usage = usage or UsageRecord()

    @property
    def raw_texts(self) -> list[str]:
        return [attempt["raw_text"] for attempt in self.attempts]

    @property
    def problem(self) -> str:
        """What was wrong with the last reply, in words a role can quote back to the model."""
        return str(self.__cause__ or self)

    def empty_post(self, post_id: str, send_from: str, send_to: str) -> Post:
        """A Post with nothing usable, every attempt kept in `extra["dropped_attempts"]`, and what they
        spent in `extra["usage"]` (a Round of unreadable replies still shows its tokens)."""
        post = Post.create("", send_from, send_to)
        post.id = post_id
        post.extra["dropped_attempts"] = list(self.attempts)
        if self.usage:
            post.extra["usage"] = self.usage.copy()
        return post


class ReplyTooLong(RoleFailure):
    """A reply passed `max_reply_chars`; the text says which role, the limit and what to do."""

    def __init__(self, role: str, limit: int) -> None:
        super().__init__(
            f"The {role}'s reply passed {limit:,} characters (max_reply_chars) and was stopped there; "
            "its first part is kept in the post. Ask for a shorter answer (a summary, not the data), "
            "or raise max_reply_chars."
        )
        self.limit = limit


@dataclass
class TurnResult:
    post: Post
    raw_text: str
    usage: UsageRecord = field(default_factory=lambda: UsageRecord())


def combine_reasoning(*parts: str, cap: int = REASONING_CAP) -> str:
    """The thinking a reply came with, from every source (the server's `reasoning_content` and the
    `<think>` block the translator found), joined and capped at `cap` characters, the cut said."""
    text = "\n\n".join(p for p in (part.strip() for part in parts) if p)
    if len(text) <= cap:
        return text
    return text[:cap] + f"\n[... {len(text) - cap} more characters of reasoning not kept]"


def attempt_text(error: BaseException, stream: ReplyStream | None) -> str:
    """The raw text one failed attempt received: each error class names it its own way."""
    if isinstance(error, TranslationError):
        return error.raw_text

    if isinstance(error, LLMStreamDropped):
        return error.partial_text
    return stream.raw_text if stream is not None else ""


@dataclass
class LLMTurn:
    """Calls `client.stream` for one role and translates the reply (see the module docstring)."""

    client: ChatClient
    model: str
    role: str
    translator: PostTranslator
    attempts: int = 3
    response_format: dict[str, Any] | None = None
    required_keys: tuple[str, ...] = ()
    max_reply_chars: int | None = None  # None: no limit
    # What is known of the model's context (the live client's): prompts are fitted to it
    # (prompt_fit.py), and each server count of a prompt teaches how many characters a token is.
    context: ContextWindows | None = None

    def budget(self) -> PromptBudget | None:
        """What a prompt may spend of the model's context; None when its context is not known."""
        return self.context.budget(self.model) if self.context is not None else None

    def run(
        self,
        messages: Sequence[Msg],
        *,
        post_id: str,
        send_to: str,
        observer: Observer | None = None,
    ) -> TurnResult:
        request = _openai_request(messages)
        observer = observer or NullObserver()
        dropped: list[DroppedAttempt] = []
        usage_total = UsageRecord()
        started_at, started = now_iso(), time.perf_counter()
        observer.on_event(PostStarted(post_id=post_id, send_from=self.role, send_to=send_to))
        for attempt in range(1, self.attempts + 1):
            observer.on_event(StatusChanged(f"{self.role}: calling the LLM"))
            stream: ReplyStream | None = None
            try:
                stream = self.client.stream(
                    request, model=self.model, role=self.role, response_format=self.response_format
                )
                post = self.translator.raw_text_to_post(
                    _chunks(stream, self.role, self.max_reply_chars),
                    self.role,
                    observer,
                    post_id=post_id,
                    send_to=send_to,
                    required_keys=self.required_keys,
                )
            except (LLMStreamDropped, TranslationError) as error:
                raw = attempt_text(error, stream)
                self._count(stream, usage_total)
                reason = f"{type(error).__name__}: {error}"
                if attempt == self.attempts:
                    if isinstance(error, LLMStreamDropped):
                        timing = _timing(started_at, started)
                        cut = self._cut_short(
                            error, raw, stream, post_id, send_to, dropped, usage_total, timing
                        )
                        if cut is not None:
                            raise cut from error
                        raise
                    dropped.append({"reason": reason, "raw_text": raw})
                    raise ReplyUnreadable(
                        f"the {self.role}'s reply could not be read after {attempt} attempts: {error}",
                        dropped,
                        usage_total,
                    ) from error
                dropped.append({"reason": reason, "raw_text": raw})
                observer.on_event(PostRetry(post_id=post_id, reason=reason))
                continue
            except BaseException as error:
                # Ctrl-C or an LLM error: what the stream reported still counts as spent, and what
                # had arrived is kept for the session.
                self._count(stream, usage_total)
                raw = attempt_text(error, stream)
                if isinstance(error, ReplyTooLong):
                    raw = raw[: error.limit]  # what came past the limit is not kept either
                timing = _timing(started_at, started)
                cut = self._cut_short(error, raw, stream, post_id, send_to, dropped, usage_total, timing)
                if cut is not None:
                    raise cut from error
                raise
            self._count(stream, usage_total)
            self._calibrate(stream, request)
            post.id = post_id
            if dropped:
                post.extra["dropped_attempts"] = dropped
            self._add_reasoning(post, stream)
            if usage_total:
                post.extra["usage"] = usage_total
                observer.on_event(UsageReported(post_id=post_id, usage=usage_total.copy()))
            post.extra["timing"] = _timing(started_at, started)
            return TurnResult(post=post, raw_text=stream.raw_text, usage=usage_total)
        raise AssertionError("unreachable: the loop returns or raises")

    def _cut_short(
        self,
        error: BaseException,
        raw: str,
        stream: ReplyStream | None,
        post_id: str,
        send_to: str,
        dropped: list[DroppedAttempt],
        usage: UsageRecord,
        timing: TimingRecord,
    ) -> ReplyCutShort | None:
        """`error` with the Post made of what this turn received, if anything arrived."""
        if not raw.strip() and not dropped:
            return None
        try:
            post = self.translator.raw_text_to_post([raw], self.role, None, post_id=post_id, send_to=send_to)
        except TranslationError as unreadable:  # the usual case: the reply was cut off
            post = unreadable.partial_post or Post.create("", self.role, send_to)
        except Exception:  # a translator bug must not hide the real error
            post = Post.create("", self.role, send_to)
        post.id = post_id
        if isinstance(error, ReplyTooLong):
            post.extra["incomplete"] = str(error)
        else:
            reason = "interrupted" if isinstance(error, KeyboardInterrupt) else type(error).__name__
            post.extra["incomplete"] = f"The reply stopped before it was complete: {reason}."
        post.extra["raw_text"] = raw
        if dropped:
            post.extra["dropped_attempts"] = list(dropped)
        self._add_reasoning(post, stream)
        if usage:
            post.extra["usage"] = usage.copy()
        post.extra["timing"] = timing
        return ReplyCutShort(error, post)

    @staticmethod
    def _add_reasoning(post: Post, stream: ReplyStream | None) -> None:
        """The server's reasoning (streamed apart) and the reply's own think block, both kept."""
        served = stream.reasoning if stream is not None else ""
        reasoning = combine_reasoning(served, str(post.extra.get("reasoning") or ""))
        if reasoning:
            post.extra["reasoning"] = reasoning
        else:
            post.extra.pop("reasoning", None)

    def _calibrate(self, stream: ReplyStream, request: list[dict[str, Any]]) -> None:
        """A server's own count of the prompt: how many characters a token is for this model."""
        usage = stream.usage
        if self.context is not None and usage is not None and not usage.estimated and usage.prompt_tokens:
            self.context.observe(self.model, len(messages_text(request)), usage.prompt_tokens)

    @staticmethod
    def _count(stream: ReplyStream | None, total: UsageRecord) -> None:
        usage = stream.usage if stream is not None else None
        if usage is None:
            return
        add_usage(total, _record(usage))
        first = usage.time_to_first_token_s
        total["time_to_first_token_s"] = round(first, 3) if first is not None else None


def _openai_request(messages: Sequence[Msg]) -> list[dict[str, Any]]:
    """The one conversion of a role's request to the openai format (thinking dropped)."""
    wrong = next((m for m in messages if not isinstance(m, Msg)), None)
    if wrong is not None:
        raise TypeError(
            f"LLMTurn.run takes twnb.llm.messages.Msg objects, got a {type(wrong).__name__}: "
            "build the request as Msgs (the conversion to the openai format happens here)."
        )
    return to_openai_messages(messages)


def _record(usage: Usage) -> UsageRecord:
    """One call's usage as the record a Post keeps."""
    return UsageRecord(
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        cached_tokens=usage.cached_tokens,
        wall_time_s=usage.wall_time_s,
        estimated=usage.estimated,
        model=usage.model,
    )


def _timing(started_at: str, started: float) -> TimingRecord:
    return {
        "started_at": started_at,
        "ended_at": now_iso(),
        "duration_s": round(time.perf_counter() - started, 3),
    }


def _chunks(stream: ReplyStream, role: str, limit: int | None) -> Iterator[str]:
    """The stream's pieces, until they pass `limit` characters: then the stream is closed (the rest
    is never read, so a runaway reply costs no more time or memory) and ReplyTooLong raised."""
    received = 0
    for piece in stream:
        received += len(piece)
        if limit is not None and received > limit:
            stream.close()
            raise ReplyTooLong(role, limit)
        yield piece
