"""`results.csv`: one row per run, TaskWeaver's columns first.

TaskWeaver's batch evaluation writes `case_file,score,normalized_score` (its `sample_case_results.csv`)
and skips the cases already in that file; those three columns come first here, with the same
meaning (`case_file` is the case folder's name), so tools reading TaskWeaver's results read these.
The columns after them say which model, which run, what it spent and what went wrong. A run that was
not scored has empty scores.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

from twnb.evaluation.case_result import CaseResult
from twnb.evaluation.score_table import format_tokens

__all__ = ["CSV_COLUMNS", "TASKWEAVER_COLUMNS", "write_results_csv"]

TASKWEAVER_COLUMNS = ("case_file", "score", "normalized_score")
CSV_COLUMNS = (
    *TASKWEAVER_COLUMNS,
    "model",
    "run",
    "status",
    "max_score",
    "points_hit",
    "points",
    "rounds",
    "input_tokens",
    "output_tokens",
    "cost",
    "seconds",
    "user_model",
    "evaluator_model",
    "notebook",
    "why",
)


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def _row(result: CaseResult, folder: str) -> dict[str, str]:
    spend = result.spend
    why = result.skip_reasons if result.status == "skipped" else result.failures
    return {
        "case_file": result.case,
        "score": _number(result.score),
        "normalized_score": "" if result.normalized_score is None else f"{result.normalized_score:.4f}",
        "model": result.model,
        "run": str(result.run),
        "status": result.status,
        "max_score": _number(result.max_score),
        "points_hit": str(sum(1 for v in result.verdicts if v.hit)) if result.verdicts else "",
        "points": str(len(result.verdicts)) if result.verdicts else "",
        "rounds": str(result.rounds),
        "input_tokens": format_tokens(spend.input_tokens, spend, grouped=False),
        "output_tokens": format_tokens(spend.output_tokens, spend, grouped=False),
        "cost": "" if spend.cost is None else f"{spend.cost:.6f}",
        "seconds": f"{result.seconds:.1f}",
        "user_model": result.user_model,
        "evaluator_model": result.evaluator_model,
        "notebook": f"{folder}/{result.notebook}" if result.notebook else "",
        "why": " | ".join(" ".join(text.split()) for text in why),
    }


def write_results_csv(path: Path, results: Iterable[tuple[CaseResult, str]]) -> Path:
    """Write one row per (result, its folder relative to the CSV's)."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for result, folder in results:
            writer.writerow(_row(result, folder))
    return path
