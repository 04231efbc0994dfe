"""Progress events a Round reports, and the observers that receive them.

See docs/architecture.md, "A Round's data flow".

The session never knows who watches: a widget, a terminal printer, a tracer or a test is just an
`Observer`. Deltas carry only the new piece of text, never the text so far. The plan is not reported
here: it lives in the session's plan notebook, whose plan-change hooks are how anything follows it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from twnb.base import get_logger
from twnb.memory.attachment import AttachmentType
from twnb.memory.extras import PluginCallRecord, UsageRecord
from twnb.memory.post import Post

logger = get_logger(__name__)


@dataclass(frozen=True)
class RoundStarted:
    round_id: str
    user_query: str


@dataclass(frozen=True)
class RoundEnded:
    """Always the last event of a Round; `state` is the Round's final state."""

    round_id: str
    state: str
    failure_reason: str | None = None


@dataclass(frozen=True)
class RoundFailed:
    """An error inside the Round; a `RoundEnded` follows. `error_type` names what ended it (an
    exception's class name, such as `KeyboardInterrupt` or `LLMServerError`), for tracing."""

    round_id: str
    reason: str
    error_type: str | None = None


@dataclass(frozen=True)
class PostStarted:
    post_id: str
    send_from: str
    send_to: str


# The two deltas are built once per streamed piece, so they are the hot path of a Round with a view
# attached. A frozen dataclass's generated __init__ sets each field through object.__setattr__
# (~0.7 us for five fields; `slots=True` does not change that); writing the instance dict directly
# costs ~0.3 us: the translator with an observer went from 3.2 to 4.7 MB/s (bench/bench_translator.py).
# They stay frozen dataclasses: assignment raises, eq/hash/repr/replace/fields are the generated ones.


@dataclass(frozen=True, init=False)
class MessageDelta:
    post_id: str
    text: str
    is_end: bool

    def __init__(self, post_id: str, text: str, is_end: bool) -> None:
        fields = self.__dict__
        fields["post_id"] = post_id
        fields["text"] = text
        fields["is_end"] = is_end


@dataclass(frozen=True, init=False)
class AttachmentDelta:
    post_id: str
    attachment_id: str
    type: AttachmentType
    text: str
    is_end: bool

    def __init__(
        self, post_id: str, attachment_id: str, type: AttachmentType, text: str, is_end: bool
    ) -> None:
        fields = self.__dict__
        fields["post_id"] = post_id
        fields["attachment_id"] = attachment_id
        fields["type"] = type
        fields["text"] = text
        fields["is_end"] = is_end


@dataclass(frozen=True)
class PostRetry:
    """The post's attempt was dropped; a view must clear the text it showed for that post."""

    post_id: str
    reason: str


@dataclass(frozen=True)
class PostCommitted:
    post: Post


@dataclass(frozen=True)
class StatusChanged:
    text: str


@dataclass(frozen=True)
class UsageReported:
    post_id: str
    usage: UsageRecord


@dataclass(frozen=True)
class LLMCallStarted:
    """One request to the chat model is about to be sent (the client wrapper reports it; a retried
    attempt or a response-format fallback is a call of its own). `messages` are the request as sent,
    already redacted: only an observer that records content (opted in) reads them."""

    call_id: str
    role: str
    model: str
    provider: str
    server_address: str | None = None
    server_port: int | None = None
    output_type: str | None = None
    # Not compared or hashed: dicts are not hashable, and the call id already tells calls apart.
    messages: tuple[dict[str, Any], ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class LLMCallEnded:
    """The call ended: its stream was read to the end, broke, or was closed early.

    `usage` is the call's own (`Usage.to_dict()`: tokens, `wall_time_s`, `time_to_first_token_s`,
    `estimated`); `finish_reason` is None for a stream that ended without one (a dropped stream);
    `error_type` names the exception's class when the call failed. `output_text` is the content
    received (for an observer that records content)."""

    call_id: str
    role: str
    response_model: str = ""
    finish_reason: str | None = None
    usage: dict[str, Any] | None = field(default=None, compare=False)
    error_type: str | None = None
    error: str | None = None
    response_id: str | None = None
    output_text: str = ""


@dataclass(frozen=True)
class CodeRunStarted:
    """The session hands a post's code to the executor."""

    post_id: str
    code: str


@dataclass(frozen=True)
class CodeRunEnded:
    """The executor's result came back (or never will: `status` is then `no_result`). `status` is the
    executor's (`success`, `error`, `timeout`, `interrupted`, `kernel_died`); `error_type` the
    exception's class name; `duration_s` the time the code itself ran, as the executor measured it.
    In step mode `waited_s` is how long the code waited for the user's decision before it ran (all of
    the time since `CodeRunStarted` when it never ran), `waited_after_s` how long it then waited for
    Continue or Undo: the ledger draws both as waiting, not as the code's time."""

    post_id: str
    status: str
    duration_s: float | None = None
    error_type: str | None = None
    artifacts: tuple[str, ...] = ()
    result_text: str = ""
    waited_s: float = 0.0
    waited_after_s: float = 0.0


@dataclass(frozen=True)
class PluginCalled:
    """A plugin call the post's code made, reported after the run (before its `CodeRunEnded`), from
    its `PluginCallRecord`: `started_at` (UTC ISO 8601) and `duration_s` say when it ran, `error` the
    exception it raised, `arguments` each argument's name and type, `result` the result's type and a
    short description."""

    post_id: str
    name: str
    source: str
    started_at: str
    duration_s: float
    error: str | None = None
    arguments: tuple[tuple[str, str], ...] = ()
    result: str = ""

    @staticmethod
    def of(post_id: str, call: PluginCallRecord) -> PluginCalled:
        return PluginCalled(
            post_id,
            call["name"],
            call["source"],
            call["started_at"],
            call["duration_s"],
            call["error"],
            tuple(call["arguments"].items()),
            call["result"],
        )


Event = (
    RoundStarted
    | RoundEnded
    | RoundFailed
    | PostStarted
    | MessageDelta
    | AttachmentDelta
    | PostRetry
    | PostCommitted
    | StatusChanged
    | UsageReported
    | LLMCallStarted
    | LLMCallEnded
    | CodeRunStarted
    | CodeRunEnded
    | PluginCalled
)


@runtime_checkable
class Observer(Protocol):
    def on_event(self, event: Event) -> None: ...


class NullObserver:
    """Receives everything, does nothing (the default when nobody watches)."""

    def on_event(self, event: Event) -> None:
        return None


class EventRelay:
    """Passes events to whichever observer is connected, and drops them while none is.

    Parts built before any Round exists (the chat client wrapper) report through one; the session
    connects each Round's observers while the Round runs."""

    def __init__(self) -> None:
        self.target: Observer | None = None

    def connect(self, observer: Observer | None) -> None:
        self.target = observer

    def on_event(self, event: Event) -> None:
        target = self.target
        if target is not None:
            target.on_event(event)


class ObserverGroup:
    """Fans each event out to several observers, in order.

    An observer that raises is logged and skipped for that event: a broken view never breaks the Round.
    """

    def __init__(self, observers: Iterable[Observer] = ()) -> None:
        self.observers: list[Observer] = list(observers)

    def add(self, observer: Observer) -> None:
        self.observers.append(observer)

    def on_event(self, event: Event) -> None:
        for observer in self.observers:
            try:
                observer.on_event(event)
            except Exception:
                logger.exception(
                    "observer %r failed on %s; the Round goes on", observer, type(event).__name__
                )
