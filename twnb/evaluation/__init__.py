"""evaluation layer: `twnb eval`, TaskWeaver's evaluation cases run against any model, as notebooks.

- `find_cases(paths)`, `read_case(path)`: TaskWeaver's case YAML, unchanged (case_file.py).
- `run_evaluation(EvalOptions(...))`: every case against every model in a fresh kernel each, a virtual
  user driving `%%taskweaver` Rounds, the evaluator and `eval_code` scoring them; `results.csv`,
  `report.md`, `report.html` (batch.py).
- `add_eval_parser`, `run_eval_command`: `twnb eval` on the command line (command.py).
- `chat_messages`: the chat history `eval_code` reads (importable alone, by the code's own process).

See docs/architecture.md ("Evaluation"). Importing this package is cheap: its parts load when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_exports

if TYPE_CHECKING:
    from twnb.evaluation.batch import EvalError, EvalOptions, EvalOutcome, run_evaluation
    from twnb.evaluation.case_file import CaseError, EvalCase, ScoringPoint, find_cases, read_case
    from twnb.evaluation.case_result import CaseResult
    from twnb.evaluation.command import add_eval_parser, run_eval_command

__all__ = [
    "CaseError",
    "CaseResult",
    "EvalCase",
    "EvalError",
    "EvalOptions",
    "EvalOutcome",
    "ScoringPoint",
    "add_eval_parser",
    "find_cases",
    "read_case",
    "run_eval_command",
    "run_evaluation",
]

if not TYPE_CHECKING:  # the type checker reads the imports above, and a name not there is an error
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
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
            "add_eval_parser": "command",
            "run_eval_command": "command",
        },
    )
