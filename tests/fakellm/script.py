"""The fake LLM's script: scripted replies per role, served in order, with faults.

A script is a dict (or a JSON file holding one) mapping a role name to a list of replies:

    {"Planner": [reply, ...], "CodeInterpreter": [reply, ...], "*": [reply, ...]}

A reply is a string (the content) or an object; see tests/fakellm/README.md for every field.

Which role a request is for is told from its system prompt: among the script's keys (other than "*")
that occur in the system message text, the one occurring **earliest** wins (the longest on a tie), so
"You are the CodeInterpreter ... report to the Planner" is the CodeInterpreter. A request with no
system message, or whose system text names no key, or whose role has no replies left, is served from
"*". Nothing left at all is answered with a 400 whose message says which role ran dry.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HTTP_FAULTS = ("http_401", "http_404", "http_429", "http_500")
WILDCARD = "*"

_REPLY_KEYS = {
    "content",
    "reasoning",
    "chunk_size",
    "delay_s",
    "usage",
    "cached_tokens",
    "finish_reason",
    "fault",
    "times",
    "drop_after_chars",
    "drop_mode",
    "malformed_sse",
    "slow_first_token_s",
    "delay_headers_s",
    "reject_response_format",
    "reject_response_format_status",
    "retry_after_ms",
    "stall_after_chars",
    "stall_s",
    "stall_with",
    "stall_every_s",
    "error_event",
    "empty_200",
}
STALL_KINDS = ("nothing", "empty_deltas", "keepalive")


@dataclass
class Reply:
    """One scripted reply; `faults_left` counts down the requests that still get the fault."""

    content: str = ""
    reasoning: str = ""
    chunk_size: int = 4
    delay_s: float = 0.0
    # None: computed from the text; "omit": no usage at all (not even with include_usage).
    usage: dict[str, Any] | str | None = None
    cached_tokens: int | None = None
    finish_reason: str = "stop"
    fault: str | None = None
    drop_after_chars: int | None = None
    drop_mode: str = "clean"
    malformed_sse: bool = False
    slow_first_token_s: float = 0.0
    delay_headers_s: float = 0.0
    # The response_format types refused with a 400 ("*": any type); empty: none refused.
    reject_response_format: frozenset[str] = frozenset()
    reject_response_format_status: int = 400
    retry_after_ms: int = 10
    # A pause of `stall_s` after `stall_after_chars` content characters (0: before any), filled with
    # `stall_with`: nothing, empty deltas or SSE keep-alive comments, one every `stall_every_s`.
    stall_after_chars: int | None = None
    stall_s: float = 0.0
    stall_with: str = "nothing"
    stall_every_s: float = 0.05
    error_event: str | None = None  # an error event after the first content chunk (a fault)
    empty_200: bool = False  # HTTP 200, then no event at all (a fault)
    faults_left: int = 0

    @classmethod
    def from_spec(cls, spec: Any, where: str) -> Reply:
        if isinstance(spec, str):
            return cls(content=spec)
        if not isinstance(spec, dict):
            raise ValueError(f"{where}: a reply is a string or an object, got {type(spec).__name__}")
        unknown = set(spec) - _REPLY_KEYS
        if unknown:
            raise ValueError(f"{where}: unknown reply keys {sorted(unknown)}; known: {sorted(_REPLY_KEYS)}")
        fault = spec.get("fault")
        if fault is not None and fault not in HTTP_FAULTS:
            raise ValueError(f"{where}: fault must be one of {list(HTTP_FAULTS)}, got {fault!r}")
        drop_mode = spec.get("drop_mode", "clean")
        if drop_mode not in ("clean", "abort"):
            raise ValueError(f"{where}: drop_mode must be 'clean' or 'abort', got {drop_mode!r}")
        usage = spec.get("usage") if "usage" in spec else None
        if "usage" in spec and spec["usage"] is None:
            usage = "omit"
        chunk_size = int(spec.get("chunk_size", 4))
        if chunk_size < 1:
            raise ValueError(f"{where}: chunk_size must be at least 1, got {chunk_size}")
        stall_with = spec.get("stall_with", "nothing")
        if stall_with not in STALL_KINDS:
            raise ValueError(f"{where}: stall_with must be one of {list(STALL_KINDS)}, got {stall_with!r}")
        status = int(spec.get("reject_response_format_status", 400))
        if status not in (400, 422, 500):
            raise ValueError(f"{where}: reject_response_format_status must be 400, 422 or 500, got {status}")
        faulty = (
            fault is not None
            or spec.get("drop_after_chars") is not None
            or spec.get("malformed_sse")
            or spec.get("error_event") is not None
            or spec.get("empty_200")
        )
        return cls(
            content=str(spec.get("content", "")),
            reasoning=str(spec.get("reasoning", "")),
            chunk_size=chunk_size,
            delay_s=float(spec.get("delay_s", 0.0)),
            usage=usage,
            cached_tokens=spec.get("cached_tokens"),
            finish_reason=str(spec.get("finish_reason", "stop")),
            fault=fault,
            drop_after_chars=spec.get("drop_after_chars"),
            drop_mode=drop_mode,
            malformed_sse=bool(spec.get("malformed_sse", False)),
            slow_first_token_s=float(spec.get("slow_first_token_s", 0.0)),
            delay_headers_s=float(spec.get("delay_headers_s", 0.0)),
            reject_response_format=_rejected_formats(spec.get("reject_response_format", False), where),
            reject_response_format_status=status,
            retry_after_ms=int(spec.get("retry_after_ms", 10)),
            stall_after_chars=spec.get("stall_after_chars"),
            stall_s=float(spec.get("stall_s", 0.0)),
            stall_with=stall_with,
            stall_every_s=float(spec.get("stall_every_s", 0.05)),
            error_event=spec.get("error_event"),
            empty_200=bool(spec.get("empty_200", False)),
            faults_left=int(spec.get("times", 1)) if faulty else 0,
        )

    def rejects(self, response_format_type: str | None) -> bool:
        """True when a request with this response_format type (None: no response_format) gets a 400."""
        if response_format_type is None:
            return False
        return "*" in self.reject_response_format or response_format_type in self.reject_response_format


def _rejected_formats(value: Any, where: str) -> frozenset[str]:
    """`reject_response_format` as given (true/false, or a list of types) -> the types refused."""
    if isinstance(value, bool):
        return frozenset({"*"}) if value else frozenset()
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        return frozenset(value)
    raise ValueError(
        f"{where}: reject_response_format is true, false or a list of response_format types "
        f'(e.g. ["json_schema"]), got {value!r}'
    )


@dataclass
class Served:
    """What one request gets: the reply, the role it was served as, and the fault to apply (if any)."""

    role: str
    reply: Reply | None
    # an HTTP fault, "drop", "malformed_sse", "error_event", "empty_200", "reject_response_format",
    # "exhausted", or None
    fault: str | None = None
    note: str = ""


@dataclass
class Script:
    """Per-role reply queues. Thread-safe: the server answers requests on several threads."""

    queues: dict[str, list[Reply]] = field(default_factory=dict)
    served: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def from_spec(cls, spec: dict[str, Any] | str | Path | None) -> Script:
        if spec is None:
            return cls()
        if isinstance(spec, (str, Path)):
            path = Path(spec)
            try:
                spec = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as err:
                raise ValueError(f"fake LLM script {path}: cannot read it as JSON: {err}") from err
        if not isinstance(spec, dict):
            kind = type(spec).__name__
            raise ValueError(f"a fake LLM script is an object of role -> replies, got {kind}")
        queues: dict[str, list[Reply]] = {}
        for role, replies in spec.items():
            if not isinstance(replies, list):
                raise ValueError(f"script[{role!r}] must be a list of replies, got {type(replies).__name__}")
            queues[str(role)] = [Reply.from_spec(r, f"script[{role!r}][{i}]") for i, r in enumerate(replies)]
        return cls(queues=queues)

    def role_for(self, system_text: str) -> str:
        """The script key named earliest in the system prompt (longest on a tie), else "*"."""
        best: tuple[int, int, str] | None = None
        for key in self.queues:
            if key == WILDCARD:
                continue
            pos = system_text.find(key)
            if pos >= 0 and (best is None or (pos, -len(key)) < (best[0], best[1])):
                best = (pos, -len(key), key)
        return best[2] if best else WILDCARD

    def next_for(self, system_text: str, *, response_format_type: str | None) -> Served:
        """Choose the reply for one request and advance the queue unless the reply must be served again."""
        with self._lock:
            role = self.role_for(system_text)
            queue = self.queues.get(role) or []
            if not queue and role != WILDCARD:
                role, queue = WILDCARD, self.queues.get(WILDCARD) or []
            if not queue:
                named = self.role_for(system_text)
                return Served(
                    role=named,
                    reply=None,
                    fault="exhausted",
                    note=f"fake LLM: no scripted reply left for role {named!r} "
                    f"({self.served.get(named, 0)} served; keys: {sorted(self.queues)})",
                )
            reply = queue[0]
            # A rejected response_format or a fault leaves the reply at the head: the retry gets it.
            if reply.rejects(response_format_type):
                return Served(role=role, reply=reply, fault="reject_response_format")
            if reply.faults_left > 0:
                reply.faults_left -= 1
                if reply.fault:
                    fault = reply.fault
                elif reply.drop_after_chars is not None:
                    fault = "drop"
                elif reply.error_event is not None:
                    fault = "error_event"
                elif reply.empty_200:
                    fault = "empty_200"
                else:
                    fault = "malformed_sse"
                return Served(role=role, reply=reply, fault=fault)
            queue.pop(0)
            self.served[role] = self.served.get(role, 0) + 1
            return Served(role=role, reply=reply)

    def remaining(self) -> dict[str, int]:
        with self._lock:
            return {role: len(queue) for role, queue in self.queues.items()}
