"""What one run is: a case, the agent's, virtual user's and evaluator's models, which repeat, and
the run's folder under the output folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from twnb.evaluation.case_file import EvalCase

__all__ = ["CaseRun"]


@dataclass(frozen=True)
class CaseRun:
    """What to run: a case, the three models, which repeat, and where (relative to the output folder)."""

    case: EvalCase
    model: str
    user_model: str
    evaluator_model: str
    run: int
    relative: Path

    @property
    def label(self) -> str:
        suffix = f" (run {self.run})" if self.run > 1 else ""
        return f"{self.model} · {self.case.name}{suffix}"
