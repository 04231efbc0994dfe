"""Deriving plan progress from the Planner's posts into AgentScope's plan model.

TaskWeaver's Planner restates its whole plan every turn (`plan`, numbered lines, maybe with
`<sequentially depends on 1>` annotations) and names the step it is on (`current_plan_step`). Steps
before the current one are done, the current one is in progress, the rest are to do (a step done
earlier that now comes after the current one is to be done again); `stop: Completed` finishes
everything. When the plan text changes, steps whose text stayed (compared after normalising) keep
their times and outcome, and their state where the current step does not decide it (no current
step named, or a step someone marked abandoned).
"""

from __future__ import annotations

import copy
import difflib
import re
from dataclasses import dataclass

from twnb.memory.attachment import AttachmentType
from twnb.memory.clock import now_iso
from twnb.memory.plan import Plan, SubTask
from twnb.memory.post import Post

_NUMBERED = re.compile(r"^\s*(\d+)\s*[.)]\s*(.*)$")
_BULLET = re.compile(r"^\s*[-*+]\s+")
_ANNOTATION = re.compile(r"\s*<[^<>]*\bdepends on\b[^<>]*>", re.IGNORECASE)
_NAME_WORDS = 10
_FUZZY_THRESHOLD = 0.6
EXPECTED_OUTCOME = "Answer the user's request"


@dataclass(frozen=True)
class PlanStep:
    """One line of a plan: its number (if written), its text, the text without annotations."""

    number: int | None
    text: str
    bare: str


def strip_annotations(text: str) -> str:
    return _ANNOTATION.sub("", text).strip()


def normalise(text: str) -> str:
    """For matching steps across turns: no numbering, annotations, case, spacing or end punctuation."""
    match = _NUMBERED.match(text)
    if match:
        text = match.group(2)
    return " ".join(strip_annotations(text).lower().split()).rstrip(".;:!")


def parse_steps(text: str) -> list[PlanStep]:
    """Numbered lines (`1. ...` or `1) ...`); an unnumbered line continues the step above it.

    Text with no numbered line at all gives one step per non-empty line (bullets removed).
    """
    lines = [line for line in text.splitlines() if line.strip()]
    if not any(_NUMBERED.match(line) for line in lines):
        steps = [_BULLET.sub("", line).strip() for line in lines]
        return [PlanStep(None, step, strip_annotations(step)) for step in steps]
    numbers: list[int | None] = []
    texts: list[str] = []
    for line in lines:
        match = _NUMBERED.match(line)
        if match:
            numbers.append(int(match.group(1)))
            texts.append(match.group(2).strip())
        elif texts:
            texts[-1] = f"{texts[-1]} {line.strip()}"
    return [
        PlanStep(number, text, strip_annotations(text)) for number, text in zip(numbers, texts, strict=True)
    ]


def short_name(text: str, words: int = _NAME_WORDS) -> str:
    parts = text.split()
    return " ".join(parts) if len(parts) <= words else " ".join(parts[:words]) + " …"


def find_current_step(steps: list[PlanStep], current: str) -> int | None:
    """Index of the step `current` names: its leading number, else the same text, else the closest."""
    if not steps or not current.strip():
        return None
    match = _NUMBERED.match(current.strip().splitlines()[0])
    if match:
        number = int(match.group(1))
        for index, step in enumerate(steps):
            if step.number == number:
                return index
        if 1 <= number <= len(steps):
            return number - 1
    wanted = normalise(current)
    keys = [normalise(step.text) for step in steps]
    if wanted in keys:
        return keys.index(wanted)
    best, best_ratio = None, _FUZZY_THRESHOLD
    for index, key in enumerate(keys):
        ratio = difflib.SequenceMatcher(None, wanted, key).ratio()
        if ratio >= best_ratio:
            best, best_ratio = index, ratio
    return best


def _first_content(post: Post, type: AttachmentType) -> str | None:
    for attachment in post.attachment_list:
        if attachment.type is type and isinstance(attachment.content, str):
            return attachment.content
    return None


def _subtask_for(step: PlanStep, position: int, kept: SubTask | None) -> SubTask:
    subtask = SubTask(
        name=short_name(step.bare),
        description=step.text,
        expected_outcome=f"Step {position + 1} completed",
    )
    if kept is not None:
        subtask.state = kept.state
        subtask.outcome = kept.outcome
        subtask.created_at = kept.created_at
        subtask.finished_at = kept.finished_at
    return subtask


def _mark_done(subtask: SubTask) -> None:
    if subtask.state != "done":
        subtask.state = "done"
        subtask.finished_at = now_iso()


def derive_plan(previous: Plan | None, post: Post, *, user_query: str | None = None) -> Plan:
    """The plan after `post` (a Planner post), built from `previous` without changing it.

    Reads the post's `plan` (or `init_plan` when there is no `plan`), `current_plan_step` and `stop`.
    A post without a plan carries `previous` forward (an empty plan when there is none). A previous
    plan that is finished, or shares no step with the new text, is replaced by a new Plan (new id).
    `user_query`, when given, names and describes the plan.
    """
    plan_text = _first_content(post, AttachmentType.plan)
    if plan_text is None:
        plan_text = _first_content(post, AttachmentType.init_plan)
    current_text = _first_content(post, AttachmentType.current_plan_step) or ""
    stop = (_first_content(post, AttachmentType.stop) or "").strip().lower()

    live_previous = previous if previous is not None and previous.state not in ("done", "abandoned") else None
    if plan_text is None:
        plan = copy.deepcopy(live_previous) if live_previous is not None else _new_plan([], user_query, post)
        # A current step without a restated plan is looked up in the plan carried forward.
        steps = [_step_of(subtask, i) for i, subtask in enumerate(plan.subtasks)]
    else:
        steps = parse_steps(plan_text)
        old_subtasks = live_previous.subtasks if live_previous is not None else []
        old = {normalise(subtask.description): subtask for subtask in old_subtasks}
        kept = [old.get(normalise(step.text)) for step in steps]
        subtasks = [
            _subtask_for(step, i, match) for i, (step, match) in enumerate(zip(steps, kept, strict=True))
        ]
        if live_previous is not None and any(match is not None for match in kept):
            plan = copy.deepcopy(live_previous)
            plan.subtasks = subtasks
            if user_query:
                plan.name, plan.description = short_name(user_query), user_query
        else:
            plan = _new_plan(subtasks, user_query, post)

    if stop == "completed":
        for subtask in plan.subtasks:
            if subtask.state != "abandoned":
                _mark_done(subtask)
        plan.finish("done", post.message)
        return plan

    current = find_current_step(steps, current_text)
    if current is not None:
        for index, subtask in enumerate(plan.subtasks):
            if subtask.state == "abandoned" and index != current:
                continue  # only an explicit decision abandons a step; progress never undoes it
            if index < current:
                _mark_done(subtask)
            elif index == current:
                subtask.state = "in_progress"
                subtask.finished_at = None
            else:
                subtask.state = "todo"
                subtask.finished_at = None
    plan.refresh_plan_state()
    return plan


def _step_of(subtask: SubTask, index: int) -> PlanStep:
    return PlanStep(index + 1, subtask.description, strip_annotations(subtask.description))


def _new_plan(subtasks: list[SubTask], user_query: str | None, post: Post) -> Plan:
    return Plan(
        name=short_name(user_query) if user_query else "Plan",
        description=user_query if user_query else post.message,
        expected_outcome=EXPECTED_OUTCOME,
        subtasks=subtasks,
    )
