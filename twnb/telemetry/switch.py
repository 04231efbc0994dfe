"""Whether this process traces Rounds, and with which Tracer.

Tracing is process-wide, as OpenTelemetry's own providers are: the `trace` setting turns it on when a
session is built, `%taskweaver trace ...` at any time. Off, no OpenTelemetry module is imported.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from twnb.memory import Observer

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Tracer

    from twnb.memory import Memory, Round
    from twnb.telemetry.round_spans import PlanHooks


class Redacts(Protocol):
    def redact(self, text: str) -> str: ...


class TracedSession(Protocol):
    """What a Round's tracer reads of the session (twnb.session.Session, a layer above this one)."""

    @property
    def memory(self) -> Memory: ...

    @property
    def session_id(self) -> str: ...

    @property
    def redactor(self) -> Redacts | None: ...

    @property
    def plans(self) -> PlanHooks: ...


__all__ = [
    "CAPTURE_VARIABLE",
    "TRACE_MODES",
    "TracingState",
    "apply_trace_setting",
    "configure_tracing",
    "content_capture",
    "round_tracer",
    "tracing",
]

TRACE_MODES = ("off", "on", "console", "otlp")
CAPTURE_VARIABLE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
# The switch's values in OpenTelemetry's GenAI instrumentations: true/false, and the newer names that
# say where content goes (spans are where twnb records it).
_CAPTURE_ON = {"true", "1", "yes", "on", "span_only", "span_and_event"}

INSTALL_HINT = "Tracing needs the otel extra: pip install 'twnb[otel]' (then restart the kernel)."


@dataclass
class TracingState:
    mode: str = "off"
    endpoint: str | None = None
    tracer: Tracer | None = None  # while on
    provider: TracerProvider | None = None  # the one twnb built (None when it uses the process's own)
    from_setting: str | None = None  # the `trace` setting last applied


tracing = TracingState()


def configure_tracing(mode: str, endpoint: str | None = None) -> str:
    """Switch tracing to `mode` (off, on, console, otlp; `endpoint` for otlp) and say what it does now.

    Raises ValueError for an unknown mode and ImportError (with what to install) without the extra."""
    mode = mode.strip().lower()
    if mode not in TRACE_MODES:
        raise ValueError(
            f"Unknown trace mode {mode!r}: use one of {', '.join(TRACE_MODES)} (otlp takes a URL)."
        )
    if mode == "off":
        _shutdown_own()
        tracing.mode, tracing.endpoint, tracing.tracer = "off", None, None
        return "Tracing is off."
    try:
        from twnb.telemetry.provider import tracer_for  # lazy: opentelemetry (~35 ms), optional
    except ImportError as error:  # opentelemetry is not installed
        raise ImportError(INSTALL_HINT) from error
    _shutdown_own()
    tracer, provider, described = tracer_for(mode, endpoint)
    tracing.mode, tracing.endpoint, tracing.tracer, tracing.provider = mode, endpoint, tracer, provider
    return described


def apply_trace_setting(mode: str | None) -> None:
    """Follow the `trace` setting when it changes (so `%taskweaver trace` is not undone by every
    session the notebook builds with the same settings)."""
    mode = (mode or "off").lower()
    previous, tracing.from_setting = tracing.from_setting or "off", mode
    if mode != previous and mode != tracing.mode:
        configure_tracing(mode)


def content_capture() -> bool:
    """The GenAI conventions' opt-in for recording messages and code on spans (off by default)."""
    return os.environ.get(CAPTURE_VARIABLE, "").strip().lower() in _CAPTURE_ON


def round_tracer(
    session: TracedSession, round: Round, *, provider: str, models: dict[str, str]
) -> Observer | None:
    """The observer that traces `round`, or None while tracing is off (nothing is imported then)."""
    if tracing.tracer is None:
        return None
    from twnb.telemetry.round_spans import RoundSpans  # lazy: opentelemetry (~25 ms) while tracing

    spans = RoundSpans(
        tracing.tracer,
        conversation_id=session.memory.conversation.id,
        session_id=session.session_id,
        provider=provider,
        models=models,
        redact=session.redactor.redact if session.redactor is not None else None,
        capture_content=content_capture(),
    )
    spans.follow(session.plans)  # the plan's changes become events on the Round's span
    return spans


def _shutdown_own() -> None:
    """Flush and stop the provider twnb built (never the process's own), on a thread of its own: a
    last export to an endpoint that does not answer must not hold up the notebook."""
    provider, tracing.provider = tracing.provider, None
    if provider is not None:
        threading.Thread(target=provider.shutdown, name="twnb-trace-shutdown", daemon=True).start()
