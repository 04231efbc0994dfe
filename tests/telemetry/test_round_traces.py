"""OpenTelemetry spans of whole Rounds (GenAI semantic conventions), against the loopback LLM server on
a real InteractiveShell, read back with the SDK's InMemorySpanExporter."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from support.session_script import answer, code_reply, one_step, planner_reply

from twnb.telemetry import switch

CANARY = "sk-canary-0123456789abcdefXYZ"


class Spans:
    def __init__(self, exporter: InMemorySpanExporter) -> None:
        self.exporter = exporter

    @property
    def all(self) -> list[Any]:
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> list[Any]:
        return [s for s in self.all if s.name == name]

    def one(self, name: str) -> Any:
        (span,) = self.named(name)
        return span

    def parent_of(self, span: Any) -> Any:
        return next(s for s in self.all if s.context.span_id == span.parent.span_id)


@pytest.fixture
def spans() -> Iterator[Spans]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    switch.tracing.tracer = provider.get_tracer("twnb")
    try:
        yield Spans(exporter)
    finally:
        switch.tracing.tracer = None
        provider.shutdown()


def test_a_round_is_an_invoke_agent_span_with_the_conversation_id(make_session, spans):
    session = make_session(one_step("x = 1"))
    round = session.run_round("Set x")
    span = spans.one("invoke_agent")
    assert span.kind == SpanKind.INTERNAL and span.parent is None
    assert span.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert span.attributes["gen_ai.conversation.id"] == session.memory.conversation.id
    assert span.attributes["gen_ai.provider.name"] == "openai"
    assert span.attributes["twnb.round.id"] == round.id
    assert span.status.status_code == StatusCode.UNSET


def test_each_roles_reply_is_an_invoke_agent_span_under_the_round(make_session, spans):
    make_session(one_step("x = 1")).run_round("Set x")
    round = spans.one("invoke_agent")
    planners, coders = spans.named("invoke_agent Planner"), spans.named("invoke_agent CodeInterpreter")
    assert len(planners) == 2 and len(coders) == 1
    for span in (*planners, *coders):
        assert span.parent.span_id == round.context.span_id
        assert span.attributes["gen_ai.agent.name"] == span.name.split()[-1]
        assert span.attributes["gen_ai.provider.name"] == "openai"
        assert span.attributes["gen_ai.request.model"] == "fake-model"


def test_role_spans_carry_taskweavers_post_attributes_as_attachment_types(make_session, spans):
    make_session(one_step("x = 1")).run_round("Set x")
    coder = spans.one("invoke_agent CodeInterpreter")
    assert coder.attributes["in.from"] == "Planner"
    assert "init_plan" in coder.attributes["in.attachments"]
    assert (coder.attributes["out.from"], coder.attributes["out.to"]) == ("CodeInterpreter", "Planner")
    assert list(coder.attributes["out.attachments"])[:3] == ["thought", "reply_type", "reply_content"]
    first_planner = spans.named("invoke_agent Planner")[0]
    assert first_planner.attributes["in.from"] == "User"
    assert list(first_planner.attributes["in.attachments"]) == []


def test_each_llm_call_is_a_client_chat_span_under_its_role(make_session, spans, fake_llm):
    script = one_step("x = 1")
    script["Planner"][0] = {
        "content": script["Planner"][0],
        "usage": {"prompt_tokens": 1200, "completion_tokens": 80},
        "cached_tokens": 1000,
    }
    make_session(script).run_round("Set x")
    chats = spans.named("chat fake-model")
    assert len(chats) == 3
    first = chats[0]
    assert first.kind == SpanKind.CLIENT
    assert spans.parent_of(first).name == "invoke_agent Planner"
    a = first.attributes
    assert a["gen_ai.operation.name"] == "chat"
    assert a["gen_ai.provider.name"] == "openai"
    assert a["gen_ai.request.model"] == "fake-model" and a["gen_ai.response.model"] == "fake-model"
    assert (a["gen_ai.usage.input_tokens"], a["gen_ai.usage.output_tokens"]) == (1200, 80)
    assert a["gen_ai.usage.cache_read.input_tokens"] == 1000
    assert a["gen_ai.response.finish_reasons"] == ("stop",)  # an array, not a string
    assert 0 <= a["gen_ai.response.time_to_first_chunk"] <= (first.end_time - first.start_time) / 1e9
    assert a["server.address"] == "127.0.0.1" and a["server.port"] == int(
        fake_llm.base_url.split(":")[2].split("/")[0]
    )
    assert a["gen_ai.output.type"] == "json"
    assert a["gen_ai.response.id"].startswith("chatcmpl-")
    assert "error.type" not in a
    assert spans.parent_of(chats[1]).name == "invoke_agent CodeInterpreter"


def test_a_chat_span_stays_open_until_the_streams_last_chunk(make_session, spans):
    script = one_step("x = 1")
    content = script["Planner"][0]
    script["Planner"][0] = {"content": content, "chunk_size": 40, "delay_s": 0.05}
    make_session(script).run_round("Set x")
    first = spans.named("chat fake-model")[0]
    chunks = -(-len(content) // 40)  # each chunk waits 0.05 s before it is sent
    assert (first.end_time - first.start_time) / 1e9 >= 0.05 * chunks


def test_code_runs_are_execute_tool_spans_under_the_codeinterpreter(make_session, spans):
    make_session(one_step("import time\ntime.sleep(0.2)")).run_round("Wait")
    span = spans.one("execute_tool python")
    assert span.kind == SpanKind.INTERNAL
    assert spans.parent_of(span).name == "invoke_agent CodeInterpreter"
    a = span.attributes
    assert (a["gen_ai.operation.name"], a["gen_ai.tool.name"]) == ("execute_tool", "python")
    assert a["twnb.execution.status"] == "success"
    assert a["twnb.execution.duration_s"] >= 0.2
    assert (span.end_time - span.start_time) / 1e9 >= 0.2
    assert list(a["twnb.execution.artifacts"]) == []
    assert span.status.status_code == StatusCode.UNSET


def test_a_figure_is_listed_among_the_runs_artifacts(make_session, spans):
    code = "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()"
    make_session(one_step(code)).run_round("Plot")
    artifacts = list(spans.one("execute_tool python").attributes["twnb.execution.artifacts"])
    assert len(artifacts) == 1 and artifacts[0].endswith(".png")


def test_failing_code_is_an_error_span_named_by_its_exception(make_session, spans):
    script = {
        "Planner": [planner_reply("CodeInterpreter", "Divide."), answer("It failed.")],
        "CodeInterpreter": [code_reply("1 / 0"), code_reply("'gave up'")],
    }
    make_session(script, settings={"max_retries": 1}).run_round("Divide by zero")
    failed, succeeded = spans.named("execute_tool python")
    assert failed.status.status_code == StatusCode.ERROR
    assert failed.attributes["error.type"] == "ZeroDivisionError"
    assert succeeded.status.status_code == StatusCode.UNSET


def test_a_dropped_stream_is_an_error_chat_span_and_the_retry_its_sibling(make_session, spans):
    script = one_step("x = 1")
    script["Planner"][0] = {"content": script["Planner"][0], "drop_after_chars": 20}
    round = make_session(script).run_round("Set x")
    assert round.state == "finished"
    dropped, retried = spans.named("chat fake-model")[:2]
    assert dropped.status.status_code == StatusCode.ERROR
    assert dropped.attributes["error.type"] == "LLMStreamDropped"
    assert "gen_ai.response.finish_reasons" not in dropped.attributes
    assert "error.type" not in retried.attributes
    assert spans.parent_of(dropped) == spans.parent_of(retried)
    assert spans.parent_of(dropped).name == "invoke_agent Planner"


def test_a_failed_round_is_an_error_span_with_every_span_ended(make_session, spans):
    script = {"Planner": [{"content": "x", "fault": "http_500", "times": 5}]}
    round = make_session(script).run_round("Anything")
    assert round.state == "failed"
    top = spans.one("invoke_agent")
    assert top.status.status_code == StatusCode.ERROR
    assert top.attributes["error.type"] == "LLMServerError"
    chat = spans.one("chat fake-model")
    assert chat.attributes["error.type"] == "LLMServerError"
    assert all(s.end_time is not None for s in spans.all)
    assert {s.name for s in spans.all} == {"invoke_agent", "invoke_agent Planner", "chat fake-model"}


def _plan_events(span: Any) -> list[dict[str, Any]]:
    return [dict(event.attributes) for event in span.events if event.name == "twnb.plan.changed"]


def test_each_plan_change_is_an_event_on_the_rounds_span(make_session, spans):
    session = make_session(one_step("x = 1"))
    session.run_round("Set x")
    plan_id = session.plans.history[-1].id
    assert _plan_events(spans.one("invoke_agent")) == [
        {
            "twnb.plan.id": plan_id,
            "twnb.plan.state": "in_progress",
            "twnb.plan.steps": 2,
            "twnb.plan.step_states": "in_progress,todo",
        },
        {
            "twnb.plan.id": plan_id,
            "twnb.plan.state": "done",
            "twnb.plan.steps": 2,
            "twnb.plan.step_states": "done,done",
        },
    ]


def test_an_interrupted_rounds_plan_ends_abandoned_on_its_span_and_the_tracer_stops_listening(
    make_session, spans
):
    session = make_session(one_step("never = 1"))
    driver = session.round_driver("Set it")
    next(driver)
    assert "twnb.telemetry.round_spans" in session.plans.plan_change_hooks
    with pytest.raises(StopIteration):
        driver.throw(KeyboardInterrupt())
    events = _plan_events(spans.one("invoke_agent"))
    assert [e["twnb.plan.step_states"] for e in events] == ["in_progress,todo", "abandoned,abandoned"]
    assert events[-1]["twnb.plan.state"] == "abandoned"
    assert session.plans.plan_change_hooks == ()


def test_no_content_is_recorded_unless_the_user_opts_in(make_session, spans, monkeypatch):
    monkeypatch.delenv(switch.CAPTURE_VARIABLE, raising=False)
    make_session(one_step("secret_code = 1")).run_round("My private request")
    for span in spans.all:
        text = json.dumps(dict(span.attributes), default=str)
        assert "My private request" not in text and "secret_code" not in text
        assert not any(k in span.attributes for k in ("gen_ai.input.messages", "gen_ai.output.messages"))


def test_opted_in_content_is_recorded_in_the_conventions_format_redacted(make_session, spans, monkeypatch):
    monkeypatch.setenv(switch.CAPTURE_VARIABLE, "true")
    monkeypatch.setenv("MY_SERVICE_TOKEN", CANARY)
    code = f"token = {CANARY!r}"
    make_session(one_step(code, f"The token is {CANARY}.")).run_round(f"Remember {CANARY}")
    everything = json.dumps([dict(s.attributes) for s in spans.all], default=str)
    assert CANARY not in everything
    top = spans.one("invoke_agent")
    (message,) = json.loads(top.attributes["gen_ai.input.messages"])
    assert message["role"] == "user" and message["parts"][0]["type"] == "text"
    assert message["parts"][0]["content"].startswith("Remember ")
    chat = spans.named("chat fake-model")[0]
    sent = json.loads(chat.attributes["gen_ai.input.messages"])
    assert sent[0]["role"] == "system" and sent[0]["parts"][0]["type"] == "text"
    (reply,) = json.loads(chat.attributes["gen_ai.output.messages"])
    assert reply["role"] == "assistant" and reply["finish_reason"] == "stop"
    run = spans.one("execute_tool python")
    assert "token = " in json.loads(run.attributes["gen_ai.tool.call.arguments"])["code"]


def test_with_tracing_off_a_round_gets_no_tracing_observer(make_session):
    assert switch.tracing.tracer is None
    session = make_session(one_step("x = 1"))
    assert session.tracing is not None and session._round_tracer(session.memory.create_round("q")) is None
    assert session.plans.plan_change_hooks == ()
