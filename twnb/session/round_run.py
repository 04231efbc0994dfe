"""One running Round's own state: what the session's Round driver keeps while a Round runs and drops when
the next one starts (the session keeps the conversation, not the Round's flags).

A `RoundRun` holds the Round being recorded, its place in the conversation, the observers of its events,
whether its code is graded (risky step mode) and whether a person decides each piece of code (step mode:
waits for the user go in the ledger), the variables its code created or rebound, the grades of the
user's edits, each run's span, and the code posts whose result has not come back yet.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from twnb.memory import Observer, Post, RiskRecord, Round, StatusChanged
from twnb.roles import RiskFinding

if TYPE_CHECKING:
    from twnb.kernel import ExecutionResult
    from twnb.session.code_request import CodeRequest
    from twnb.session.risk_check import RiskCheck

MIN_WAIT_S = 0.01  # a wait for the user shorter than this is the session's own work


@dataclass
class RoundRun:
    """The Round `round` (number `index` in the conversation) while it runs. `risk` grades its code when
    `grading`; `redact` is the session's one redactor's text function."""

    round: Round
    index: int
    watcher: Observer
    redact: Callable[[str], str]
    risk: RiskCheck | None = None
    grading: bool = False
    waits_for_user: bool = False
    names: set[str] = field(default_factory=set)  # the variables this Round's code created or rebound
    # Risky step mode: the grades of the user's edit of a piece of code, taken just before it ran
    # (what the guard saw is compared with them, not with the model's code's), by post id.
    edit_grades: dict[str, list[RiskFinding]] = field(default_factory=dict)
    run_spans: dict[str, tuple[float, float]] = field(default_factory=dict)  # each run's perf_counter span
    # The code posts whose result has not come back yet: whatever ends the Round while one waits (close()
    # raises a fresh GeneratorExit in the caller, so the error cannot carry it) finds it here and keeps it.
    waiting: list[Post] = field(default_factory=list)

    def grade(self, request: CodeRequest) -> list[RiskFinding] | None:
        """Risky step mode: the request's reasons to wait for the user (None when not grading)."""
        if not self.grading:
            return None
        if self.risk is None:
            findings = [RiskFinding("unfollowed", "", 0, "this session cannot grade code (no risk check)")]
        else:
            findings = self.risk.grade(request.code, self.names)
        request.risks = [self.redact(finding.reason) for finding in findings]
        return findings

    def grade_edit(self, post_id: str, code: str) -> None:
        """The grades of the user's edit of post `post_id`'s code, taken just before it runs."""
        if self.grading and self.risk is not None:
            self.edit_grades[post_id] = self.risk.grade(code, self.names)

    def paused_for(self, post: Post, findings: list[RiskFinding] | None) -> None:
        if findings is not None:
            post.extra["risk"] = {"paused_for": [self.redact(f.reason) for f in findings]}

    def record_risk(self, post: Post, findings: list[RiskFinding] | None, result: ExecutionResult) -> None:
        """What grading said, and what the guard saw that it did not predict, in the post; the names
        the run created or rebound are the Round's from now on."""
        self.names.update(v.name for v in result.variables if v.kind in ("created", "rebound"))
        if findings is None or self.risk is None:
            return
        unpredicted = self.risk.unpredicted(findings, result, self.names)
        if unpredicted:
            record: RiskRecord = post.extra.setdefault("risk", {})
            record["unpredicted"] = [self.redact(line) for line in unpredicted]

    def ran(self, post_id: str, started: float) -> None:
        """Post `post_id`'s code ran from `started` until now (perf_counter)."""
        self.run_spans[post_id] = (started, time.perf_counter())

    def waits(self, post_id: str, asked: float, answered: float) -> tuple[float, float]:
        """Step mode: how long the code waited for the user before its run (all the time since it was
        asked for, when it never ran) and after it, until the decision came back. Under 10 ms is the
        session's own work, not a person's wait: 0."""
        span = self.run_spans.pop(post_id, None)
        if not self.waits_for_user:
            return 0.0, 0.0
        before, after = (answered - asked, 0.0) if span is None else (span[0] - asked, answered - span[1])
        return _wait_s(before), _wait_s(after)

    def trust_notes(self, lines: list[str], watcher: Observer | None = None) -> None:
        """What twnb did about what it trusts in this Round (settings put back, files it would not
        load or loaded anew), recorded in the Round (`trust_notes`) and said as a status."""
        if not lines:
            return
        said = [self.redact(line) for line in lines]
        self.round.extra.setdefault("trust_notes", []).extend(said)
        if watcher is not None:
            for line in said:
                watcher.on_event(StatusChanged(line))


def _wait_s(seconds: float) -> float:
    return round(seconds, 3) if seconds >= MIN_WAIT_S else 0.0
