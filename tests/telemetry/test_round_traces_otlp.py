"""Tracing over the real wire: OTLP/HTTP to a loopback receiver that decodes the protobuf, an endpoint
that does not answer, and the setup OpenTelemetry users expect (their own provider reused)."""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status
from otlp_receiver import OTLPReceiver, attributes
from support.session_script import one_step

from twnb.telemetry import switch


@pytest.fixture
def tracing_off() -> Iterator[None]:
    """Leaves tracing off after the test, whatever it (or the trace setting) switched on."""
    try:
        yield
    finally:
        switch.configure_tracing("off")
        switch.tracing.from_setting = None


def test_a_round_reaches_an_otlp_receiver_as_genai_spans(make_session, tracing_off, monkeypatch):
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
    with OTLPReceiver() as receiver:
        said = switch.configure_tracing("otlp", receiver.url.removesuffix("/v1/traces"))
        assert receiver.url in said
        session = make_session(one_step("x = 1"))
        session.run_round("Set x")
        assert switch.tracing.provider.force_flush(10_000)
        received = receiver.spans()
    assert receiver.content_types[0] == "application/x-protobuf"
    by_name: dict[str, list] = {}
    for _, span in received:
        by_name.setdefault(span.name, []).append(span)
    assert {resource["service.name"] for resource, _ in received} == {"twnb"}
    assert set(by_name) == {
        "invoke_agent",
        "invoke_agent Planner",
        "invoke_agent CodeInterpreter",
        "chat fake-model",
        "execute_tool python",
    }
    (top,) = by_name["invoke_agent"]
    assert attributes(top.attributes)["gen_ai.conversation.id"] == session.memory.conversation.id
    chat = by_name["chat fake-model"][0]
    assert chat.kind == Span.SPAN_KIND_CLIENT
    assert chat.parent_span_id == by_name["invoke_agent Planner"][0].span_id
    chat_attributes = attributes(chat.attributes)
    assert chat_attributes["gen_ai.response.finish_reasons"] == ["stop"]  # an OTLP array value
    assert isinstance(chat_attributes["gen_ai.usage.input_tokens"], int)
    tool = by_name["execute_tool python"][0]
    assert tool.parent_span_id == by_name["invoke_agent CodeInterpreter"][0].span_id
    assert tool.status.code != Status.STATUS_CODE_ERROR


def test_otel_service_name_names_the_service(make_session, tracing_off, monkeypatch):
    monkeypatch.setenv("OTEL_SERVICE_NAME", "analysis-hub")
    with OTLPReceiver() as receiver:
        switch.configure_tracing("otlp", receiver.url)
        make_session(one_step("x = 1")).run_round("Set x")
        switch.tracing.provider.force_flush(10_000)
        resource, _ = receiver.spans()[0]
    assert resource["service.name"] == "analysis-hub"


def test_an_unreachable_endpoint_breaks_no_round_and_warns_once(
    make_session, fake_llm, tracing_off, monkeypatch, caplog, refused_port
):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1")
    switch.configure_tracing("otlp", f"http://127.0.0.1:{refused_port}")
    session = make_session()
    with caplog.at_level(logging.INFO):
        for _ in range(2):  # two Rounds, two failed exports
            fake_llm.load(one_step("x = 1"))
            assert session.run_round("Set x").state == "finished"
            switch.tracing.provider.force_flush(10_000)
    warnings = [r for r in caplog.records if "could not send traces" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
    assert "127.0.0.1" in warnings[0].getMessage()
    assert not [r for r in caplog.records if r.name.startswith("opentelemetry")]


def test_an_endpoint_that_never_answers_does_not_slow_a_round(make_session, tracing_off, monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "5")
    with socket.socket() as blackhole:  # accepts connections, never answers
        blackhole.bind(("127.0.0.1", 0))
        blackhole.listen(64)
        switch.configure_tracing("otlp", f"http://127.0.0.1:{blackhole.getsockname()[1]}")
        session = make_session(one_step("x = 1"))
        started = time.perf_counter()
        round = session.run_round("Set x")
        took = time.perf_counter() - started
        switch.configure_tracing("off")  # the last export is abandoned on its own thread
    assert round.state == "finished"
    # Waiting on the export even once would take the exporter's whole 5 s timeout.
    assert took < 4, f"the Round took {took:.1f} s"


def test_on_reuses_the_processs_own_tracer_provider():
    code = (
        "from opentelemetry import trace\n"
        "from opentelemetry.sdk.trace import TracerProvider\n"
        "from opentelemetry.sdk.trace.export import SimpleSpanProcessor\n"
        "from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter\n"
        "exporter = InMemorySpanExporter()\n"
        "provider = TracerProvider()\n"
        "provider.add_span_processor(SimpleSpanProcessor(exporter))\n"
        "trace.set_tracer_provider(provider)\n"
        "from twnb.telemetry import switch\n"
        "print(switch.configure_tracing('on'))\n"
        "switch.tracing.tracer.start_span('probe').end()\n"
        "print([s.name for s in exporter.get_finished_spans()], switch.tracing.provider is None)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    said, found = out.strip().splitlines()
    assert "this process's TracerProvider" in said
    assert found == "['probe'] True"


def test_on_without_a_provider_builds_one_from_the_otel_variables(tracing_off, monkeypatch):
    with OTLPReceiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url.removesuffix("/v1/traces"))
        said = switch.configure_tracing("on")
        switch.tracing.tracer.start_span("probe").end()
        switch.tracing.provider.force_flush(10_000)
        names = [span.name for _, span in receiver.spans()]
    assert receiver.url in said
    assert names == ["probe"]


def test_an_unknown_mode_says_which_exist():
    with pytest.raises(ValueError, match="one of off, on, console, otlp"):
        switch.configure_tracing("loud")


def test_off_stops_tracing(tracing_off):
    switch.configure_tracing("console")
    assert switch.configure_tracing("off") == "Tracing is off."
    assert switch.tracing.tracer is None and switch.tracing.provider is None


def test_the_trace_setting_switches_tracing_on_when_the_session_is_built(make_session, tracing_off, capsys):
    session = make_session(one_step("x = 1"), settings={"trace": "console"})
    assert switch.tracing.mode == "console"
    session.run_round("Set x")
    printed = capsys.readouterr().out
    assert '"name": "invoke_agent"' in printed and '"name": "execute_tool python"' in printed


def test_a_session_built_with_the_default_setting_keeps_tracing_switched_on_by_hand(
    make_session, tracing_off
):
    switch.configure_tracing("console")
    make_session(one_step("x = 1"))
    assert switch.tracing.mode == "console"
