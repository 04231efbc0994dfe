"""The session's plan notebook: the current plan, the plans that ended, and who hears of changes.

As AgentScope's PlanNotebook: a plan ends `done` (its Round finished) or `abandoned` (failed, stopped or
interrupted) and joins the history; `recover(n)` makes an earlier plan current again, and the next
Round continues it; hooks hear of every change (a widget checklist, a tracer); `plan_to_hint` turns the
current plan into a note for the Planner (replace it to phrase the plan your way).

Only a plan carried into a Round (recovered) gives a hint, so Rounds without one send exactly what they
always sent. The history is kept in the conversation itself: each Round's plan as it ended is in
`round.extra["plan"]`, so save, load, autosave and resume keep it; a recovered plan waiting for the
next Round is in the conversation's top-level `twnb_plan_notebook` key (TaskWeaver's reader ignores it).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from twnb.memory import Conversation, Plan, Round

CONVERSATION_KEY = "twnb_plan_notebook"  # conversation top level: {"current": plan dict}

PlanHook = Callable[["PlanNotebook"], None]


def default_plan_to_hint(plan: Plan) -> str:
    """The current plan and each step's state, for the Planner's last user message."""
    lines = [
        "The user chose to continue this earlier plan in this request. Keep its steps and their order, "
        "carry on from the first step that is not done, and say when a step is finished:",
    ]
    for number, subtask in enumerate(plan.subtasks, 1):
        lines.append(f"{number}. {subtask.name} ({subtask.state})")
    return "\n".join(lines)


class PlanNotebook:
    def __init__(self, plan_to_hint: Callable[[Plan], str] = default_plan_to_hint) -> None:
        self.current: Plan | None = None  # a plan waiting to be continued by the next Round
        self.history: list[Plan] = []  # plans that ended, oldest first
        self.plan_to_hint = plan_to_hint
        self._hooks: dict[str, PlanHook] = {}

    # --- hooks ---------------------------------------------------------------------------------------

    def register_plan_change_hook(self, name: str, hook: PlanHook) -> None:
        self._hooks[name] = hook

    def remove_plan_change_hook(self, name: str) -> None:
        self._hooks.pop(name, None)

    def _changed(self) -> None:
        for hook in list(self._hooks.values()):
            hook(self)

    # --- the plan's life -----------------------------------------------------------------------------

    def hint(self, plan: Plan | None) -> str:
        return self.plan_to_hint(plan) if plan is not None and plan.subtasks else ""

    def take_current(self) -> Plan | None:
        """The plan the Round that starts now continues (None: a fresh plan), no longer waiting."""
        plan, self.current = self.current, None
        return plan

    def round_ended(self, round: Round, plan: Plan | None, carried: Plan | None = None) -> None:
        """Record how `round` left its plan: done when it finished, else abandoned (its unfinished
        steps too), into the history and `round.extra`."""
        if plan is None or not plan.subtasks:
            return
        if plan.state not in ("done", "abandoned"):
            if round.state == "finished":
                plan.finish("done", "The Round finished.")
            else:
                for subtask in plan.subtasks:
                    if subtask.state in ("todo", "in_progress"):
                        subtask.state = "abandoned"
                plan.finish(
                    "abandoned", str((round.extra or {}).get("failure_reason") or "The Round failed.")
                )
        round.extra["plan"] = plan.to_dict()
        if carried is not None:
            round.extra["plan_recovered_from"] = carried.id
        self.history.append(plan)
        self._changed()

    def recover(self, number: int) -> Plan:
        """Make the history's plan `number` (1-based, as `%taskweaver plans` lists them) current again:
        the next Round continues it. Raises ValueError with what to do when there is no such plan."""
        if not self.history:
            raise ValueError("There are no earlier plans yet: a plan is kept when its Round ends.")
        if not 1 <= number <= len(self.history):
            raise ValueError(f"No plan {number}: the plans are numbered 1 to {len(self.history)}.")
        plan = Plan.from_dict(copy.deepcopy(self.history[number - 1].to_dict()))
        plan.state, plan.finished_at, plan.outcome = "in_progress", None, None
        for subtask in plan.subtasks:
            if subtask.state == "abandoned":
                subtask.state = "todo"
        self.current = plan
        self._changed()
        return plan

    # --- with the conversation -----------------------------------------------------------------------

    def save_into(self, conversation: Conversation) -> None:
        if self.current is not None:
            conversation.unknown_keys[CONVERSATION_KEY] = {"current": self.current.to_dict()}
        else:
            conversation.unknown_keys.pop(CONVERSATION_KEY, None)

    def load_from(self, conversation: Conversation) -> None:
        """The history and a waiting plan as the conversation holds them (unreadable entries skipped)."""
        self.history = [plan for plan in (_plan(r.extra.get("plan")) for r in conversation.rounds) if plan]
        kept = conversation.unknown_keys.get(CONVERSATION_KEY)
        self.current = _plan(kept.get("current")) if isinstance(kept, dict) else None
        self._changed()

    def reset(self) -> None:
        self.current, self.history = None, []
        self._changed()


def _plan(data: Any) -> Plan | None:
    if not isinstance(data, dict):
        return None
    try:
        return Plan.from_dict(data)
    except ValueError:
        return None
