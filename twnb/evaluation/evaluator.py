"""The evaluator: an LLM that judges each scoring point without `eval_code`, with its reason.

It reads the task description, the conversation (what the user and the agent said, and the code the
agent ran with what came of it: twnb has the Round's record, where TaskWeaver's evaluator sees only
the messages) and one scoring point, and answers `{"reason": ..., "is_hit": "yes" | "no"}`, the answer
TaskWeaver's evaluator gives. A reply that is not such an object is not guessed at: the point is
reported as not judged, with the reply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from twnb.base import clip
from twnb.evaluation.agent_turn import AgentTurn
from twnb.evaluation.case_file import ScoringPoint
from twnb.evaluation.model_calls import ModelCaller
from twnb.llm import LLMError

__all__ = ["Evaluator", "Verdict", "parse_verdict", "transcript"]

ROLE = "Evaluator"  # the role name cassettes and the fake LLM server go by

_INSTRUCTIONS = """\
You are the judge of a test of an AI data-analysis agent. A simulated user was given a task and \
talked with the agent; you get the task, the conversation (what the user and the agent said, and the \
code the agent ran with what came of it) and one statement about the agent.

Decide whether the statement holds for what the agent did and said: "yes" when the conversation shows \
it holds, "no" when it does not, or when the conversation does not show it. Judge only this statement, \
on this conversation.

Reply with one JSON object and nothing else:
{"reason": "<one or two sentences: what in the conversation decides it>", "is_hit": "yes" or "no"}"""

_JSON_OBJECT = {"type": "json_object"}


@dataclass
class Verdict:
    """One scoring point's outcome. `hit` is None when it could not be judged (`error` says why)."""

    point: ScoringPoint
    hit: bool | None
    reason: str
    judged_by: str  # "evaluator" or "eval_code"
    error: str | None = None

    @property
    def score(self) -> float:
        return self.point.weight if self.hit else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "score_point": self.point.score_point,
            "weight": self.point.weight,
            "eval_code": self.point.eval_code,
            "hit": self.hit,
            "reason": self.reason,
            "judged_by": self.judged_by,
            "error": self.error,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verdict:
        point = ScoringPoint(str(data["score_point"]), float(data["weight"]), data.get("eval_code"))
        hit = data.get("hit")
        return cls(
            point,
            None if hit is None else bool(hit),
            str(data.get("reason") or ""),
            str(data.get("judged_by") or ""),
            data.get("error"),
        )


def transcript(turns: Sequence[AgentTurn]) -> str:
    """The conversation as the evaluator reads it: JSON, one entry per message, the agent's with the
    code it ran."""
    entries: list[dict[str, Any]] = []
    for turn in turns:
        entries.append({"from": "user", "message": turn.request})
        agent: dict[str, Any] = {"from": "agent", "message": turn.reply}
        if turn.work:
            agent["code_it_ran"] = [
                {
                    "code": step.code,
                    "ran": step.status != "NONE",
                    **({"refused_by_verification": step.refusal} if step.refusal else {}),
                    **({"status": step.status, "result": step.result} if step.status != "NONE" else {}),
                }
                for step in turn.work
            ]
        if turn.failure:
            agent["failure"] = turn.failure
        entries.append(agent)
    return json.dumps(entries, ensure_ascii=False, indent=1)


class Evaluator:
    def __init__(self, caller: ModelCaller) -> None:
        self.caller = caller

    def judge(self, task_description: str, turns: Sequence[AgentTurn], point: ScoringPoint) -> Verdict:
        question = (
            f"The task the user was given:\n{task_description.strip()}\n\n"
            f"The conversation:\n{transcript(turns)}\n\n"
            f"The statement: {point.score_point}"
        )
        messages = [{"role": "system", "content": _INSTRUCTIONS}, {"role": "user", "content": question}]
        try:
            reply = self.caller.ask(messages, response_format=_JSON_OBJECT)
        except LLMError as error:
            return Verdict(point, None, "", "evaluator", f"the evaluator's model failed: {error}")
        return parse_verdict(point, reply)


def parse_verdict(point: ScoringPoint, reply: str) -> Verdict:
    """The evaluator's reply read as `{"reason", "is_hit"}`, found in prose or a code fence too."""
    decoded = _first_object(reply)
    if decoded is not None:
        answer = decoded.get("is_hit")
        if isinstance(answer, bool):
            answer = "yes" if answer else "no"
        if isinstance(answer, str) and answer.strip().lower() in ("yes", "no"):
            return Verdict(
                point, answer.strip().lower() == "yes", str(decoded.get("reason") or ""), "evaluator"
            )
    return Verdict(
        point,
        None,
        "",
        "evaluator",
        'the evaluator did not answer with {"reason", "is_hit": "yes"/"no"}: '
        + repr(clip(reply, 300, one_line=True)),
    )


def _first_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and "is_hit" in value:
            return value
    return None
