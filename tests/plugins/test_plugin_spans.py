"""A plugin call is an `execute_tool {plugin}` span inside the code run's `execute_tool python` span,
at the times it was recorded (OpenTelemetry's in-memory exporter)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from plugin_scripts import one_step

pytest.importorskip("opentelemetry.sdk")
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from twnb.telemetry import switch


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    switch.tracing.tracer = provider.get_tracer("twnb")
    try:
        yield exporter
    finally:
        switch.tracing.tracer = None
        provider.shutdown()


def named(exporter: InMemorySpanExporter, name: str) -> list[Any]:
    return [span for span in exporter.get_finished_spans() if span.name == name]


def test_each_plugin_call_is_an_execute_tool_span_of_its_name_inside_the_run(
    plugin_folder, make_catalog, make_session, exporter
):
    session = make_session(one_step("a = unit_converter(1)\nb = city_lookup('Lima')\na, b"), make_catalog())
    session.run_round("Convert and look up")
    (run,) = named(exporter, "execute_tool python")
    (converter,) = named(exporter, "execute_tool unit_converter")
    (lookup,) = named(exporter, "execute_tool city_lookup")
    for span in (converter, lookup):
        assert span.parent.span_id == run.context.span_id
        assert span.attributes["gen_ai.operation.name"] == "execute_tool"
        assert span.attributes["twnb.plugin.source"] == "taskweaver"
        assert run.start_time <= span.start_time <= span.end_time <= run.end_time
    assert converter.attributes["gen_ai.tool.name"] == "unit_converter"
    assert list(converter.attributes["twnb.plugin.argument_types"]) == ["kilometres: int"]
    assert converter.end_time <= lookup.start_time
    assert "gen_ai.tool.call.result" not in converter.attributes  # contents only when the user opts in


def test_a_plugin_call_that_raised_is_a_failed_span(plugin_folder, make_catalog, make_session, exporter):
    session = make_session(one_step("unit_converter('many')", "1"), make_catalog())
    session.run_round("Convert")
    (span,) = named(exporter, "execute_tool unit_converter")
    assert span.status.status_code == StatusCode.ERROR
    assert span.attributes["error.type"] == "ValueError"
