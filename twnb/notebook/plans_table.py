"""`%taskweaver plans`: the plan notebook's history (and a plan waiting to be continued) as a table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.notebook.history_table import table_bundle
from twnb.render import plain_text, shorten

if TYPE_CHECKING:
    from twnb.memory import Plan
    from twnb.session import PlanNotebook

NO_PLANS = (
    "No plans yet: a Round's plan is kept here when the Round ends (%taskweaver load brings back a "
    "saved conversation's plans)."
)
_COLUMNS = ("#", "state", "steps done", "steps", "ended")
_STEPS_CHARS = 90


def plans_bundle(plans: PlanNotebook) -> dict[str, str]:
    rows = [_row(str(number), plan) for number, plan in enumerate(plans.history, start=1)]
    if plans.waiting is not None:
        rows.append(_row("next", plans.waiting, "continued by the next Round"))
    if not rows:
        return {"text/plain": NO_PLANS, "text/markdown": NO_PLANS}
    bundle = table_bundle(_COLUMNS, rows)
    note = "\n\n%taskweaver plans recover N makes plan N current again: the next Round continues it."
    return {kind: text + note for kind, text in bundle.items()}


def _row(number: str, plan: Plan, ended: str | None = None) -> tuple[str, ...]:
    done = sum(1 for subtask in plan.subtasks if subtask.state == "done")
    steps = "; ".join(plain_text(subtask.name) for subtask in plan.subtasks)
    return (
        number,
        plan.state,
        f"{done}/{len(plan.subtasks)}",
        shorten(" ".join(steps.split()), _STEPS_CHARS),
        ended or (plan.finished_at or "-"),
    )
