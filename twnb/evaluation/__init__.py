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

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.evaluation.batch import EvalError as EvalError
    from twnb.evaluation.batch import EvalOptions as EvalOptions
    from twnb.evaluation.batch import EvalOutcome as EvalOutcome
    from twnb.evaluation.batch import run_evaluation as run_evaluation
    from twnb.evaluation.case_file import CaseError as CaseError
    from twnb.evaluation.case_file import EvalCase as EvalCase
    from twnb.evaluation.case_file import ScoringPoint as ScoringPoint
    from twnb.evaluation.case_file import find_cases as find_cases
    from twnb.evaluation.case_file import read_case as read_case
    from twnb.evaluation.case_result import CaseResult as CaseResult
    from twnb.evaluation.command import add_eval_parser as add_eval_parser
    from twnb.evaluation.command import run_eval_command as run_eval_command
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
