"""AgentScope's plan model (`SubTask`, `Plan`) as plain dataclasses.

Differences from AgentScope, each a fix its notes propose: states are checked (a bad one is a
ValueError, not silently kept), `Plan.finish` accepts only `done` or `abandoned`, and both convert
to and from plain dicts (they travel inside the Round's MIME bundle). Times are twnb's: UTC, ISO 8601
(AgentScope writes local time).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from twnb.base import create_id, now_iso

TaskState = Literal["todo", "in_progress", "done", "abandoned"]
TASK_STATES: tuple[str, ...] = get_args(TaskState)

_MARKERS = {
    "todo": "- [ ] ",
    "in_progress": "- [ ] [WIP]",
    "done": "- [x] ",
    "abandoned": "- [ ] [Abandoned]",
}
_ONELINE_MARKERS = {
    "todo": "- []",
    "in_progress": "- [][WIP]",
    "done": "- [x]",
    "abandoned": "- [][Abandoned]",
}


def _check_state(state: str, what: str) -> None:
    if state not in TASK_STATES:
        raise ValueError(f"{what} state {state!r} is not one of: {', '.join(TASK_STATES)}")


def _text(content: Mapping[str, Any], key: str, what: str, *, optional: bool = False) -> Any:
    if key not in content:
        if optional:
            return None
        raise ValueError(f"{what}: missing required key '{key}'")
    value = content[key]
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{what}: key '{key}' must be text, got {type(value).__name__}")
    return value


@dataclass
class SubTask:
    name: str
    description: str
    expected_outcome: str
    outcome: str | None = None
    state: TaskState = "todo"
    created_at: str = field(default_factory=now_iso)
    finished_at: str | None = None

    def __post_init__(self) -> None:
        _check_state(self.state, f"subtask {self.name!r}")

    def finish(self, outcome: str | None) -> None:
        self.state = "done"
        self.outcome = outcome
        self.finished_at = now_iso()

    def to_oneline_markdown(self) -> str:
        return f"{_ONELINE_MARKERS[self.state]} {self.name}"

    def to_markdown(self, detailed: bool = False) -> str:
        head = f"{_MARKERS[self.state]}{self.name}"
        if not detailed:
            return head
        lines = [
            head,
            f"\t- Created At: {self.created_at}",
            f"\t- Description: {self.description}",
            f"\t- Expected Outcome: {self.expected_outcome}",
            f"\t- State: {self.state}",
        ]
        if self.state == "done":
            lines += [f"\t- Finished At: {self.finished_at}", f"\t- Actual Outcome: {self.outcome}"]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "expected_outcome": self.expected_outcome,
            "outcome": self.outcome,
            "state": self.state,
            "created_at": self.created_at,
            "finished_at": self.finished_at,
        }

    @staticmethod
    def from_dict(content: Mapping[str, Any]) -> SubTask:
        what = "subtask"
        if not isinstance(content, Mapping):
            raise ValueError(f"{what}: expected a mapping, got {type(content).__name__}")
        state = _text(content, "state", what, optional=True) or "todo"
        _check_state(state, what)
        return SubTask(
            name=_text(content, "name", what),
            description=_text(content, "description", what),
            expected_outcome=_text(content, "expected_outcome", what),
            outcome=_text(content, "outcome", what, optional=True),
            state=state,  # type: ignore[arg-type]
            created_at=_text(content, "created_at", what, optional=True) or now_iso(),
            finished_at=_text(content, "finished_at", what, optional=True),
        )


@dataclass
class Plan:
    name: str
    description: str
    expected_outcome: str
    subtasks: list[SubTask]
    id: str = field(default_factory=lambda: "plan-" + create_id())
    created_at: str = field(default_factory=now_iso)
    state: TaskState = "todo"
    finished_at: str | None = None
    outcome: str | None = None

    def __post_init__(self) -> None:
        _check_state(self.state, f"plan {self.name!r}")

    def refresh_plan_state(self) -> str:
        """Move the plan between todo and in_progress to match its subtasks (as AgentScope); a done or
        abandoned plan is left alone. Returns a note when the state changed, else ""."""
        if self.state in ("done", "abandoned"):
            return ""
        any_in_progress = any(subtask.state == "in_progress" for subtask in self.subtasks)
        if any_in_progress and self.state == "todo":
            self.state = "in_progress"
            return "The plan state has been updated to 'in_progress'."
        if not any_in_progress and self.state == "in_progress":
            self.state = "todo"
            return "The plan state has been updated to 'todo'."
        return ""

    def finish(self, state: Literal["done", "abandoned"], outcome: str | None) -> None:
        if state not in ("done", "abandoned"):
            raise ValueError(f"a plan finishes as 'done' or 'abandoned', not {state!r}")
        self.state = state
        self.outcome = outcome
        self.finished_at = now_iso()

    def to_markdown(self, detailed: bool = False) -> str:
        return "\n".join(
            [
                f"# {self.name}",
                f"**Description**: {self.description}",
                f"**Expected Outcome**: {self.expected_outcome}",
                f"**State**: {self.state}",
                f"**Created At**: {self.created_at}",
                "## Subtasks",
                "\n".join(subtask.to_markdown(detailed=detailed) for subtask in self.subtasks),
            ]
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "expected_outcome": self.expected_outcome,
            "subtasks": [subtask.to_dict() for subtask in self.subtasks],
            "created_at": self.created_at,
            "state": self.state,
            "finished_at": self.finished_at,
            "outcome": self.outcome,
        }

    @staticmethod
    def from_dict(content: Mapping[str, Any]) -> Plan:
        what = "plan"
        if not isinstance(content, Mapping):
            raise ValueError(f"{what}: expected a mapping, got {type(content).__name__}")
        subtasks = content.get("subtasks")
        if not isinstance(subtasks, list):
            raise ValueError(f"{what}: key 'subtasks' must be a list, got {type(subtasks).__name__}")
        state = _text(content, "state", what, optional=True) or "todo"
        _check_state(state, what)
        return Plan(
            id=_text(content, "id", what, optional=True) or "plan-" + create_id(),
            name=_text(content, "name", what),
            description=_text(content, "description", what),
            expected_outcome=_text(content, "expected_outcome", what),
            subtasks=[SubTask.from_dict(item) for item in subtasks],
            created_at=_text(content, "created_at", what, optional=True) or now_iso(),
            state=state,  # type: ignore[arg-type]
            finished_at=_text(content, "finished_at", what, optional=True),
            outcome=_text(content, "outcome", what, optional=True),
        )
