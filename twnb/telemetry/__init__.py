"""telemetry layer: OpenTelemetry tracing of Rounds with the GenAI semantic conventions
(docs/architecture.md, "Layers").

Nothing here imports OpenTelemetry until tracing is switched on (`configure_tracing`, the `trace`
setting or `%taskweaver trace`): with tracing off a Round costs one function call more, and
`%load_ext twnb` never loads this layer. Install the extra: ``pip install 'twnb[otel]'``.

- `tracing`: the process's tracing state (off, or a Tracer); `configure_tracing(mode, endpoint)`
  switches it, `apply_trace_setting(mode)` follows the `trace` setting (switch.py).
- `round_tracer(session, round, ...)`: the observer that turns one Round's events into spans, or None
  while tracing is off (round_spans.py); `content_capture()` says whether message contents are
  recorded (`CAPTURE_VARIABLE`).
- provider.py: the TracerProvider: the process's own when it has one, else built from the standard
  `OTEL_*` variables, with batched export and one warning for an endpoint that does not answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_exports

if TYPE_CHECKING:
    from twnb.telemetry.switch import (
        CAPTURE_VARIABLE,
        TRACE_MODES,
        TracingState,
        apply_trace_setting,
        configure_tracing,
        content_capture,
        round_tracer,
        tracing,
    )

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

if not TYPE_CHECKING:  # the type checker reads the imports above, and a name not there is an error
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "CAPTURE_VARIABLE": "switch",
            "TRACE_MODES": "switch",
            "TracingState": "switch",
            "apply_trace_setting": "switch",
            "configure_tracing": "switch",
            "content_capture": "switch",
            "round_tracer": "switch",
            "tracing": "switch",
        },
    )
