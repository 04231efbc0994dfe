"""derive_plan: plan progress from a Planner post's plan, current_plan_step and stop."""

from dataclasses import fields
from pathlib import Path

from twnb.memory import (
    Attachment,
    AttachmentType,
    Conversation,
    Plan,
    Post,
    Round,
    SubTask,
    derive_plan,
    round_plan,
)

PLAN = (
    "1. Load the data file\n2. Count the rows <sequentially depends on 1>\n3. Report the result to the user"
)


def _planner_post(plan=PLAN, current="1. Load the data file", stop="InProcess", init_plan=None) -> Post:
    post = Post.create("working on it", "Planner", "CodeInterpreter")
    if init_plan is not None:
        post.add_attachment(Attachment.create(AttachmentType.init_plan, init_plan))
    if plan is not None:
        post.add_attachment(Attachment.create(AttachmentType.plan, plan))
    if current is not None:
        post.add_attachment(Attachment.create(AttachmentType.current_plan_step, current))
    if stop is not None:
        post.add_attachment(Attachment.create(AttachmentType.stop, stop))
    return post


def _states(plan: Plan) -> list[str]:
    return [subtask.state for subtask in plan.subtasks]


def test_one_subtask_per_numbered_line():
    plan = derive_plan(None, _planner_post())
    assert len(plan.subtasks) == 3


def test_names_drop_numbers_and_dependency_annotations():
    plan = derive_plan(None, _planner_post())
    assert [s.name for s in plan.subtasks] == [
        "Load the data file",
        "Count the rows",
        "Report the result to the user",
    ]


def test_description_keeps_the_full_step_text():
    assert (
        derive_plan(None, _planner_post()).subtasks[1].description
        == "Count the rows <sequentially depends on 1>"
    )


def test_long_step_names_keep_their_full_text():
    words = " ".join(f"w{i}" for i in range(15))
    plan = derive_plan(None, _planner_post(plan="1. " + words, current=None))
    assert plan.subtasks[0].name == words


def test_first_step_current_makes_it_in_progress_and_the_rest_todo():
    plan = derive_plan(None, _planner_post())
    assert _states(plan) == ["in_progress", "todo", "todo"]
    assert plan.state == "in_progress"


def test_steps_before_the_current_one_are_done():
    plan = derive_plan(None, _planner_post(current="3. Report the result to the user"))
    assert _states(plan) == ["done", "done", "in_progress"]
    assert all(s.finished_at for s in plan.subtasks[:2])


def test_current_step_is_found_by_its_number_even_with_other_words():
    plan = derive_plan(None, _planner_post(current="2. count them"))
    assert _states(plan) == ["done", "in_progress", "todo"]


def test_current_step_is_found_by_its_text_without_a_number():
    plan = derive_plan(None, _planner_post(current="Count the rows"))
    assert _states(plan) == ["done", "in_progress", "todo"]


def test_current_step_is_found_by_close_text():
    plan = derive_plan(None, _planner_post(current="report the results to the user."))
    assert _states(plan) == ["done", "done", "in_progress"]


def test_unmatched_current_step_leaves_new_steps_todo():
    plan = derive_plan(None, _planner_post(current="something else entirely, nothing alike"))
    assert _states(plan) == ["todo", "todo", "todo"]
    assert plan.state == "todo"


def test_stop_completed_marks_everything_done_and_finishes_the_plan():
    plan = derive_plan(None, _planner_post(current="2. Count the rows", stop="Completed"))
    assert _states(plan) == ["done", "done", "done"]
    assert (plan.state, plan.outcome) == ("done", "working on it")


def test_the_previous_plan_is_not_changed():
    previous = derive_plan(None, _planner_post())
    before = previous.to_dict()
    derive_plan(previous, _planner_post(current="3. Report the result to the user"))
    assert previous.to_dict() == before


def test_the_previous_plan_is_not_changed_when_a_post_without_a_plan_moves_it():
    previous = derive_plan(None, _planner_post())
    before = previous.to_dict()
    derive_plan(previous, _planner_post(plan=None, current="3. Report the result to the user"))
    assert previous.to_dict() == before


def test_a_plan_holds_nothing_mutable_but_its_subtasks():
    """A derivation copies a plan and its subtasks one level deep: a field holding a list or a dict
    (other than the subtasks) would be shared between the plans."""
    for kind in (Plan, SubTask):
        for field in fields(kind):
            if field.name != "subtasks":
                assert field.type in ("str", "str | None", "TaskState"), f"{kind.__name__}.{field.name}"


def test_progress_keeps_the_plan_id_and_step_creation_times():
    previous = derive_plan(None, _planner_post())
    plan = derive_plan(previous, _planner_post(current="2. Count the rows"))
    assert plan.id == previous.id
    assert [s.created_at for s in plan.subtasks] == [s.created_at for s in previous.subtasks]


def test_a_changed_plan_keeps_states_of_steps_that_stayed():
    previous = derive_plan(None, _planner_post(current="2. Count the rows"))
    revised = "1. Load the data file\n2. Drop empty rows\n3. Count the rows\n4. Report the result to the user"
    plan = derive_plan(previous, _planner_post(plan=revised, current=None))
    assert _states(plan) == ["done", "todo", "in_progress", "todo"]
    assert plan.id == previous.id


def test_steps_match_across_turns_ignoring_case_spacing_numbering_and_annotations():
    previous = derive_plan(None, _planner_post(current="2. Count the rows"))
    revised = "1) load  the DATA file.\n2) Count the rows\n3) Report the result to the user"
    plan = derive_plan(previous, _planner_post(plan=revised, current=None))
    assert _states(plan) == ["done", "in_progress", "todo"]


def test_a_done_step_that_now_comes_after_the_current_one_is_todo_again():
    previous = derive_plan(None, _planner_post(current="2. Count the rows"))
    reordered = "1. Check the file exists\n2. Load the data file\n3. Count the rows"
    plan = derive_plan(previous, _planner_post(plan=reordered, current="1. Check the file exists"))
    assert _states(plan) == ["in_progress", "todo", "todo"]
    assert plan.subtasks[1].finished_at is None


def test_going_back_to_an_earlier_step_makes_the_later_ones_todo():
    previous = derive_plan(None, _planner_post(current="3. Report the result to the user"))
    plan = derive_plan(previous, _planner_post(current="1. Load the data file"))
    assert _states(plan) == ["in_progress", "todo", "todo"]


def test_a_kept_step_keeps_its_finish_time_and_outcome():
    previous = derive_plan(None, _planner_post(current="2. Count the rows"))
    previous.subtasks[0].outcome = "loaded 100 rows"
    revised = "1. Load the data file\n2. Drop empty rows\n3. Count the rows"
    plan = derive_plan(previous, _planner_post(plan=revised, current="3. Count the rows"))
    kept, before = plan.subtasks[0], previous.subtasks[0]
    assert (kept.state, kept.finished_at, kept.outcome) == ("done", before.finished_at, "loaded 100 rows")


def test_an_abandoned_step_stays_abandoned_as_the_plan_moves_on():
    previous = derive_plan(None, _planner_post())
    previous.subtasks[1].state = "abandoned"
    plan = derive_plan(previous, _planner_post(current="3. Report the result to the user"))
    assert _states(plan) == ["done", "abandoned", "in_progress"]


def test_a_current_step_without_a_restated_plan_moves_the_previous_plan():
    previous = derive_plan(None, _planner_post())
    plan = derive_plan(previous, _planner_post(plan=None, current="2. Count the rows"))
    assert _states(plan) == ["done", "in_progress", "todo"]
    assert plan.id == previous.id


def test_an_entirely_new_plan_gets_a_new_id():
    previous = derive_plan(None, _planner_post())
    plan = derive_plan(previous, _planner_post(plan="1. Draw a chart\n2. Save it", current="1. Draw a chart"))
    assert plan.id != previous.id
    assert _states(plan) == ["in_progress", "todo"]


def test_a_finished_previous_plan_is_replaced_by_a_new_one():
    previous = derive_plan(None, _planner_post(stop="Completed"))
    plan = derive_plan(previous, _planner_post())
    assert plan.id != previous.id
    assert _states(plan) == ["in_progress", "todo", "todo"]


def test_a_post_without_a_plan_carries_the_previous_plan_forward():
    previous = derive_plan(None, _planner_post(current="2. Count the rows"))
    plan = derive_plan(previous, Post.create("done", "CodeInterpreter", "Planner"))
    assert plan.to_dict() == previous.to_dict()


def test_a_post_without_a_plan_and_no_previous_gives_an_empty_plan():
    assert derive_plan(None, Post.create("hello", "Planner", "User")).subtasks == []


def test_init_plan_is_used_when_there_is_no_plan():
    post = _planner_post(plan=None, init_plan="1. A\n2. B <sequentially depends on 1>", current="2. B")
    assert [s.name for s in derive_plan(None, post).subtasks] == ["A", "B"]


def test_unnumbered_lines_continue_the_step_above():
    plan = derive_plan(None, _planner_post(plan="1. Load the file\n   and parse it\n2. Report", current=None))
    assert [s.name for s in plan.subtasks] == ["Load the file and parse it", "Report"]


def test_bullet_lines_without_numbers_are_steps():
    plan = derive_plan(None, _planner_post(plan="- Load\n- Report", current="Report"))
    assert _states(plan) == ["done", "in_progress"]


def test_user_query_names_and_describes_the_plan():
    plan = derive_plan(None, _planner_post(), user_query="count the rows of data.csv")
    assert (plan.name, plan.description) == ("count the rows of data.csv", "count the rows of data.csv")


def test_derived_plan_round_trips_as_a_dict():
    plan = derive_plan(None, _planner_post(current="2. Count the rows"))
    assert Plan.from_dict(plan.to_dict()) == plan


def test_planner_example_file_walks_the_plan_to_done():
    data = Path(__file__).resolve().parent.parent / "data" / "planner-word-count.yaml"
    round = Conversation.from_yaml(data).rounds[0]
    plan = None
    seen = []
    for post in round.post_list:
        if post.send_from == "Planner":
            plan = derive_plan(plan, post, user_query=round.user_query)
            seen.append((_states(plan), plan.state))
    assert seen == [
        (["in_progress", "in_progress", "todo"], "in_progress"),
        (["done", "done", "done"], "done"),
    ]


INIT_PLAN = (
    "1. Load orders.csv\n"
    "2. Compute the mean amount per region <sequentially depends on 1>\n"
    "3. Report the region with the highest mean to the User <interactively depends on 2>"
)
WORKER_PLAN = (
    "1. Instruct CodeInterpreter to load orders.csv and compute the mean amount per region, sorted\n"
    "2. Report the region with the highest mean to the User"
)


def test_the_subtasks_are_the_user_level_steps_of_init_plan():
    post = _planner_post(plan=WORKER_PLAN, init_plan=INIT_PLAN, current="1. Instruct CodeInterpreter to load")
    assert [s.name for s in derive_plan(None, post).subtasks] == [
        "Load orders.csv",
        "Compute the mean amount per region",
        "Report the region with the highest mean to the User",
    ]


def test_the_current_worker_step_puts_the_user_steps_it_merges_in_progress():
    post = _planner_post(plan=WORKER_PLAN, init_plan=INIT_PLAN, current=WORKER_PLAN.splitlines()[0])
    assert _states(derive_plan(None, post)) == ["in_progress", "in_progress", "todo"]


def test_the_next_worker_step_marks_the_merged_user_steps_done():
    previous = derive_plan(None, _planner_post(plan=WORKER_PLAN, init_plan=INIT_PLAN, current="1."))
    post = _planner_post(plan=WORKER_PLAN, init_plan=INIT_PLAN, current=WORKER_PLAN.splitlines()[1])
    assert _states(derive_plan(previous, post)) == ["done", "done", "in_progress"]


def test_without_interactive_annotations_user_steps_follow_the_worker_step_sharing_their_words():
    init_plan = "1. Load orders.csv\n2. Compute the mean amount per region\n3. Plot it\n4. Report to the User"
    worker = (
        "1. Instruct CodeInterpreter to load orders.csv and compute the mean amount per region\n"
        "2. Instruct CodeInterpreter to plot the means\n3. Report to the User"
    )
    post = _planner_post(plan=worker, init_plan=init_plan, current="2. Instruct CodeInterpreter to plot")
    assert _states(derive_plan(None, post)) == ["done", "done", "in_progress", "todo"]


def test_a_rounds_plan_ignores_the_planners_self_corrections():
    round = Round.create("count the rows")
    round.add_post(_planner_post(current="2. Count the rows"))
    correction = _planner_post(plan="1. Something else entirely", current="1. Something else entirely")
    correction.send_to = "Planner"
    round.add_post(correction)
    plan = round_plan(round)
    assert plan is not None
    assert plan.subtasks[0].name == "Load the data file"
    assert _states(plan) == ["done", "in_progress", "todo"]


def test_a_round_whose_planner_planned_no_step_has_no_plan():
    round = Round.create("hi")
    round.add_post(_planner_post(plan=None, current=None, stop=None))
    assert round_plan(round) is None
