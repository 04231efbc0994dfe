"""One LLM reply turned into one Post, with bounded retries that never leave half an attempt behind.

Each attempt streams through the translator into a scratch Post that carries the final post id, so
the view shows the text as it arrives. A dropped stream (`LLMStreamDropped`) or a reply the translator
cannot read (`TranslationError`) is an attempt lost: a `PostRetry` tells the view to clear that post,
the raw text is kept in `post.extra["dropped_attempts"]`, and the call is sent again. Only a complete
attempt is committed. Every other LLM error (after the SDK's own HTTP retries) goes up to the session,
which fails the Round with its posts kept.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from twnb.memory import NullObserver, Observer, Post, PostRetry, PostStarted, StatusChanged, UsageReported
from twnb.roles.errors import TranslationError

REASONING_CAP = 20_000  # characters of a reasoning model's thinking kept in post.extra


class ReplyUnreadable(Exception):
    """Every attempt gave a reply the translator could not read; `raw_texts` holds them, oldest first."""

    def __init__(self, message: str, raw_texts: list[str]) -> None:
        super().__init__(message)
        self.raw_texts = raw_texts


@dataclass
class TurnResult:
    post: Post
    raw_text: str
    usage: dict[str, Any] = field(default_factory=dict)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def add_usage(total: dict[str, Any], usage: dict[str, Any]) -> dict[str, Any]:
    """Token counts summed (`calls` counted); other keys keep the latest value."""
    for key in ("prompt_tokens", "completion_tokens", "cached_tokens"):
        total[key] = int(total.get(key) or 0) + int(usage.get(key) or 0)
    total["calls"] = int(total.get("calls") or 0) + int(usage.get("calls") or 1)
    if usage.get("estimated"):
        total["estimated"] = True
    for key in ("model",):
        if usage.get(key):
            total[key] = usage[key]
    return total


@dataclass
class LLMTurn:
    """Calls `client.stream` for one role and translates the reply (see the module docstring)."""

    client: Any
    model: str
    role: str
    translator: Any
    attempts: int = 3
    response_format: dict[str, Any] | None = None
    required_keys: tuple[str, ...] = ()

    def run(
        self,
        messages: list[dict[str, Any]],
        *,
        post_id: str,
        send_to: str,
        observer: Observer | None = None,
        on_attempt_start: Callable[[], None] | None = None,
    ) -> TurnResult:
        from twnb.llm.errors import LLMStreamDropped

        observer = observer or NullObserver()
        dropped: list[dict[str, str]] = []
        usage_total: dict[str, Any] = {}
        reasoning = ""
        started_at, started = now_iso(), time.perf_counter()
        observer.on_event(PostStarted(post_id=post_id, send_from=self.role, send_to=send_to))
        for attempt in range(1, self.attempts + 1):
            if on_attempt_start is not None:
                on_attempt_start()
            observer.on_event(StatusChanged(f"{self.role}: calling the LLM"))
            stream = self.client.stream(
                messages, model=self.model, role=self.role, response_format=self.response_format
            )
            try:
                post = self.translator.raw_text_to_post(
                    _chunks(stream),
                    self.role,
                    observer,
                    post_id=post_id,
                    send_to=send_to,
                    required_keys=self.required_keys,
                )
            except (LLMStreamDropped, TranslationError) as error:
                raw = (
                    getattr(error, "raw_text", "")
                    or getattr(stream, "raw_text", "")
                    or getattr(error, "partial_text", "")
                )
                self._count(stream, usage_total)
                reason = f"{type(error).__name__}: {error}"
                dropped.append({"reason": reason, "raw_text": raw})
                if attempt == self.attempts:
                    if isinstance(error, LLMStreamDropped):
                        raise
                    raise ReplyUnreadable(
                        f"the {self.role}'s reply could not be read after {attempt} attempts: {error}",
                        [d["raw_text"] for d in dropped],
                    ) from error
                observer.on_event(PostRetry(post_id=post_id, reason=reason))
                continue
            except BaseException:
                # Ctrl-C or an LLM error: whatever the stream reported still counts as spent.
                self._count(stream, usage_total)
                raise
            self._count(stream, usage_total)
            reasoning = getattr(stream, "reasoning", "") or ""
            post.id = post_id
            if dropped:
                post.extra["dropped_attempts"] = dropped
            if reasoning:
                post.extra["reasoning"] = reasoning[:REASONING_CAP]
            if usage_total:
                post.extra["usage"] = usage_total
                observer.on_event(UsageReported(post_id=post_id, usage=dict(usage_total)))
            post.extra["timing"] = {
                "started_at": started_at,
                "ended_at": now_iso(),
                "duration_s": round(time.perf_counter() - started, 3),
            }
            return TurnResult(post=post, raw_text=getattr(stream, "raw_text", "") or "", usage=usage_total)
        raise AssertionError("unreachable: the loop returns or raises")

    @staticmethod
    def _count(stream: Any, total: dict[str, Any]) -> None:
        usage = getattr(stream, "usage", None)
        if usage is not None:
            add_usage(total, usage.to_dict() if hasattr(usage, "to_dict") else dict(usage))


def _chunks(stream: Any) -> Iterator[str]:
    yield from stream
