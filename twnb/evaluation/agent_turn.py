"""One Round of the agent, as the evaluation sees it: read from the Round's MIME payload in a cell.

The payload (contract 6) carries the Round's whole record, so the notebook's own output is the one
source: the answer the virtual user gets, the code the agent ran and what came of it (for the
evaluator), the Round's state and failure reason, and its ledger (tokens, cost, time).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from twnb.base import clip
from twnb.evaluation.model_calls import Spend
from twnb.memory import PromptUtil
from twnb.render import MIME_TYPE

__all__ = ["AgentTurn", "CodeStep", "turn_from_outputs"]

# What one piece of code's result may take in the evaluator's prompt and the results.
RESULT_CHARS = 2_000
CODE_CHARS = 6_000


@dataclass
class CodeStep:
    """A piece of code the CodeInterpreter wrote: whether verification let it run, and what it gave."""

    code: str
    status: str  # SUCCESS, FAILURE, or NONE (it did not run)
    result: str = ""
    refusal: str = ""  # verification's reason, when it refused the code

    def to_dict(self) -> dict[str, str]:
        data = {"code": self.code, "status": self.status, "result": self.result}
        if self.refusal:
            data["refusal"] = self.refusal
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CodeStep:
        return cls(
            str(data.get("code", "")),
            str(data.get("status", "")),
            str(data.get("result", "")),
            str(data.get("refusal", "")),
        )


@dataclass
class AgentTurn:
    """The agent's side of one exchange: `request` is what the virtual user sent."""

    request: str
    state: str  # finished, failed, or "no round" when the cell showed none
    reply: str = ""
    round_id: str | None = None
    failure: str | None = None
    work: list[CodeStep] = field(default_factory=list)
    inner: list[str] = field(default_factory=list)  # "Planner -> CodeInterpreter: ..." per post
    spend: Spend = field(default_factory=Spend)
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.state != "finished"

    def reply_for_user(self, verbose: bool) -> str:
        """What the virtual user reads: the answer, and with `verbose` (a case key) the agent's inner
        messages too, as TaskWeaver's evaluation gives them."""
        if not verbose or not self.inner:
            return self.reply
        return self.reply + "\n\nWhat happened inside the agent:\n" + "\n".join(self.inner)

    def to_dict(self) -> dict[str, Any]:
        return {
            "request": self.request,
            "round_id": self.round_id,
            "state": self.state,
            "reply": self.reply,
            "failure": self.failure,
            "work": [step.to_dict() for step in self.work],
            "inner": list(self.inner),
            "spend": self.spend.to_dict(),
            "seconds": round(self.seconds, 3),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgentTurn:
        return cls(
            request=str(data.get("request", "")),
            state=str(data.get("state", "")),
            reply=str(data.get("reply") or ""),
            round_id=data.get("round_id"),
            failure=data.get("failure"),
            work=[CodeStep.from_dict(step) for step in data.get("work") or []],
            inner=[str(line) for line in data.get("inner") or []],
            spend=Spend.from_dict(data.get("spend")),
            seconds=float(data.get("seconds") or 0.0),
        )


def turn_from_outputs(request: str, outputs: list[Any], seconds: float) -> AgentTurn:
    """The turn a `%%taskweaver` cell's outputs show: its last Round payload, else the cell's error."""
    payload = _last_payload(outputs)
    if payload is None:
        error = next((o for o in outputs if o.get("output_type") == "error"), None)
        why = (
            f"the cell raised {error.get('ename')}: {error.get('evalue')}"
            if error is not None
            else "the cell showed no Round (was twnb loaded?)"
        )
        return AgentTurn(request, "no round", failure=why, seconds=seconds)
    state = str(payload.get("state"))
    extra = _mapping(payload.get("extra"))
    posts = [post for post in payload.get("post_list") or [] if isinstance(post, Mapping)]
    totals = _mapping(_mapping(_mapping(payload.get("twnb")).get("ledger")).get("totals"))
    failure = None
    if state != "finished":
        failure = " ".join(str(extra.get("failure_reason") or f"the Round ended {state}").split())
    return AgentTurn(
        request=request,
        state=state,
        reply=_answer(posts),
        round_id=str(payload.get("id")) if payload.get("id") else None,
        failure=failure,
        work=[step for post in posts if (step := _code_step(post)) is not None],
        inner=[_inner_line(post) for post in posts[1:-1]],
        spend=Spend.from_ledger_totals(totals),
        seconds=seconds,
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _last_payload(outputs: list[Any]) -> Mapping[str, Any] | None:
    found = None
    for output in outputs:
        data = output.get("data") if isinstance(output, Mapping) else None
        payload = data.get(MIME_TYPE) if isinstance(data, Mapping) else None
        if isinstance(payload, str):
            try:
                payload = json.loads(payload)
            except json.JSONDecodeError:
                continue
        if isinstance(payload, Mapping) and "post_list" in payload:
            found = payload
    return found


def _message(post: Mapping[str, Any]) -> str:
    return PromptUtil.remove_all_delimiters(str(post.get("message") or "")).strip()


def _answer(posts: list[Mapping[str, Any]]) -> str:
    """The last message to the User (TaskWeaver's evaluation takes the Round's last post)."""
    to_user = [post for post in posts if post.get("send_to") == "User" and post.get("send_from") != "User"]
    chosen = to_user[-1] if to_user else (posts[-1] if len(posts) > 1 else None)
    return _message(chosen) if chosen is not None else ""


def _attachment(post: Mapping[str, Any], kind: str) -> str | None:
    for attachment in post.get("attachment_list") or []:
        if isinstance(attachment, Mapping) and attachment.get("type") == kind:
            content = attachment.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return None


def _code_step(post: Mapping[str, Any]) -> CodeStep | None:
    if post.get("send_from") != "CodeInterpreter" or _attachment(post, "reply_type") != "python":
        return None
    code = _attachment(post, "reply_content") or ""
    status = _attachment(post, "execution_status") or "NONE"
    verification = _attachment(post, "verification") or ""
    refusal = (_attachment(post, "code_error") or "") if verification == "INCORRECT" else ""
    result = PromptUtil.remove_all_delimiters(_attachment(post, "execution_result") or "")
    return CodeStep(
        clip(code, CODE_CHARS, count=True),
        status,
        clip(result.strip(), RESULT_CHARS, keep="ends"),
        refusal.strip(),
    )


def _inner_line(post: Mapping[str, Any]) -> str:
    return (
        f"{post.get('send_from')} -> {post.get('send_to')}: {clip(_message(post), RESULT_CHARS, count=True)}"
    )
