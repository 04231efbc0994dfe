"""telemetry layer: OpenTelemetry tracing of Rounds with the GenAI semantic conventions
(docs/architecture.md, "Layers").

Nothing here imports OpenTelemetry until tracing is switched on (`switch.configure`, the `trace`
setting or `%taskweaver trace`): with tracing off a Round costs one function call more, and
`%load_ext twnb` never loads it. Install the extra: ``pip install 'twnb[otel]'``.

- `switch.py`: the process's tracing state (off, or a Tracer) and its setup from the mode.
- `provider.py`: the TracerProvider: the process's own when it has one, else built from the standard
  `OTEL_*` variables, with batched export and one warning for an endpoint that does not answer.
- `round_spans.py`: the observer that turns one Round's events into spans.
"""
