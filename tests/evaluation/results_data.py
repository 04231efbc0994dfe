"""CaseResults made by hand, for the tests of tables, CSV and reports."""

from __future__ import annotations

from twnb.evaluation.case_file import ScoringPoint
from twnb.evaluation.case_result import CaseResult
from twnb.evaluation.evaluator import Verdict
from twnb.evaluation.model_calls import Spend


def scored(case: str, model: str, hits: list[bool], *, run: int = 1, cost: float | None = 0.01) -> CaseResult:
    points = [ScoringPoint(f"point {i + 1}", 1.0) for i in range(len(hits))]
    return CaseResult(
        case=case,
        case_path=f"/cases/{case}/{case}.yaml",
        model=model,
        user_model=model,
        evaluator_model=model,
        run=run,
        status="scored",
        max_score=float(len(hits)),
        verdicts=[
            Verdict(p, hit, f"reason {i + 1}", "evaluator")
            for i, (p, hit) in enumerate(zip(points, hits, strict=True))
        ],
        agent_spend=Spend(calls=2, input_tokens=1000, output_tokens=100, cost=cost),
        seconds=12.5,
        notebook=f"{case}.ipynb",
        conversation="conversation.yaml",
    )


def skipped(case: str, model: str, why: str) -> CaseResult:
    return CaseResult(
        case, f"/cases/{case}/{case}.yaml", model, model, model, status="skipped", skip_reasons=[why]
    )


def errored(case: str, model: str, why: str) -> CaseResult:
    return CaseResult(case, f"/cases/{case}/{case}.yaml", model, model, model, status="error", failures=[why])
