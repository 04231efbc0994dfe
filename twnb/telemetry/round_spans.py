"""One Round's events as OpenTelemetry spans, following the GenAI semantic conventions.

    invoke_agent                      the Round (INTERNAL); gen_ai.conversation.id
      invoke_agent Planner            each role's reply, from its first event to its committed post
        chat {model}                  each LLM call (CLIENT), open until the stream's last chunk
      invoke_agent CodeInterpreter
        chat {model}
        execute_tool python           each code run (INTERNAL)
          execute_tool {plugin}       each plugin the code called (INTERNAL; its start and end as recorded)

The Round's span also gets an event `twnb.plan.changed` each time its plan's state or its steps'
states change (the tracer follows the session's plan notebook through a plan-change hook until the
Round ends): `twnb.plan.id`, `twnb.plan.state`, `twnb.plan.steps` (how many) and `twnb.plan.step_states`
(each step's state in order, comma-separated: `done,in_progress,todo`); the steps' text is content.

Every span carries `gen_ai.operation.name`, `gen_ai.provider.name` (set when the span starts, for
samplers) and `gen_ai.conversation.id`. A role's span adds TaskWeaver's post attributes: `in.from`,
`in.attachments`, `out.from`, `out.to` and `out.attachments` (attachment types, never their text).

Errors: a failed span has status ERROR and `error.type`, the low-cardinality name of what went wrong:
an exception's class (`LLMStreamDropped` for a stream that ended without a finish reason,
`LLMServerError`, `LLMRateLimitError`, `KeyboardInterrupt`, `ZeroDivisionError` raised by generated
code, ...), `timeout` or `kernel_died` for code, `closed_early` for a reply stopped at its limit, and
`round_ended` for a span the Round's end left open.

Contents (prompts, replies, code, results, the request and the answer) are recorded only when the user
opts in with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, as JSON strings in the
conventions' message format, and even then through the session's redactor.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Protocol

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from twnb.memory import (
    CodeRunEnded,
    CodeRunStarted,
    Event,
    LLMCallEnded,
    LLMCallStarted,
    Plan,
    PluginCalled,
    Post,
    PostCommitted,
    PostStarted,
    RoundEnded,
    RoundFailed,
    RoundStarted,
)

__all__ = ["PLAN_CHANGED", "TOOL_NAME", "RoundSpans"]

TOOL_NAME = "python"
TOOL_DESCRIPTION = "Runs Python code on the notebook's kernel; its variables stay in the notebook."
ROUND_ENDED = "round_ended"
OTHER = "_OTHER"
_CODE_ERRORS = {"timeout": "timeout", "kernel_died": "kernel_died", "interrupted": "KeyboardInterrupt"}
PLAN_CHANGED = "twnb.plan.changed"
PLAN_HOOK = "twnb.telemetry.round_spans"  # the tracer's name on the session's plan notebook


class PlanHooks(Protocol):
    """What the tracer needs of the session's plan notebook: its hooks."""

    def register_plan_change_hook(self, name: str, hook: Callable[[object, Plan | None], None]) -> None: ...

    def remove_plan_change_hook(self, name: str) -> None: ...


class RoundSpans:
    """The observer that traces one Round (made per Round by `switch.round_tracer`)."""

    def __init__(
        self,
        tracer: trace.Tracer,
        *,
        conversation_id: str,
        session_id: str,
        provider: str,
        models: Mapping[str, str],
        redact: Callable[[str], str] | None = None,
        capture_content: bool = False,
    ) -> None:
        self.tracer = tracer
        self.conversation_id = conversation_id
        self.session_id = session_id
        self.provider = provider
        self.models = dict(models)
        self.redact = redact or (lambda text: text)
        self.capture = capture_content
        self.round: Span | None = None
        self.roles: dict[str, Span] = {}  # post id -> the role's span, while it replies
        self.role_of: dict[str, str] = {}  # post id -> role name
        self.calls: dict[str, Span] = {}  # call id -> chat span
        self.runs: dict[str, Span] = {}  # post id -> execute_tool span
        self.last_post: Post | None = None  # the post the next reply answers
        self.failure: tuple[str, str] | None = None
        self.plans: PlanHooks | None = None  # the plan notebook followed until the Round ends
        self.plan_seen: dict[str, Any] | None = None  # the last plan event's attributes
        self._handlers: dict[type, Callable[[Any], None]] = {
            RoundStarted: self._round_started,
            PostStarted: self._post_started,
            PostCommitted: self._post_committed,
            LLMCallStarted: self._call_started,
            LLMCallEnded: self._call_ended,
            CodeRunStarted: self._run_started,
            CodeRunEnded: self._run_ended,
            PluginCalled: self._plugin_called,
            RoundFailed: self._round_failed,
            RoundEnded: self._round_ended,
        }

    def on_event(self, event: Event) -> None:
        handler = self._handlers.get(type(event))  # message deltas, the hot path, fall through here
        if handler is not None:
            handler(event)

    def follow(self, plans: PlanHooks) -> None:
        """Hear of the Round's plan changes from `plans` (the session's plan notebook) until it ends."""
        self.plans = plans
        plans.register_plan_change_hook(PLAN_HOOK, self._plan_changed)

    # -- helpers -------------------------------------------------------------------------------------

    def _common(self, operation: str) -> dict[str, Any]:
        return {
            "gen_ai.operation.name": operation,
            "gen_ai.provider.name": self.provider,
            "gen_ai.conversation.id": self.conversation_id,
        }

    def _start(self, name: str, parent: Span | None, kind: SpanKind, attributes: dict[str, Any]) -> Span:
        context = trace.set_span_in_context(parent) if parent is not None else None
        return self.tracer.start_span(name, context=context, kind=kind, attributes=attributes)

    def _text(self, text: str) -> str:
        return self.redact(text)

    def _messages(self, role: str, text: str, finish_reason: str | None = None) -> str:
        message: dict[str, Any] = {"role": role, "parts": [{"type": "text", "content": self._text(text)}]}
        if finish_reason is not None:
            message["finish_reason"] = finish_reason
        return json.dumps([message], ensure_ascii=False)

    @staticmethod
    def _fail(span: Span, error_type: str, description: str | None = None) -> None:
        span.set_attribute("error.type", error_type)
        span.set_status(Status(StatusCode.ERROR, description))

    def _parent_for(self, role: str) -> Span | None:
        """The open span of the role making this call: its latest reply still open."""
        for post_id in reversed(list(self.roles)):
            if self.role_of.get(post_id) == role:
                return self.roles[post_id]
        return self.round

    # -- the Round -----------------------------------------------------------------------------------

    def _round_started(self, event: RoundStarted) -> None:
        attributes = self._common("invoke_agent")
        attributes["twnb.session.id"] = self.session_id
        attributes["twnb.round.id"] = event.round_id
        if self.capture:
            attributes["gen_ai.input.messages"] = self._messages("user", event.user_query)
        # The Round's parent is whatever span is current where it runs (the user's own, if any).
        self.round = self.tracer.start_span("invoke_agent", kind=SpanKind.INTERNAL, attributes=attributes)

    def _round_failed(self, event: RoundFailed) -> None:
        self.failure = (event.error_type or OTHER, event.reason)

    def _round_ended(self, event: RoundEnded) -> None:
        if self.plans is not None:
            self.plans.remove_plan_change_hook(PLAN_HOOK)
            self.plans = None
        error_type, reason = self.failure or (ROUND_ENDED, "the Round ended first")
        for spans in (self.calls, self.runs, self.roles):
            for span in spans.values():
                self._fail(span, error_type if self.failure else ROUND_ENDED, reason)
                span.end()
            spans.clear()
        if self.round is None:
            return
        self.round.set_attribute("twnb.round.state", event.state)
        if self.failure is not None:
            self._fail(self.round, *self.failure)
        elif self.capture and self.last_post is not None and self.last_post.send_to == "User":
            self.round.set_attribute(
                "gen_ai.output.messages", self._messages("assistant", self.last_post.message, "stop")
            )
        self.round.end()
        self.round = None

    def _plan_changed(self, notebook: object, plan: Plan | None) -> None:
        if plan is None or self.round is None:
            return
        attributes: dict[str, Any] = {
            "twnb.plan.id": plan.id,
            "twnb.plan.state": plan.state,
            "twnb.plan.steps": len(plan.subtasks),
            "twnb.plan.step_states": ",".join(subtask.state for subtask in plan.subtasks),
        }
        if attributes != self.plan_seen:  # a plan that ends as it stood (done already) says it once
            self.plan_seen = attributes
            self.round.add_event(PLAN_CHANGED, attributes)

    # -- each role's reply ---------------------------------------------------------------------------

    def _post_started(self, event: PostStarted) -> None:
        if event.post_id in self.roles:
            return  # a retried attempt: the same reply goes on
        role = event.send_from
        attributes = self._common("invoke_agent")
        attributes["gen_ai.agent.name"] = role
        if self.models.get(role):
            attributes["gen_ai.request.model"] = self.models[role]
        incoming = self.last_post
        if incoming is not None:
            attributes["in.from"] = incoming.send_from
            attributes["in.attachments"] = [a.type.value for a in incoming.attachment_list]
            if self.capture:
                attributes["gen_ai.input.messages"] = self._messages("user", incoming.message)
        self.roles[event.post_id] = self._start(
            f"invoke_agent {role}", self.round, SpanKind.INTERNAL, attributes
        )
        self.role_of[event.post_id] = role

    def _post_committed(self, event: PostCommitted) -> None:
        post = event.post
        self.last_post = post
        span = self.roles.pop(post.id, None)
        if span is None:
            return  # the User's request
        span.set_attribute("out.from", post.send_from)
        span.set_attribute("out.to", post.send_to)
        span.set_attribute("out.attachments", [a.type.value for a in post.attachment_list])
        if self.capture:
            span.set_attribute("gen_ai.output.messages", self._messages("assistant", post.message, "stop"))
        incomplete = (post.extra or {}).get("incomplete")
        if incomplete:
            self._fail(span, self.failure[0] if self.failure else OTHER, str(incomplete))
        span.end()

    # -- LLM calls -----------------------------------------------------------------------------------

    def _call_started(self, event: LLMCallStarted) -> None:
        attributes = self._common("chat")
        attributes["gen_ai.provider.name"] = event.provider
        attributes["gen_ai.request.model"] = event.model
        attributes["gen_ai.request.stream"] = True
        attributes["gen_ai.agent.name"] = event.role
        if event.output_type:
            attributes["gen_ai.output.type"] = event.output_type
        if event.server_address:
            attributes["server.address"] = event.server_address
            if event.server_port is not None:
                attributes["server.port"] = event.server_port
        if self.capture:
            attributes["gen_ai.input.messages"] = json.dumps(
                [_message_parts(m, self._text) for m in event.messages], ensure_ascii=False
            )
        parent = self._parent_for(event.role)
        self.calls[event.call_id] = self._start(f"chat {event.model}", parent, SpanKind.CLIENT, attributes)

    def _call_ended(self, event: LLMCallEnded) -> None:
        span = self.calls.pop(event.call_id, None)
        if span is None:
            return
        if event.response_model:
            span.set_attribute("gen_ai.response.model", event.response_model)
        if event.response_id:
            span.set_attribute("gen_ai.response.id", event.response_id)
        if event.finish_reason is not None:
            span.set_attribute("gen_ai.response.finish_reasons", [event.finish_reason])
        usage = event.usage or {}
        if usage and not usage.get("estimated"):
            span.set_attribute("gen_ai.usage.input_tokens", int(usage.get("prompt_tokens") or 0))
            span.set_attribute("gen_ai.usage.output_tokens", int(usage.get("completion_tokens") or 0))
            if usage.get("cached_tokens"):
                span.set_attribute("gen_ai.usage.cache_read.input_tokens", int(usage["cached_tokens"]))
        first = usage.get("time_to_first_token_s")
        if first is not None:
            span.set_attribute("gen_ai.response.time_to_first_chunk", float(first))
        if self.capture and event.output_text:
            span.set_attribute(
                "gen_ai.output.messages",
                self._messages("assistant", event.output_text, event.finish_reason or "error"),
            )
        if event.error_type:
            self._fail(span, event.error_type, self._text(event.error) if event.error else None)
        span.end()

    # -- code runs -----------------------------------------------------------------------------------

    def _run_started(self, event: CodeRunStarted) -> None:
        attributes = self._common("execute_tool")
        attributes.update(
            {
                "gen_ai.tool.name": TOOL_NAME,
                "gen_ai.tool.type": "function",
                "gen_ai.tool.call.id": event.post_id,
                "gen_ai.tool.description": TOOL_DESCRIPTION,
            }
        )
        if self.capture:
            attributes["gen_ai.tool.call.arguments"] = json.dumps(
                {"code": self._text(event.code)}, ensure_ascii=False
            )
        parent = self.roles.get(event.post_id, self.round)
        self.runs[event.post_id] = self._start(
            f"execute_tool {TOOL_NAME}", parent, SpanKind.INTERNAL, attributes
        )

    def _plugin_called(self, event: PluginCalled) -> None:
        """A plugin call, reported after the run with the times it was recorded at: a child of the
        run's span, started and ended at those times. Argument types always; their values never."""
        attributes = self._common("execute_tool")
        attributes.update(
            {
                "gen_ai.tool.name": event.name,
                "gen_ai.tool.type": "extension" if event.source == "mcp" else "function",
                "gen_ai.tool.call.id": f"{event.post_id}:{event.name}",
                "twnb.plugin.source": event.source,
                "twnb.plugin.argument_types": [f"{name}: {kind}" for name, kind in event.arguments],
            }
        )
        if self.capture and event.result:
            attributes["gen_ai.tool.call.result"] = json.dumps(self._text(event.result), ensure_ascii=False)
        parent = self.runs.get(event.post_id) or self.roles.get(event.post_id, self.round)
        start = _ns(event.started_at)
        context = trace.set_span_in_context(parent) if parent is not None else None
        span = self.tracer.start_span(
            f"execute_tool {event.name}",
            context=context,
            kind=SpanKind.INTERNAL,
            attributes=attributes,
            start_time=start,
        )
        if event.error:
            self._fail(span, event.error.split(":", 1)[0], self._text(event.error))
        end = start + int(event.duration_s * 1_000_000_000) if start is not None else None
        span.end(end_time=end)

    def _run_ended(self, event: CodeRunEnded) -> None:
        span = self.runs.pop(event.post_id, None)
        if span is None:
            return
        span.set_attribute("twnb.execution.status", event.status)
        if event.duration_s is not None:
            span.set_attribute("twnb.execution.duration_s", round(float(event.duration_s), 6))
        span.set_attribute("twnb.execution.artifacts", list(event.artifacts))
        if event.status == "success":
            if self.capture and event.result_text:
                span.set_attribute(
                    "gen_ai.tool.call.result", json.dumps(self._text(event.result_text), ensure_ascii=False)
                )
        else:
            error_type = event.error_type or _CODE_ERRORS.get(event.status) or OTHER
            self._fail(span, error_type, f"the code ended {event.status}")
        span.end()


def _ns(iso: str) -> int | None:
    """UTC ISO 8601 as nanoseconds since the epoch (None when it does not parse)."""
    try:
        return int(datetime.fromisoformat(iso).timestamp() * 1_000_000_000)
    except ValueError:
        return None


def _message_parts(message: Mapping[str, Any], redact: Callable[[str], str]) -> dict[str, Any]:
    """An openai chat message in the conventions' input format (text parts; images named only)."""
    content = message.get("content")
    parts: list[dict[str, Any]] = []
    if isinstance(content, str):
        parts.append({"type": "text", "content": redact(content)})
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, Mapping) and part.get("type") == "text":
                parts.append({"type": "text", "content": redact(str(part.get("text", "")))})
            elif isinstance(part, Mapping):
                parts.append({"type": str(part.get("type", "unknown"))})
    return {"role": str(message.get("role", "user")), "parts": parts}
