"""evaluation layer: `twnb eval`, TaskWeaver's evaluation cases run against any model, as notebooks.

- `find_cases(paths)`, `read_case(path)`: TaskWeaver's case YAML, unchanged (case_file.py).
- `run_evaluation(EvalOptions(...))`: every case against every model in a fresh kernel each, a virtual
  user driving `%%taskweaver` Rounds, the evaluator and `eval_code` scoring them; `results.csv`,
  `report.md`, `report.html` (batch.py).
- `chat_messages`: the chat history `eval_code` reads (importable alone, by the code's own process).

See docs/architecture.md ("Evaluation"). Importing this package is cheap: its parts load when used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from twnb.evaluation.batch import EvalError, EvalOptions, EvalOutcome, run_evaluation
    from twnb.evaluation.case_file import CaseError, EvalCase, ScoringPoint, find_cases, read_case
    from twnb.evaluation.case_result import CaseResult

__all__ = [
    "CaseError",
    "CaseResult",
    "EvalCase",
    "EvalError",
    "EvalOptions",
    "EvalOutcome",
    "ScoringPoint",
    "find_cases",
    "read_case",
    "run_evaluation",
]

_WHERE = {
    "EvalError": "batch",
    "EvalOptions": "batch",
    "EvalOutcome": "batch",
    "run_evaluation": "batch",
    "CaseError": "case_file",
    "EvalCase": "case_file",
    "ScoringPoint": "case_file",
    "find_cases": "case_file",
    "read_case": "case_file",
    "CaseResult": "case_result",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'twnb.evaluation' has no attribute {name!r}")
    return getattr(importlib.import_module(f"twnb.evaluation.{_WHERE[name]}"), name)
