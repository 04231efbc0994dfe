"""Deriving plan progress from the Planner's posts, as AgentScope's plan model describes it.

TaskWeaver's Planner restates its plan every turn twice: `init_plan`, the steps as the user thinks of
them (numbered lines, maybe with `<sequentially depends on 1>` annotations), and `plan`, those steps
merged into what one worker does at a time; `current_plan_step` names a step of `plan`. The subtasks
are the `init_plan` steps (the `plan` steps when there is no `init_plan`); each is mapped to the
worker step that carries it out. Steps whose worker step comes before the current one are done, those
of the current one are in progress, the rest are to do (a step done earlier that now comes after the
current one is to be done again); `stop: Completed` finishes everything. When the plan text changes,
steps whose text stayed (compared after normalising) keep their times and outcome, and their state
where the current step does not decide it (no current step named, or a step someone marked abandoned).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, replace

from twnb.base import now_iso
from twnb.memory.attachment import AttachmentType
from twnb.memory.plan import Plan, SubTask
from twnb.memory.post import Post
from twnb.memory.round import Round

_NUMBERED = re.compile(r"^\s*(\d+)\s*[.)]\s*(.*)$")
_BULLET = re.compile(r"^\s*[-*+]\s+")
_ANNOTATION = re.compile(r"\s*<[^<>]*\bdepends on\b[^<>]*>", re.IGNORECASE)
_INTERACTIVE = re.compile(r"<[^<>]*\binteractively depends on\b[^<>]*>", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9_]+")
# Words that say nothing about which step is meant, left out when steps are compared by their words.
_COMMON_WORDS = frozenset(
    ["a", "an", "and", "the", "to", "of", "in", "on", "for", "with", "by", "from", "into", "it", "as", "at"]
)
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


def worker_step_of(user_steps: list[PlanStep], worker_steps: list[PlanStep]) -> list[int]:
    """For each user-level step (`init_plan`), the index of the worker step (`plan`) that carries it.

    The same count maps one to one. Otherwise, as the Planner is told to merge steps, a step that
    depends interactively on an earlier one starts a new worker step; when that does not give the
    worker steps' count, each step goes to the worker step sharing most of its words, never back.
    """
    if len(user_steps) == len(worker_steps) or not worker_steps:
        return list(range(len(user_steps)))
    starts = [i for i, step in enumerate(user_steps) if i == 0 or _INTERACTIVE.search(step.text)]
    if len(starts) == len(worker_steps):
        return [sum(1 for start in starts if start <= i) - 1 for i in range(len(user_steps))]
    worker_words = [_words(step.bare) for step in worker_steps]
    mapping, at = [], 0
    for step in user_steps:
        words = _words(step.bare)
        scores = [len(words & worker_words[j]) / max(1, len(words)) for j in range(at, len(worker_steps))]
        at += max(range(len(scores)), key=lambda k: (scores[k], -k))  # the first of the best
        mapping.append(at)
    return mapping


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower())) - _COMMON_WORDS


def _subtask_for(step: PlanStep, position: int, kept: SubTask | None) -> SubTask:
    subtask = SubTask(
        name=step.bare,
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


def moves_the_plan(post: Post) -> bool:
    """Whether `post` can change the plan: a Planner post that is not a self-correction (one the
    Planner sent to itself to fix an unusable reply)."""
    return post.send_from == "Planner" and post.send_to != "Planner"


def round_plan(round: Round) -> Plan | None:
    """The plan as `round`'s Planner posts left it, by the rule the session follows while the Round
    runs (for Rounds shown again: loaded, exported); None when they planned no step. Times are those
    of this derivation: the Round keeps no plan of its own."""
    plan: Plan | None = None
    for post in round.post_list:
        if moves_the_plan(post):
            plan = derive_plan(plan, post, user_query=round.user_query)
    return plan if plan is not None and plan.subtasks else None


def derive_plan(previous: Plan | None, post: Post, *, user_query: str | None = None) -> Plan:
    """The plan after `post` (a Planner post), built from `previous` without changing it.

    Reads the post's `init_plan` (or `plan` when there is no `init_plan`), `plan`, `current_plan_step`
    and `stop`.
    A post without a plan carries `previous` forward (an empty plan when there is none). A previous
    plan that is finished, or shares no step with the new text, is replaced by a new Plan (new id).
    `user_query`, when given, names and describes the plan.
    """
    user_text = _first_content(post, AttachmentType.init_plan)
    worker_text = _first_content(post, AttachmentType.plan)
    plan_text = user_text if user_text is not None else worker_text
    current_text = _first_content(post, AttachmentType.current_plan_step) or ""
    stop = (_first_content(post, AttachmentType.stop) or "").strip().lower()

    live_previous = previous if previous is not None and previous.state not in ("done", "abandoned") else None
    if plan_text is None:
        plan = _copy(live_previous) if live_previous is not None else _new_plan([], user_query, post)
        # A current step without a restated plan is looked up in the plan carried forward.
        steps = [_step_of(subtask, i) for i, subtask in enumerate(plan.subtasks)]
        worker_steps = steps
    else:
        steps = parse_steps(plan_text)
        worker_steps = parse_steps(worker_text) if worker_text is not None else steps
        old_subtasks = live_previous.subtasks if live_previous is not None else []
        old = {normalise(subtask.description): subtask for subtask in old_subtasks}
        kept = [old.get(normalise(step.text)) for step in steps]
        subtasks = [
            _subtask_for(step, i, match) for i, (step, match) in enumerate(zip(steps, kept, strict=True))
        ]
        if live_previous is not None and any(match is not None for match in kept):
            plan = _copy(live_previous, subtasks)
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

    current = find_current_step(worker_steps, current_text)
    if current is not None:
        carried_by = worker_step_of(steps, worker_steps)
        for subtask, worker in zip(plan.subtasks, carried_by, strict=True):
            if subtask.state == "abandoned" and worker != current:
                continue  # only an explicit decision abandons a step; progress never undoes it
            if worker < current:
                _mark_done(subtask)
            elif worker == current:
                subtask.state = "in_progress"
                subtask.finished_at = None
            else:
                subtask.state = "todo"
                subtask.finished_at = None
    plan.refresh_plan_state()
    return plan


def _copy(plan: Plan, subtasks: list[SubTask] | None = None) -> Plan:
    """`plan` to change without changing it, with `subtasks` (else copies of its own). Every other field
    of a plan and a subtask is text or None, so nothing deeper is copied (a deep copy cost most of a
    derivation, and an export derives every Round's plan)."""
    if subtasks is None:
        subtasks = [replace(subtask) for subtask in plan.subtasks]
    return replace(plan, subtasks=subtasks)


def _step_of(subtask: SubTask, index: int) -> PlanStep:
    return PlanStep(index + 1, subtask.description, strip_annotations(subtask.description))


def _new_plan(subtasks: list[SubTask], user_query: str | None, post: Post) -> Plan:
    return Plan(
        name=short_name(user_query) if user_query else "Plan",
        description=user_query if user_query else post.message,
        expected_outcome=EXPECTED_OUTCOME,
        subtasks=subtasks,
    )
