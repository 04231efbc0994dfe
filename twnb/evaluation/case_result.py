"""What one run of one case against one model came to, saved as `result.yaml` beside its notebook.

Every table and report is made from these files, so `--resume` and a second run into the same folder
(another model, say) add to what is there instead of replacing it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twnb.evaluation.agent_turn import AgentTurn
from twnb.evaluation.chat_messages import ChatMessage, history_from_data, history_to_data
from twnb.evaluation.evaluator import Verdict
from twnb.evaluation.model_calls import Spend
from twnb.memory import load_yaml_file, save_yaml_file

__all__ = ["RESULT_FILE", "CaseResult", "read_result", "write_result"]

RESULT_FILE = "result.yaml"
RESULT_SCHEMA = 1

# A run is "running" while it goes, then: scored (the conversation ran and every point has a verdict,
# whatever the agent did), skipped (twnb cannot run the case; `skip_reasons` says why) or error (the
# run could not finish: a kernel that died, a model that did not answer; `failures` says why) or
# invalid (a file that looks like a case but is not one as written; `failures` says what to fix).
STATUSES = ("running", "scored", "skipped", "error", "invalid")


@dataclass
class CaseResult:
    case: str  # TaskWeaver's `case_file`: the case folder's name
    case_path: str
    model: str
    user_model: str
    evaluator_model: str
    run: int = 1  # 1 to --repeat
    status: str = "running"
    max_score: float = 0.0
    verdicts: list[Verdict] = field(default_factory=list)
    turns: list[AgentTurn] = field(default_factory=list)
    chat_history: list[ChatMessage] = field(default_factory=list)
    agent_spend: Spend = field(default_factory=Spend)
    user_spend: Spend = field(default_factory=Spend)
    evaluator_spend: Spend = field(default_factory=Spend)
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    skip_reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    notebook: str | None = None  # file names, relative to the result's folder
    conversation: str | None = None
    started_at: str = ""

    @property
    def score(self) -> float | None:
        """Sum of the weights of the points hit; None unless scored."""
        if self.status != "scored":
            return None
        return sum(verdict.score for verdict in self.verdicts)

    @property
    def normalized_score(self) -> float | None:
        score = self.score
        return None if score is None or not self.max_score else score / self.max_score

    @property
    def spend(self) -> Spend:
        return Spend.total((self.agent_spend, self.user_spend, self.evaluator_spend))

    @property
    def rounds(self) -> int:
        return len(self.turns)

    def to_dict(self) -> dict[str, Any]:
        return {
            "twnb_eval": RESULT_SCHEMA,
            "case": self.case,
            "case_path": self.case_path,
            "model": self.model,
            "user_model": self.user_model,
            "evaluator_model": self.evaluator_model,
            "run": self.run,
            "status": self.status,
            "score": self.score,
            "max_score": self.max_score,
            "normalized_score": self.normalized_score,
            "seconds": round(self.seconds, 3),
            "started_at": self.started_at,
            "notebook": self.notebook,
            "conversation": self.conversation,
            "failures": list(self.failures),
            "skip_reasons": list(self.skip_reasons),
            "notes": list(self.notes),
            "spend": {
                "agent": self.agent_spend.to_dict(),
                "virtual_user": self.user_spend.to_dict(),
                "evaluator": self.evaluator_spend.to_dict(),
            },
            "verdicts": [verdict.to_dict() for verdict in self.verdicts],
            "turns": [turn.to_dict() for turn in self.turns],
            "chat_history": history_to_data(self.chat_history),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CaseResult:
        spend = data.get("spend") or {}
        return cls(
            case=str(data["case"]),
            case_path=str(data.get("case_path") or ""),
            model=str(data["model"]),
            user_model=str(data.get("user_model") or ""),
            evaluator_model=str(data.get("evaluator_model") or ""),
            run=int(data.get("run") or 1),
            status=str(data.get("status") or "error"),
            max_score=float(data.get("max_score") or 0.0),
            verdicts=[Verdict.from_dict(v) for v in data.get("verdicts") or []],
            turns=[AgentTurn.from_dict(t) for t in data.get("turns") or []],
            chat_history=history_from_data(data.get("chat_history") or []),
            agent_spend=Spend.from_dict(spend.get("agent")),
            user_spend=Spend.from_dict(spend.get("virtual_user")),
            evaluator_spend=Spend.from_dict(spend.get("evaluator")),
            seconds=float(data.get("seconds") or 0.0),
            failures=[str(f) for f in data.get("failures") or []],
            skip_reasons=[str(r) for r in data.get("skip_reasons") or []],
            notes=[str(n) for n in data.get("notes") or []],
            notebook=data.get("notebook"),
            conversation=data.get("conversation"),
            started_at=str(data.get("started_at") or ""),
        )


def write_result(folder: Path, result: CaseResult) -> Path:
    path = folder / RESULT_FILE
    save_yaml_file(path, result.to_dict())
    return path


def read_result(folder: Path) -> CaseResult | None:
    """The result saved in `folder`, or None when there is none (or it is not twnb eval's)."""
    path = folder / RESULT_FILE
    if not path.is_file():
        return None
    try:
        data = load_yaml_file(path)
        if not isinstance(data, Mapping) or "twnb_eval" not in data:
            return None
        return CaseResult.from_dict(data)
    except (OSError, ValueError, KeyError, TypeError):
        return None
