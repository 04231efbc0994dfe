"""The TracerProvider twnb's spans go to, set up as OpenTelemetry users expect.

- `on`: the process's own provider when it has one (`opentelemetry-instrument`, or the user's setup),
  untouched; else one built from the standard variables: `OTEL_TRACES_EXPORTER` (`otlp`, the default,
  `console` or `none`), `OTEL_EXPORTER_OTLP_ENDPOINT` / `..._TRACES_ENDPOINT`, `..._HEADERS`,
  `..._TIMEOUT`, `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` (service name `twnb` when
  neither names one).
- `console`: spans printed as each ends.
- `otlp`: OTLP over HTTP (protobuf) to the URL given, else to the variables' endpoint.

Export is batched on a background thread, so an endpoint that is slow or down never holds up a Round;
when it fails, one warning says so (the exporter's own per-batch messages are held back) until it
answers again.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Sequence
from urllib.parse import urlparse

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)

from twnb._version import __version__
from twnb.base import get_logger

__all__ = ["TRACER_NAME", "OneWarningExporter", "otlp_traces_url", "tracer_for"]

TRACER_NAME = "twnb"
_log = get_logger(__name__)
# The loggers OTLP/HTTP export failures are reported on, once per batch and retry.
_EXPORTER_LOGGERS = (
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    "opentelemetry.exporter.otlp.common.http",
    "opentelemetry.sdk.trace.export",
)


def tracer_for(mode: str, endpoint: str | None = None) -> tuple[trace.Tracer, TracerProvider | None, str]:
    """(tracer, the provider twnb built or None, a sentence saying where spans go)."""
    if mode == "on":
        current = trace.get_tracer_provider()
        if not isinstance(current, trace.ProxyTracerProvider):
            where = f"this process's {type(current).__name__}"
            return current.get_tracer(TRACER_NAME, __version__), None, f"Tracing is on: spans go to {where}."
        exporters = [e.strip().lower() for e in os.environ.get("OTEL_TRACES_EXPORTER", "otlp").split(",")]
        provider = _provider()
        described = []
        if "otlp" in exporters:
            provider.add_span_processor(BatchSpanProcessor(OneWarningExporter(_otlp_exporter(None))))
            described.append(f"OTLP/HTTP at {otlp_traces_url(None)}")
        if "console" in exporters:
            provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stdout)))
            described.append("the console")
        where = " and ".join(described) or "nowhere (OTEL_TRACES_EXPORTER=none)"
        return provider.get_tracer(TRACER_NAME, __version__), provider, f"Tracing is on: spans go to {where}."
    provider = _provider()
    if mode == "console":
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stdout)))
        where = "the console"
    else:
        url = otlp_traces_url(endpoint)
        provider.add_span_processor(BatchSpanProcessor(OneWarningExporter(_otlp_exporter(url))))
        where = f"OTLP/HTTP at {url}"
    return provider.get_tracer(TRACER_NAME, __version__), provider, f"Tracing is on: spans go to {where}."


def otlp_traces_url(endpoint: str | None) -> str:
    """The URL spans are posted to: a base URL gets OTLP's `/v1/traces`, as the variable does."""
    if endpoint is None:
        specific = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        if specific:
            return specific
        endpoint = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318")
    if urlparse(endpoint).path in ("", "/"):
        return endpoint.rstrip("/") + "/v1/traces"
    return endpoint


def _otlp_exporter(url: str | None) -> SpanExporter:
    # lazy: opentelemetry's OTLP exporter (~40 ms, 120 modules) for `trace otlp` only
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter(endpoint=url) if url is not None else OTLPSpanExporter()


def _provider() -> TracerProvider:
    resource = Resource.create()
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": "twnb"}))
    return TracerProvider(resource=resource)


class _HeldBack(logging.Filter):
    """Drops the exporter's own records while `OneWarningExporter` exports on this thread."""

    def __init__(self) -> None:
        super().__init__()
        self.local = threading.local()

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(self.local, "exporting", False)


_HELD_BACK = _HeldBack()


class OneWarningExporter(SpanExporter):
    """Wraps an exporter: the first failed export logs one warning, later ones nothing, until an
    export succeeds again (logged at info level)."""

    def __init__(self, inner: SpanExporter) -> None:
        self.inner = inner
        self.failing = False
        self.warnings = 0
        for name in _EXPORTER_LOGGERS:
            logger = logging.getLogger(name)
            if _HELD_BACK not in logger.filters:
                logger.addFilter(_HELD_BACK)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        _HELD_BACK.local.exporting = True
        try:
            result = self.inner.export(spans)
        except Exception as error:  # an exporter that raises is a failed export, not a broken thread
            result, reason = SpanExportResult.FAILURE, f"{type(error).__name__}: {error}"
        else:
            reason = "the endpoint did not accept them"
        finally:
            _HELD_BACK.local.exporting = False
        if result is SpanExportResult.FAILURE and not self.failing:
            self.failing = True
            self.warnings += 1
            _log.warning(
                "twnb could not send traces (%s: %s); Rounds go on, and spans are dropped until it "
                "answers. Check OTEL_EXPORTER_OTLP_ENDPOINT, or %%taskweaver trace off.",
                getattr(self.inner, "_endpoint", "the exporter"),
                reason,
            )
        elif result is SpanExportResult.SUCCESS and self.failing:
            self.failing = False
            _log.info("twnb sends traces again (%s).", getattr(self.inner, "_endpoint", "the exporter"))
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)
