"""The session's plan notebook: the plan in force, the plans that ended, and who hears of changes.

As AgentScope's PlanNotebook. `current` is the plan in force: while a Round runs, that Round's plan,
which the session replaces (`update`) whenever a Planner post moves it or the user edits it in step
mode; between Rounds, an earlier plan made current again with `recover(n)`, which the next Round
continues (`start_round`). When the Round ends its plan ends with it, `done` (the Round finished) or
`abandoned` (failed, stopped or interrupted, with its unfinished steps), and joins the history.
`plan_to_hint` turns a continued plan into a note for the Planner (replace it to phrase the plan your
way); only a continued plan gives a hint, so Rounds without one send exactly what they always sent.

Hooks are how anything follows the plan: `register_plan_change_hook(name, hook)` (a name registered
again replaces its hook), `remove_plan_change_hook(name)`. After every change `hook(notebook, plan)` is
called with the plan that changed, as it now stands: the Round's new plan, the plan a Round ended with
(`current` is None by then), a recovered plan, the plan loaded, or None when the notebook was emptied.
A Planner post that restates the plan unchanged calls no hook, and a hook that raises is logged and
skipped: a subscriber never breaks a Round.

Hooks and events: a Round reports its progress (posts, streamed text, code runs, LLM calls) as events
to the observers its driver was given, and says nothing there about the plan. The plan is the
notebook's state and outlives a Round (recovered between Rounds, loaded, reset), so its subscribers
register here for as long as they care: the live widget's checklist for the Round it shows (the
notebook layer adds its hook when the Round's view is made and removes it in a `finally` when the Round
ends), the tracer for the Round it traces (removed at the Round's end). docs/architecture.md says the same.

The history is kept in the conversation itself: each Round's plan as it ended is in
`round.extra["plan"]`, so save, load, autosave and resume keep it; a recovered plan waiting for the
next Round is in the conversation's top-level `twnb_plan_notebook` key (TaskWeaver's reader ignores
it), which the session writes when it saves and when it autosaves.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from twnb.base import get_logger
from twnb.memory import Conversation, Plan, Round

logger = get_logger(__name__)

CONVERSATION_KEY = "twnb_plan_notebook"  # conversation top level: {"current": plan dict}

PlanHook = Callable[["PlanNotebook", Plan | None], None]


def default_plan_to_hint(plan: Plan) -> str:
    """The current plan and each step's state, for the Planner's last user message."""
    lines = [
        "The user chose to continue this earlier plan in this request. Keep its steps and their order, "
        "carry on from the first step that is not done, and say when a step is finished:",
    ]
    for number, subtask in enumerate(plan.subtasks, 1):
        lines.append(f"{number}. {subtask.name} ({subtask.state})")
    return "\n".join(lines)


def recorded_plan(round: Round) -> Plan | None:
    """The plan `round` ended with, as the plan notebook recorded it (None: none was, or unreadable)."""
    return _plan(round.extra.get("plan"))


class PlanNotebook:
    def __init__(self, plan_to_hint: Callable[[Plan], str] = default_plan_to_hint) -> None:
        self.current: Plan | None = None  # the running Round's plan, or one the next Round continues
        self.history: list[Plan] = []  # plans that ended, oldest first
        self.carried: Plan | None = None  # the plan the running Round continues, for the hint
        self.in_round = False
        self.plan_to_hint = plan_to_hint
        self._hooks: dict[str, PlanHook] = {}

    # --- hooks ---------------------------------------------------------------------------------------

    def register_plan_change_hook(self, name: str, hook: PlanHook) -> None:
        self._hooks[name] = hook

    def remove_plan_change_hook(self, name: str) -> None:
        self._hooks.pop(name, None)

    @property
    def plan_change_hooks(self) -> tuple[str, ...]:
        """The names of the hooks registered now, in the order they are called."""
        return tuple(self._hooks)

    def _changed(self, plan: Plan | None) -> None:
        for name, hook in list(self._hooks.items()):
            try:
                hook(self, plan)
            except Exception:
                logger.exception("plan change hook %r failed; the plan notebook goes on", name)

    # --- the plan's life -----------------------------------------------------------------------------

    @property
    def waiting(self) -> Plan | None:
        """The plan the next Round continues (recovered or loaded); None while a Round runs."""
        return None if self.in_round else self.current

    def hint(self, plan: Plan | None) -> str:
        return self.plan_to_hint(plan) if plan is not None and plan.subtasks else ""

    def start_round(self) -> Plan | None:
        """A Round starts: it continues the waiting plan, if any (returned), which is now its plan."""
        self.in_round = True
        self.carried = self.current
        return self.carried

    def update(self, plan: Plan) -> None:
        """The running Round's plan is now `plan` (a Planner post moved it, or the user edited it); the
        hooks hear of it when it differs from the plan it replaces."""
        previous, self.current = self.current, plan
        if _seen_by_hooks(previous) != _seen_by_hooks(plan):
            self._changed(plan)

    def round_ended(self, round: Round) -> None:
        """The running Round ended: its plan ends with it (done when the Round finished, else abandoned
        with its unfinished steps) into the history and `round.extra`; nothing is current after."""
        plan, carried = self.current, self.carried
        self.current, self.carried, self.in_round = None, None, False
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
        self._changed(plan)

    def recover(self, number: int) -> Plan:
        """Make the history's plan `number` (1-based, as `%taskweaver plans` lists them) current again:
        the next Round continues it. Raises ValueError with what to do when there is no such plan."""
        if self.in_round:
            raise ValueError("A Round is running: recover a plan once it has ended.")
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
        self._changed(plan)
        return plan

    # --- with the conversation -----------------------------------------------------------------------

    def save_into(self, conversation: Conversation) -> None:
        """Write the waiting plan into `conversation`'s top-level key (or take the key out: a running
        Round's plan is recorded with the Round when it ends, never as one to continue)."""
        if self.waiting is not None:
            conversation.unknown_keys[CONVERSATION_KEY] = {"current": self.waiting.to_dict()}
        else:
            conversation.unknown_keys.pop(CONVERSATION_KEY, None)

    def load_from(self, conversation: Conversation) -> None:
        """The history and a waiting plan as the conversation holds them (unreadable entries skipped)."""
        self.history = [plan for plan in (recorded_plan(r) for r in conversation.rounds) if plan]
        kept = conversation.unknown_keys.get(CONVERSATION_KEY)
        self.current = _plan(kept.get("current")) if isinstance(kept, dict) else None
        self.carried, self.in_round = None, False
        self._changed(self.current)

    def reset(self) -> None:
        self.current, self.history, self.carried, self.in_round = None, [], None, False
        self._changed(None)


def _seen_by_hooks(plan: Plan | None) -> dict[str, Any] | None:
    """What tells two plans apart for the hooks (a plan without steps is no plan yet)."""
    return plan.to_dict() if plan is not None and plan.subtasks else None


def _plan(data: Any) -> Plan | None:
    if not isinstance(data, dict):
        return None
    try:
        return Plan.from_dict(data)
    except ValueError:
        return None
