"""Risky step mode's check of each piece of code: graded before it runs, confirmed after.

Before: verification's grades (twnb/roles/risk_grades.py) for the code in the notebook's folder, with
the live namespace, the names this Round's earlier code made, and the undo budget; step mode pauses on
any finding. After: what the runtime guard saw the code do (files overwritten or deleted that existed,
files written outside the notebook's folder, the working folder or the environment changed, the
network reached) and the variable delta (a variable the Round did not make, changed in place), less
what the grades predicted: those are recorded in the post (`extra["risk"]["unpredicted"]`) and shown
with the Round, because they are where verification's reading of the code fell short.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twnb.kernel import ExecutionResult
from twnb.roles import GRADES_BY_KEY, RiskFinding, RiskPlace, grade_code


@dataclass
class RiskCheck:
    """Grades code for the executor's folder. `namespace` gives the live namespace (None: it lives in
    another process), `hidden` the names in it that are not the user's."""

    folder: Path
    artifacts: Path | None = None
    namespace: Callable[[], Mapping[str, Any]] | None = None
    hidden: Callable[[], Collection[str]] | None = None
    undo_budget_mb: float | None = None

    def grade(self, code: str, round_names: Collection[str]) -> list[RiskFinding]:
        """Why risky mode should pause before `code` runs (nothing: it may run without asking). A fault
        in grading pauses, saying so: never run unasked what could not be graded."""
        place = RiskPlace(
            self.folder,
            self.artifacts,
            self.namespace() if self.namespace is not None else None,
            round_names,
            self.undo_budget_mb if self.undo_budget_mb else None,
            self.hidden() if self.hidden is not None else (),
        )
        try:
            return grade_code(code, place)
        except Exception as error:
            return [
                RiskFinding("unfollowed", "", 0, f"grading the code failed ({type(error).__name__}: {error})")
            ]

    def unpredicted(
        self, findings: list[RiskFinding], result: ExecutionResult, round_names: Collection[str]
    ) -> list[str]:
        """What the run did that the grades did not predict, one line each."""
        predicted = {
            (f.key, self._absolute(f.subject) if _is_file_grade(f.key) else f.subject) for f in findings
        }
        kinds = {f.key for f in findings}
        unknown_paths = {f.key for f in findings if _is_file_grade(f.key) and not f.subject}
        lines: list[str] = []
        for sighting in result.sightings:
            key, subject = sighting.get("kind", ""), sighting.get("subject", "")
            if key not in GRADES_BY_KEY:
                continue
            if key in unknown_paths:
                continue  # verification said it could not tell the path: this is that write
            if _is_file_grade(key):
                if (key, self._absolute(subject)) in predicted or any(
                    k == key and s and self._absolute(subject).startswith(s.rstrip(os.sep) + os.sep)
                    for k, s in predicted
                ):
                    continue
            elif key in kinds:
                continue
            lines.append(
                f"{GRADES_BY_KEY[key].the_code}: {self._shown(subject) if _is_file_grade(key) else subject}"
            )
        for change in result.variables:
            if (
                change.kind == "changed"
                and change.name not in round_names
                and ("in_place", change.name) not in predicted
            ):
                lines.append(f"{GRADES_BY_KEY['in_place'].the_code}: `{change.name}`")
        return list(dict.fromkeys(lines))

    def _absolute(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.folder, os.path.expanduser(path))) if path else ""

    def _shown(self, path: str) -> str:
        folder = os.path.normpath(self.folder)
        return os.path.relpath(path, folder) if path.startswith(folder.rstrip(os.sep) + os.sep) else path


def _is_file_grade(key: str) -> bool:
    return key in ("overwrite", "delete", "outside")
