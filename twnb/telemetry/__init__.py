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

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.telemetry.switch import CAPTURE_VARIABLE as CAPTURE_VARIABLE
    from twnb.telemetry.switch import TRACE_MODES as TRACE_MODES
    from twnb.telemetry.switch import TracingState as TracingState
    from twnb.telemetry.switch import apply_trace_setting as apply_trace_setting
    from twnb.telemetry.switch import configure_tracing as configure_tracing
    from twnb.telemetry.switch import content_capture as content_capture
    from twnb.telemetry.switch import round_tracer as round_tracer
    from twnb.telemetry.switch import tracing as tracing
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
