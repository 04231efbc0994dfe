"""Recording LLM calls to a cassette, and replaying them without a model.

A cassette is a YAML file beside the saved conversation (``session.yaml`` -> ``session.cassette.yaml``):
a header document, then one document per call, appended as each call ends so a crash loses nothing::

    twnb_cassette: 1
    ---
    index: 0
    role: Planner
    model: gpt-4o-mini
    messages_sha256: 3f1c...
    messages: [...]            # redacted
    response_format: {...}
    reply: {content: ..., reasoning: ..., finish_reason: stop, usage: {...}}
    error: null                # or {type, at, message} for a call that did not end well (below)

Every call started is written, however it ends: ``error.type`` names an ``LLMError`` class for a
failed call, ``KeyboardInterrupt`` for one stopped by Ctrl-C and ``StreamClosed`` for one its caller
stopped reading early; ``at`` says whether it ended at the ``request`` or in the ``stream``, and the
reply holds what had arrived. So a replay serves the same sequence and fails where the recording did.

Every text goes through a :class:`~twnb.config.redaction.Redactor` before it is written, and the cassette
never holds HTTP headers, so no key or ``Authorization``/``api-key`` value can land in it. The messages
hash is taken over the *redacted* messages, so a replay on a machine with another key still matches.

:class:`ReplayClient` serves the recorded replies per role, in order, streamed in small chunks so the
translator sees what it would see live. A request that drifts from the recording (another role at that
point, or other messages) still gets the recorded reply, with a line naming the call and the first
message that differs: kept for whoever runs the replay (`take_drift`: a session writes it in the
Round's record), or, with `warn_on_drift`, a :class:`CassetteDriftWarning`. Running out of replies
raises :class:`CassetteExhausted`; `rewind` serves them again from the first (a new conversation).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import warnings
import weakref
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twnb.base import now_iso
from twnb.config import Redactor
from twnb.llm import errors as llm_errors
from twnb.llm.chat_client import ChatClient, ReplyStream
from twnb.llm.errors import ErrorContext, LLMError
from twnb.llm.stream import ChatStream
from twnb.llm.stream_proxy import StreamProxy
from twnb.llm.usage import messages_text
from twnb.memory import dump_yaml, load_yaml_documents

__all__ = [
    "CASSETTE_VERSION",
    "STREAM_CLOSED",
    "CassetteDriftWarning",
    "CassetteEntry",
    "CassetteError",
    "CassetteExhausted",
    "RecordingClient",
    "ReplayClient",
    "cassette_path_for",
    "load_cassette",
    "messages_sha256",
    "without_run_ids",
]

CASSETTE_VERSION = 1
# The error type of a call whose caller stopped reading before the reply ended.
STREAM_CLOSED = "StreamClosed"
_EXCERPT = 60


class CassetteError(LLMError):
    """A cassette file that cannot be used (missing, not a cassette, from a newer twnb)."""


class CassetteExhausted(LLMError):
    """The replay asked for more replies of a role than the cassette recorded."""


class CassetteDriftWarning(UserWarning):
    """A replayed request differs from the recorded one; the recorded reply is served anyway."""


def cassette_path_for(conversation_path: str | Path) -> Path:
    """The cassette beside a saved conversation: ``x.yaml`` -> ``x.cassette.yaml``."""
    path = Path(conversation_path)
    return path.with_name(f"{path.stem}.cassette.yaml")


# The ids twnb makes (post-20261130-130031-40e552f3, session ids, artifact names built from them) are
# new on every run: a replay that differs from its recording only in them has not drifted.
_RUN_ID = re.compile(r"\b\d{8}-\d{6}-[0-9a-f]{8}\b")


def without_run_ids(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` with every twnb-made id replaced by `<id>`."""
    replaced: list[dict[str, Any]] = json.loads(_RUN_ID.sub("<id>", json.dumps(messages, ensure_ascii=False)))
    return replaced


def messages_sha256(messages: list[dict[str, Any]]) -> str:
    """A stable hash of chat messages (key order, whitespace and twnb's run ids do not matter)."""
    canonical = json.dumps(
        without_run_ids(messages), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass
class CassetteEntry:
    """One recorded call: the request as sent (redacted) and what came back."""

    index: int
    role: str
    model: str
    messages_sha256: str
    messages: list[dict[str, Any]]
    response_format: dict[str, Any] | None = None
    content: str = ""
    reasoning: str = ""
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    error: dict[str, str] | None = None
    recorded_at: str = field(default_factory=now_iso)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "role": self.role,
            "model": self.model,
            "recorded_at": self.recorded_at,
            "messages_sha256": self.messages_sha256,
            "response_format": self.response_format,
            "reply": {
                "content": self.content,
                "reasoning": self.reasoning,
                "finish_reason": self.finish_reason,
                "usage": self.usage,
            },
            "error": self.error,
            "messages": self.messages,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CassetteEntry:
        reply = data.get("reply") or {}
        return cls(
            index=int(data["index"]),
            role=str(data.get("role") or ""),
            model=str(data.get("model") or ""),
            messages_sha256=str(data.get("messages_sha256") or ""),
            messages=list(data.get("messages") or []),
            response_format=data.get("response_format"),
            content=str(reply.get("content") or ""),
            reasoning=str(reply.get("reasoning") or ""),
            finish_reason=reply.get("finish_reason"),
            usage=reply.get("usage"),
            error=data.get("error"),
            recorded_at=str(data.get("recorded_at") or ""),
        )


def load_cassette(path: str | Path) -> list[CassetteEntry]:
    """The entries of a cassette file, in recording order."""

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CassetteError(
            f"No cassette at {path}. Record one first (a session started with recording on), "
            "or point the replay at the .cassette.yaml saved beside the conversation."
        ) from None
    try:
        # The same reader as conversations: no aliases, bounded depth, escaped lone surrogates.
        documents = [d for d in load_yaml_documents(text, source=str(path)) if d is not None]
    except ValueError as exc:
        raise CassetteError(f"not a readable cassette: {exc}") from None
    if not documents or not isinstance(documents[0], dict) or "twnb_cassette" not in documents[0]:
        raise CassetteError(f"{path} is not a twnb cassette (its first document has no 'twnb_cassette').")
    version = documents[0]["twnb_cassette"]
    if not isinstance(version, int) or version > CASSETTE_VERSION:
        raise CassetteError(
            f"{path} is cassette version {version}; this twnb reads up to {CASSETTE_VERSION}. Upgrade twnb."
        )
    entries = []
    for number, doc in enumerate(documents[1:], start=1):
        if not isinstance(doc, dict) or "index" not in doc:
            raise CassetteError(f"{path}: document {number + 1} is not a recorded call.")
        entries.append(CassetteEntry.from_dict(doc))
    # Calls are numbered when they start and written when they end: one dropped unread may be written
    # after a later call, so the recording order is the numbering, not the file order.
    entries.sort(key=lambda entry: entry.index)
    return entries


class RecordingClient:
    """A ChatClient that passes every call to ``inner`` and appends it, redacted, to a cassette.

    Every call started is written, however it ends: whole, failed, interrupted by Ctrl-C
    (``KeyboardInterrupt``, at the request or while the stream is read), or closed by its caller before
    the end (``close()``, or the stream dropped unread). A replay then serves the same sequence of calls
    and fails where the recording failed.
    """

    def __init__(self, inner: ChatClient, path: str | Path, *, redactor: Redactor | None = None) -> None:
        self.inner = inner
        self.path = Path(path)
        self.redactor = redactor if redactor is not None else Redactor()
        self._index_lock = threading.Lock()
        self._file_lock = threading.Lock()
        self._pending: deque[CassetteEntry] = deque()
        # Appending to an existing cassette continues it (a resumed session), numbering on.
        self._next_index = len(load_cassette(self.path)) if self.path.exists() else 0

    def stream(
        self,
        messages: list[dict[str, Any]],
        *,
        model: str,
        role: str = "",
        response_format: dict[str, Any] | None = None,
    ) -> _RecordingStream:
        entry = self._new_entry(messages, model, role, response_format)
        try:
            inner = self.inner.stream(messages, model=model, role=role, response_format=response_format)
        except BaseException as exc:  # Ctrl-C while the request is made is recorded too
            self._record_error(entry, exc)
            raise
        return _RecordingStream(_Call(self, inner, entry))

    def _new_entry(
        self, messages: list[dict[str, Any]], model: str, role: str, response_format: dict[str, Any] | None
    ) -> CassetteEntry:
        redacted = self.redactor.redact_data(messages)
        with self._index_lock:
            index = self._next_index
            self._next_index += 1
        return CassetteEntry(
            index=index,
            role=role,
            model=model,
            messages_sha256=messages_sha256(redacted),
            messages=redacted,
            response_format=self.redactor.redact_data(response_format),
        )

    def _record_error(
        self,
        entry: CassetteEntry,
        exc: BaseException,
        partial: str = "",
        *,
        at: str = "request",
        reasoning: str = "",
    ) -> None:
        entry.content = self.redactor.redact(partial or getattr(exc, "partial_text", "") or "")
        entry.reasoning = self.redactor.redact(reasoning or getattr(exc, "partial_reasoning", "") or "")
        message = str(exc)
        if isinstance(exc, KeyboardInterrupt):
            message = f"interrupted (Ctrl-C) after {len(entry.content)} characters"
        entry.error = {"type": type(exc).__name__, "at": at, "message": self.redactor.redact(message)}
        if getattr(exc, "param", None):
            # A refused parameter (response_format, say) must replay as refused for the fallback to act.
            entry.error["param"] = str(exc.param)  # type: ignore[attr-defined]
        self._write(entry)

    def _write(self, entry: CassetteEntry, *, wait: bool = True) -> None:
        """Append ``entry``; with ``wait=False`` (a garbage-collected stream) never block: whoever holds
        the file writes it, so a collection in the middle of a write cannot deadlock or interleave."""
        self._pending.append(entry)
        while self._pending:
            if not self._file_lock.acquire(blocking=wait):
                return  # the holder writes what is pending before it lets go
            try:
                while self._pending:
                    self._append(self._pending.popleft())
            finally:
                self._file_lock.release()

    def _append(self, entry: CassetteEntry) -> None:
        new = not self.path.exists() or self.path.stat().st_size == 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # dump_yaml: the one YAML writer (lone surrogates, U+2028 and the like)
        with self.path.open("a", encoding="utf-8") as f:
            if new:
                f.write(dump_yaml({"twnb_cassette": CASSETTE_VERSION}))
            f.write("---\n")
            f.write(dump_yaml(entry.to_dict()))


class _Call:
    """One recorded call in flight: what has arrived, written once when it ends however it ends.

    Kept apart from :class:`_RecordingStream` so a finalizer can write a stream dropped unread without
    holding the stream itself alive.
    """

    def __init__(self, owner: RecordingClient, inner: ReplyStream, entry: CassetteEntry) -> None:
        self.owner = owner
        self.inner = inner
        self.entry = entry
        self.pieces: list[str] = []
        self.done = False

    def finished(self) -> None:
        if self.done:
            return
        self.done = True
        entry = self._received()
        entry.finish_reason = self.inner.finish_reason
        usage = self.inner.usage
        entry.usage = usage.to_dict() if usage is not None else None
        self.owner._write(entry)

    def failed(self, exc: BaseException) -> None:
        if self.done:
            return
        self.done = True
        self.owner._record_error(
            self.entry, exc, "".join(self.pieces), at="stream", reasoning=self._reasoning()
        )

    def closed(self, *, wait: bool = True) -> None:
        """The caller stopped reading before the end (``close()``, or the stream was dropped)."""
        if self.done:
            return
        self.done = True
        entry = self._received()
        entry.error = {
            "type": STREAM_CLOSED,
            "at": "stream",
            "message": f"closed by the caller after {len(entry.content)} characters, before the reply ended",
        }
        self.owner._write(entry, wait=wait)

    def dropped(self) -> None:
        self.closed(wait=False)

    def _received(self) -> CassetteEntry:
        """The entry with what arrived so far (content and reasoning), redacted."""
        redact = self.owner.redactor.redact
        self.entry.content = redact("".join(self.pieces))
        self.entry.reasoning = redact(self._reasoning())
        return self.entry

    def _reasoning(self) -> str:
        try:
            return self.inner.reasoning or ""
        except Exception:  # a broken inner stream must not cost the recording
            return ""


class _RecordingStream(StreamProxy):
    """The inner stream, passed through; the call is written when it ends, fails or is cut short."""

    def __init__(self, call: _Call) -> None:
        self._call = call
        self._current = call.inner
        self._iter = iter(call.inner)
        # A caller that stops reading without close() (an exception in the translator, a dropped
        # reference) still gets its call written, when the stream is collected.
        weakref.finalize(self, call.dropped)

    def __next__(self) -> str:
        call = self._call
        if call.done:
            raise StopIteration
        try:
            piece = next(self._iter)
        except StopIteration:
            call.finished()
            raise
        except BaseException as exc:  # an LLM error, or Ctrl-C while the reply streams in
            call.failed(exc)
            raise
        call.pieces.append(piece)
        return piece

    def close(self) -> None:
        self._call.closed()
        super().close()


class ReplayClient:
    """A ChatClient that serves a cassette's replies per role, in order, without any network."""

    def __init__(
        self,
        path: str | Path,
        *,
        chunk_size: int = 32,
        redactor: Redactor | None = None,
        warn_on_drift: bool = True,
    ) -> None:
        if chunk_size < 1:
            raise ValueError("chunk_size must be at least 1 character.")
        self.path = Path(path)
        self.entries = load_cassette(self.path)
        self.chunk_size = chunk_size
        self.redactor = redactor if redactor is not None else Redactor()
        self.warn_on_drift = warn_on_drift
        self._drift: list[str] = []
        self._lock = threading.Lock()
        self.rewind()

    def rewind(
        self, unlike_the_recording: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None
    ) -> None:
        """Serve the recorded replies again from the first (a new conversation replays the cassette).
        `unlike_the_recording`: what this pass is known to send differently, left out of both sides
        before a request is compared with the recording (the session's: the kernel's variables, which
        an earlier pass in the same kernel made and the recording's fresh kernel did not have)."""
        with self._lock:
            self._unlike = unlike_the_recording
            self._queues: dict[str, deque[CassetteEntry]] = {}
            for entry in self.entries:
                self._queues.setdefault(entry.role, deque()).append(entry)
            self._calls = 0

    def remaining(self) -> dict[str, int]:
        """Replies not yet served, per role."""
        return {role: len(q) for role, q in self._queues.items() if q}

    @property
    def used_up(self) -> bool:
        """Every recorded reply has been served."""
        return bool(self.entries) and not self.remaining()

    def take_drift(self) -> list[str]:
        """The drift lines since the last take (one per call whose request differed from the recording)."""
        with self._lock:
            taken, self._drift = self._drift, []
        return taken

    def stream(
        self,
        messages: list[dict[str, Any]],
        *,
        model: str,
        role: str = "",
        response_format: dict[str, Any] | None = None,
    ) -> ChatStream:
        with self._lock:
            call = self._calls
            self._calls += 1
            queue = self._queues.get(role)
            if not queue:
                recorded = sum(1 for e in self.entries if e.role == role)
                raise CassetteExhausted(
                    f"The cassette {self.path} has no more replies for role {role or '(none)'!r}: it "
                    f"recorded {recorded}, and this is call {call + 1} of the replay. The session "
                    "now asks more than was recorded; record it again against a live model.",
                    model=model,
                )
            entry = queue.popleft()
        self._check_drift(call, role, messages, entry)
        if entry.error is not None and entry.error.get("at", "request") == "request":
            raise _recorded_error(entry)  # it failed before any stream, e.g. HTTP 401 or Ctrl-C

        ctx = ErrorContext(url=f"cassette {self.path}", model=entry.model or model, role=role)
        return ChatStream(_replay_chunks(entry, self.chunk_size), ctx, prompt_text=messages_text(messages))

    def _check_drift(
        self, call: int, role: str, messages: list[dict[str, Any]], entry: CassetteEntry
    ) -> None:
        at_this_point = self.entries[call] if call < len(self.entries) else None
        if at_this_point is not None and at_this_point.role != role:
            self._drifted(
                f"Replay call {call + 1}: the cassette recorded a {at_this_point.role or '(none)'} call "
                f"here, but {role or '(none)'} asked; serving {role or '(none)'}'s next recorded reply "
                f"(recorded call {entry.index + 1})."
            )
        redacted = self.redactor.redact_data(messages)
        if messages_sha256(redacted) != entry.messages_sha256 and not self._alike(redacted, entry):
            self._drifted(
                f"Replay call {call + 1} ({role or 'no role'}) drifted from recorded call "
                f"{entry.index + 1}: "
                f"{_first_difference(without_run_ids(entry.messages), without_run_ids(redacted))}. "
                "Serving the recorded "
                "reply anyway."
            )

    def _alike(self, messages: list[dict[str, Any]], entry: CassetteEntry) -> bool:
        """The request matches the recording once what this pass is known to send differently is left
        out of both."""
        unlike = self._unlike
        if unlike is None:
            return False
        return messages_sha256(unlike(messages)) == messages_sha256(unlike(entry.messages))

    def _drifted(self, message: str) -> None:
        if self.warn_on_drift:
            _warn(message)
            return
        with self._lock:
            self._drift.append(message)


def _replay_chunks(entry: CassetteEntry, chunk_size: int) -> Iterator[dict[str, Any]]:
    """The recorded reply as the chunks a server would stream (dicts: ChatStream reads those too)."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"model": entry.model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    # A live server sends the thinking before the answer.
    for i in range(0, len(entry.reasoning), chunk_size):
        yield chunk({"reasoning_content": entry.reasoning[i : i + chunk_size]})
    for i in range(0, len(entry.content), chunk_size):
        yield chunk({"content": entry.content[i : i + chunk_size]})
    if entry.error is not None:
        if entry.error.get("type") == "LLMStreamDropped":
            return  # ends without a finish reason: ChatStream raises LLMStreamDropped, as it did live
        if entry.error.get("type") == STREAM_CLOSED:
            # Live, the caller stopped here; a replay that reads on has drifted from the recording.
            raise CassetteExhausted(
                f"Recorded call {entry.index + 1} ({entry.role or 'no role'}) was closed by its caller "
                f"after {len(entry.content)} characters; this replay reads past that point, so it no "
                "longer follows the recording. Record the session again.",
                model=entry.model,
            )
        raise _recorded_error(entry)
    yield chunk({}, entry.finish_reason or "stop")
    usage = entry.usage or {}
    if usage and not usage.get("estimated"):
        yield {
            "model": entry.model,
            "choices": [],
            "usage": {
                "prompt_tokens": usage.get("prompt_tokens", 0),
                "completion_tokens": usage.get("completion_tokens", 0),
                "prompt_tokens_details": {"cached_tokens": usage.get("cached_tokens", 0)},
            },
        }


def _recorded_error(entry: CassetteEntry) -> BaseException:
    """The recorded failure, raised again as the same LLMError class (``(replayed)`` in its text); a
    recorded Ctrl-C is raised again as ``KeyboardInterrupt``, so the replayed Round stops as it did."""
    error = entry.error or {}
    message = f"(replayed) {error.get('message', 'recorded failure')}"
    if error.get("type") == "KeyboardInterrupt":
        return KeyboardInterrupt(message)
    cls = getattr(llm_errors, str(error.get("type")), None)
    if not (isinstance(cls, type) and issubclass(cls, LLMError)):
        return LLMError(message, model=entry.model)
    if issubclass(cls, llm_errors.LLMStreamDropped):
        return cls(message, partial_text=entry.content, partial_reasoning=entry.reasoning, model=entry.model)
    if issubclass(cls, llm_errors.LLMBadRequestError):
        return cls(message, param=error.get("param"), model=entry.model)
    return cls(message, model=entry.model)


def _warn(message: str) -> None:
    warnings.warn(CassetteDriftWarning(message), stacklevel=5)


def _first_difference(recorded: list[dict[str, Any]], now: list[dict[str, Any]]) -> str:
    """Names the first message that differs, with a short excerpt of both sides."""
    for i in range(max(len(recorded), len(now))):
        if i >= len(recorded):
            return f"message {i + 1} ({now[i].get('role', '?')}) is new (recorded {len(recorded)} messages)"
        if i >= len(now):
            return f"message {i + 1} ({recorded[i].get('role', '?')}) is missing (now {len(now)} messages)"
        if recorded[i] != now[i]:
            role = now[i].get("role", "?")
            if recorded[i].get("role") != role:
                return f"message {i + 1} was {recorded[i].get('role')!r}, now {role!r}"
            old, new = _text_of(recorded[i]), _text_of(now[i])
            at = next(
                (k for k, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new))
            )
            start = max(0, at - 20)
            return (
                f"message {i + 1} ({role}) differs at character {at}: "
                f"recorded {old[start : start + _EXCERPT]!r}, now {new[start : start + _EXCERPT]!r}"
            )
    return "the messages differ"


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else json.dumps(content, sort_keys=True, ensure_ascii=False)
