"""SubTask and Plan: AgentScope's shape, checked states, plain-dict round trips."""

import json
from datetime import datetime, timedelta

import pytest

from twnb.memory import Plan, SubTask


def _subtask(state="todo", name="Load data") -> SubTask:
    return SubTask(
        name=name, description="d", expected_outcome="e", state=state, created_at="2026-01-01 10:00:00.000"
    )


def _plan(*states) -> Plan:
    return Plan(
        name="P",
        description="desc",
        expected_outcome="out",
        subtasks=[_subtask(state, f"Task {i}") for i, state in enumerate(states)],
        created_at="2026-01-01 10:00:00.000",
    )


def test_subtask_defaults():
    subtask = SubTask(name="n", description="d", expected_outcome="e")
    assert (subtask.state, subtask.outcome, subtask.finished_at) == ("todo", None, None)
    assert datetime.fromisoformat(subtask.created_at).utcoffset() == timedelta(0)  # UTC, ISO 8601


def test_subtask_refuses_an_unknown_state():
    with pytest.raises(ValueError, match="'deprecated'"):
        _subtask("deprecated")


def test_subtask_finish_sets_done_outcome_and_time():
    subtask = _subtask("in_progress")
    subtask.finish("42 rows")
    assert (subtask.state, subtask.outcome) == ("done", "42 rows")
    assert subtask.finished_at is not None


@pytest.mark.parametrize(
    ("state", "line"),
    [
        ("todo", "- [ ] Load data"),
        ("done", "- [x] Load data"),
        ("in_progress", "- [ ] [WIP]Load data"),
        ("abandoned", "- [ ] [Abandoned]Load data"),
    ],
)
def test_subtask_to_markdown_markers(state, line):
    assert _subtask(state).to_markdown() == line


@pytest.mark.parametrize(
    ("state", "line"),
    [
        ("todo", "- [] Load data"),
        ("done", "- [x] Load data"),
        ("in_progress", "- [][WIP] Load data"),
        ("abandoned", "- [][Abandoned] Load data"),
    ],
)
def test_subtask_to_oneline_markdown_markers(state, line):
    assert _subtask(state).to_oneline_markdown() == line


def test_subtask_detailed_markdown_lists_fields_tab_indented():
    assert _subtask().to_markdown(detailed=True) == (
        "- [ ] Load data\n\t- Created At: 2026-01-01 10:00:00.000\n\t- Description: d\n"
        "\t- Expected Outcome: e\n\t- State: todo"
    )


def test_done_subtask_detailed_markdown_adds_finish_and_outcome_even_when_none():
    text = _subtask("done").to_markdown(detailed=True)
    assert text.endswith("\t- State: done\n\t- Finished At: None\n\t- Actual Outcome: None")


def test_subtask_dict_round_trip():
    subtask = _subtask("done")
    subtask.outcome = "ok"
    assert SubTask.from_dict(subtask.to_dict()) == subtask


def test_subtask_from_dict_names_a_missing_key():
    with pytest.raises(ValueError, match="'expected_outcome'"):
        SubTask.from_dict({"name": "n", "description": "d"})


def test_plan_defaults():
    plan = _plan("todo")
    assert (plan.state, plan.outcome, plan.finished_at) == ("todo", None, None)
    assert plan.id.startswith("plan-")


def test_refresh_moves_todo_plan_to_in_progress():
    plan = _plan("in_progress", "todo")
    assert plan.refresh_plan_state() == "The plan state has been updated to 'in_progress'."
    assert plan.state == "in_progress"


def test_refresh_moves_in_progress_plan_back_to_todo():
    plan = _plan("todo", "todo")
    plan.state = "in_progress"
    assert plan.refresh_plan_state() == "The plan state has been updated to 'todo'."
    assert plan.state == "todo"


def test_refresh_without_change_returns_empty():
    assert _plan("todo").refresh_plan_state() == ""


@pytest.mark.parametrize("final", ["done", "abandoned"])
def test_refresh_leaves_a_finished_plan_alone(final):
    plan = _plan("in_progress")
    plan.state = final
    assert (plan.refresh_plan_state(), plan.state) == ("", final)


@pytest.mark.parametrize("final", ["done", "abandoned"])
def test_finish_sets_state_outcome_and_time(final):
    plan = _plan("done")
    plan.finish(final, "result")
    assert (plan.state, plan.outcome) == (final, "result")
    assert plan.finished_at is not None


def test_finish_refuses_a_state_that_is_not_final():
    with pytest.raises(ValueError, match="'todo'"):
        _plan("done").finish("todo", "x")  # type: ignore[arg-type]


def test_plan_to_markdown():
    assert _plan("done", "in_progress").to_markdown() == (
        "# P\n**Description**: desc\n**Expected Outcome**: out\n**State**: todo\n"
        "**Created At**: 2026-01-01 10:00:00.000\n## Subtasks\n- [x] Task 0\n- [ ] [WIP]Task 1"
    )


def test_plan_dict_round_trip():
    plan = _plan("done", "in_progress", "todo")
    plan.refresh_plan_state()
    assert Plan.from_dict(plan.to_dict()) == plan


def test_plan_to_dict_is_plain_data():
    plan = _plan("done")
    assert json.loads(json.dumps(plan.to_dict())) == plan.to_dict()


def test_plan_from_dict_refuses_a_bad_state():
    data = _plan("todo").to_dict()
    data["subtasks"][0]["state"] = "finished"
    with pytest.raises(ValueError, match="'finished'"):
        Plan.from_dict(data)


def test_plan_from_dict_needs_a_subtask_list():
    data = _plan("todo").to_dict()
    del data["subtasks"]
    with pytest.raises(ValueError, match="'subtasks'"):
        Plan.from_dict(data)
