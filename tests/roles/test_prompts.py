"""The composed prompts: a reviewed checklist of what each must (and must not) contain, golden
snapshots of whole prompts, and the stable prefix that lets provider prompt caching hit.

Snapshots live in tests/roles/snapshots/. After a deliberate prompt change, regenerate them with
`TWNB_UPDATE_SNAPSHOTS=1 pytest tests/roles/test_prompts.py`, read the diff, and commit it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from prompt_history import analysis_round, memory_with, planner_post, render, sent, with_task

from twnb.roles.code_interpreter import CodeInterpreter
from twnb.roles.namespace_delta import CHANGES_HEADER, SNAPSHOT_HEADER
from twnb.roles.planner import Planner
from twnb.roles.planner_prompt import Worker
from twnb.roles.role_setup import RoleSurroundings
from twnb.roles.round_digest import CondensePolicy
from twnb.roles.translator import PostTranslator

SNAPSHOTS = Path(__file__).parent / "snapshots"
POLICY = CondensePolicy()  # the CodeInterpreter's default; the Planner's differs only in block_rounds
PLANNER_KEYS = ("plan_reasoning", "init_plan", "current_plan_step", "send_to")
CODE_KEYS = ("thought", "reply_type", "reply_content")
NAMESPACE = (
    "Variables in the kernel:\n- sales: DataFrame, shape (1200, 6); columns: month (int64), region (object)"
)


def make_roles_reading(namespace: dict[str, str]) -> tuple[Planner, CodeInterpreter]:
    """Roles whose namespace summary is `namespace["text"]` at the time of each call."""
    translator = PostTranslator()
    reading = RoleSurroundings(namespace_summary=lambda: namespace["text"])
    code = CodeInterpreter(None, "m", translator, surroundings=reading)
    planner = Planner(
        None,
        "m",
        translator,
        workers=[Worker(code.alias, code.intro)],
        surroundings=reading,
    )
    return planner, code


def make_roles(namespace: str = NAMESPACE) -> tuple[Planner, CodeInterpreter]:
    translator = PostTranslator()
    surroundings = RoleSurroundings(namespace_summary=lambda: namespace)
    code = CodeInterpreter(None, "m", translator, surroundings=surroundings)
    planner = Planner(
        None, "m", translator, workers=[Worker(code.alias, code.intro)], surroundings=surroundings
    )
    return planner, code


def check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("TWNB_UPDATE_SNAPSHOTS") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{name} is missing: run with TWNB_UPDATE_SNAPSHOTS=1, review it, commit it"
    assert text == path.read_text(encoding="utf-8"), f"{name} changed: review and regenerate the snapshot"


# -- the system prompts ----------------------------------------------------------------------------


def test_each_system_prompt_starts_by_naming_its_role():
    planner, code = make_roles()
    assert planner.prompt.system_prompt.startswith("You are the Planner")
    assert code.prompt.system_prompt.startswith("You are the CodeInterpreter")


def test_planner_system_prompt_names_only_its_own_keys():
    system = make_roles()[0].prompt.system_prompt
    assert all(key in system for key in (*PLANNER_KEYS, "message", "stop", '"plan"'))
    assert not any(key in system for key in CODE_KEYS)


def test_codeinterpreter_system_prompt_names_only_its_own_keys():
    system = make_roles()[1].prompt.system_prompt
    assert all(key in system for key in CODE_KEYS)
    assert not any(key in system for key in PLANNER_KEYS)
    assert '"message"' not in system and '"plan"' not in system


def test_system_prompts_hold_nothing_that_changes_per_call():
    planner, code = make_roles()
    for system in (planner.prompt.system_prompt, code.prompt.system_prompt):
        assert "sales" not in system  # no namespace
        assert "test-session" not in system  # no session id
        assert "20" not in system.split("JSON schema")[0]  # no date or time before the schema


def test_codeinterpreter_system_prompt_carries_the_verification_rules():
    system = make_roles()[1].prompt.system_prompt
    assert "Allowed imports:" in system and "os.system" in system


# -- the stable prefix -----------------------------------------------------------------------------


def test_system_prompt_and_examples_are_byte_identical_across_calls():
    planner, code = make_roles()
    early = memory_with([analysis_round(1)])
    late = memory_with([analysis_round(n) for n in range(1, 15)], "Something else entirely")
    for role, first, second in ((planner, early, late), (code, with_task(early), with_task(late))):
        prefix = len(role.prompt.prefix())
        a, b = sent(role.compose(first))[:prefix], sent(role.compose(second))[:prefix]
        assert a == b
        assert a[0]["role"] == "system" and len(a) > 1  # the examples are part of it


def test_a_changed_namespace_changes_only_the_last_message():
    namespace = {"text": "Variables in the kernel:\n- a: int\n- c: str"}
    roles = make_roles_reading(namespace)
    memories = (memory_with([analysis_round(1)]), with_task(memory_with([analysis_round(1)])))
    for role, memory in zip(roles, memories, strict=True):
        namespace["text"] = "Variables in the kernel:\n- a: int\n- c: str"
        first = sent(role.compose(memory))
        namespace["text"] = "Variables in the kernel:\n- b: int\n- c: str"
        second = sent(role.compose(memory))
        assert first[:-1] == second[:-1]
        assert second[-1]["content"].endswith(f"{CHANGES_HEADER}\n- b: int\nNo longer defined: a")


def test_consecutive_calls_of_a_role_only_append_to_the_history_between_condensation_steps():
    """Between two condensation steps the previous request, up to the end of its condensed history,
    starts the next request: a provider's prompt cache reuses all of it."""
    planner, code = make_roles()
    rounds: list = []
    previous: dict[str, tuple[str, str, object]] = {}
    steps = {planner.alias: 0, code.alias: 0}
    for n in range(1, 21):
        opened = memory_with(rounds, f"Question {n}: summarise sales by region for month {n}")
        for role, memory in ((planner, opened), (code, with_task(opened)), (planner, with_task(opened))):
            role_rounds = memory.get_role_rounds(role.alias, include_failure_rounds=True)
            head = role.prompt.condensed_past(role_rounds, NAMESPACE)[0]
            text, key = render(role.compose(memory)), role.prompt.layout(role_rounds).snapshot_key
            if role.alias in previous:
                before, before_head, before_key = previous[role.alias]
                kept = before[: before.index(before_head) + len(before_head)]
                if key == before_key:
                    assert text.startswith(kept), f"round {n}: {role.alias}'s history was rewritten"
                else:
                    steps[role.alias] += 1
                    assert text.startswith(before[: before.index("=== user ===")])  # system, examples
            previous[role.alias] = (text, head, key)
        rounds.append(analysis_round(n))
    for count in steps.values():
        assert 0 < count <= 20 // POLICY.condensed_step + 1


def test_the_codeinterpreters_fold_of_the_previous_round_keeps_its_task_and_appends_its_outcome():
    """The CodeInterpreter keeps the previous Round in full, opened by its item in the list of earlier
    tasks: when that Round folds (at the next Round), its item gains the outcome where it stands, so
    the next request starts with the previous one up to that task (before, the fold rewrote the
    history from the end of the list: the folded Round's line and the next task were sent anew)."""
    _, code = make_roles()
    rounds = [analysis_round(n) for n in range(1, 5)]
    before = render(code.compose(with_task(memory_with(rounds[:3]))))  # Round 3 in full
    after = render(code.compose(with_task(memory_with(rounds))))  # Round 3 folded, Round 4 in full
    item = '- "Aggregate month 3 into table_3."'
    assert before.count(item) == 1 and "table_3 = sales" in before
    assert after.startswith(before[: before.index(item) + len(item)])
    assert f"{item} -> code SUCCESS; made table_3 (DataFrame, 23x10)" in after
    assert "table_3 = sales" not in after and "table_4 = sales" in after


def test_the_previous_rounds_task_is_listed_once_with_its_code_and_feedback_after_it():
    """The model is told what it was before: the previous task's words, then its code, then the
    feedback, then the new task."""
    _, code = make_roles()
    messages = sent(code.compose(with_task(memory_with([analysis_round(1)]))))
    history = messages[len(code.prompt.prefix()) :]
    assert [m["role"] for m in history] == ["user", "assistant", "user"]
    assert history[0]["content"].endswith(
        'Earlier tasks (their code ran; the variables they made still exist):\n- "Aggregate month 1 into '
        'table_1."'
    )
    assert "table_1 = sales" in history[1]["content"]
    assert "RESULT-OF-ROUND-1" in history[2]["content"]
    assert "The task for this step is: Compare the regions across months." in history[2]["content"]
    assert "Aggregate month 1" not in history[2]["content"]


def test_the_previous_rounds_long_task_is_listed_whole_though_its_digest_will_clip_it():
    _, code = make_roles()
    long_task = "Aggregate month 1 per region.\nThen " + "rank the regions by revenue, " * 20 + "done."
    first = analysis_round(1)
    next(p for p in first.post_list if p.send_to == "CodeInterpreter").message = long_task
    text = render(code.compose(with_task(memory_with([first]))))
    assert f'- "{long_task}"' in text


# -- the conversation ------------------------------------------------------------------------------


def test_namespace_summary_is_sent_once_at_the_head_of_the_history():
    planner, code = make_roles()
    rounds = [analysis_round(1)]
    requests = (
        (planner, planner.compose(memory_with(rounds))),
        (code, code.compose(with_task(memory_with(rounds)))),
    )
    for role, request in requests:
        messages = sent(request)
        head = messages[len(role.prompt.prefix())]
        assert head["role"] == "user" and f"{SNAPSHOT_HEADER}\n{NAMESPACE}" in head["content"]
        assert sum(NAMESPACE in m["content"] for m in messages) == 1


def test_a_reply_s_reasoning_rides_in_the_request_as_thinking_and_is_never_sent():
    planner, code = make_roles()
    memory = with_task(memory_with([analysis_round(1), analysis_round(2)]))
    for post in memory.conversation.rounds[-2].post_list + memory.conversation.rounds[-1].post_list:
        post.extra["reasoning"] = f"THINKING-OF-{post.send_from}"
    for role in (planner, code):
        request = role.compose(memory)
        thinking = [b for m in request for b in m.get_content_blocks("thinking")]
        assert thinking and all(b["thinking"] == f"THINKING-OF-{role.alias}" for b in thinking)
        assert "THINKING-OF" not in render(request)


def test_planner_condenses_older_rounds():
    planner, _ = make_roles()
    text = render(planner.compose(memory_with([analysis_round(n) for n in range(1, 31)])))
    # With the Planner's policy after 30 Rounds: 25-30 condensed, 23-24 one line each, older counted.
    assert "RESULT-OF-ROUND-30" not in text and "table_30 = sales" not in text  # no output or code
    assert "Question 30" in text and "ANSWER-30" in text and "made table_30 (DataFrame, 23x10)" in text
    assert "Question 25" in text and "ANSWER-25" in text and "made table_25 (DataFrame, 23x10)" in text
    one_line = next(line for line in text.splitlines() if "Question 23:" in line)
    assert "ANSWER-23" in one_line
    assert "(22 earlier rounds not shown" in text and "Question 22:" not in text


def test_planner_keeps_a_round_that_asked_the_user_in_full_while_the_answer_is_planned():
    planner, _ = make_roles()
    asking = analysis_round(2)
    asking.post_list[-1] = planner_post("User", "Which region do you mean?", "2. Report", "Clarification")
    text = render(planner.compose(memory_with([analysis_round(1), asking], "The West, please")))
    assert "table_2 = sales" in text and "RESULT-OF-ROUND-2" in text  # its step in full
    assert '"stop": "Clarification"' in text
    assert "table_1 = sales" not in text  # the Round before it is still digested


def test_planner_digests_the_previous_round_once_the_user_has_answered_it():
    planner, _ = make_roles()
    asking = analysis_round(2)
    asking.post_list[-1] = planner_post("User", "Which region do you mean?", "2. Report", "Clarification")
    text = render(planner.compose(memory_with([analysis_round(1), asking, analysis_round(3)])))
    assert "table_2 = sales" not in text and "Question 2:" in text


def test_codeinterpreter_condenses_older_rounds():
    _, code = make_roles()
    text = render(code.compose(with_task(memory_with([analysis_round(n) for n in range(1, 31)]))))
    assert "table_30 = sales" in text  # the previous Round's code in full
    assert "table_29 = sales" not in text and "RESULT-OF-ROUND-29" not in text
    assert "Aggregate month 29 into table_29." in text and "code SUCCESS; made table_29" in text


def test_a_digest_names_the_files_a_step_made_without_their_folder():
    """Two copies of the same analysis in different folders send the same prompt."""
    planner, code = make_roles()
    plotted = analysis_round(1)
    step = next(p for p in plotted.post_list if p.send_from == "CodeInterpreter")
    next(a for a in step.attachment_list if a.type.value == "artifact_paths").content = [
        "/home/ana/sales/twnb-artifacts/round-1-revenue.png"
    ]
    memory = memory_with([plotted, analysis_round(2), analysis_round(3)])
    for text in (render(planner.compose(memory)), render(code.compose(with_task(memory)))):
        assert "files round-1-revenue.png" in text and "/home/ana" not in text


def test_a_failed_round_stays_as_one_line_saying_its_code_ran():
    planner, _ = make_roles()
    rounds = [analysis_round(1), analysis_round(2, state="failed"), analysis_round(3)]
    text = render(planner.compose(memory_with(rounds)))
    line = next(line for line in text.splitlines() if "Question 2" in line)
    assert (
        "round failed (The LLM call failed: HTTP 500.)" in line
        and "its code did run and made table_2" in line
    )
    assert "RESULT-OF-ROUND-2" not in text


def test_a_failed_previous_round_is_shown_to_the_codeinterpreter_in_full_with_its_failure_reason():
    _, code = make_roles()
    memory = memory_with([analysis_round(1), analysis_round(2, state="failed")])
    text = render(code.compose(with_task(memory)))
    assert "table_2 = sales" in text
    assert "(This round failed: The LLM call failed: HTTP 500. Its code did run.)" in text


def test_a_failed_previous_round_is_digested_for_the_planner_with_its_failure_reason():
    planner, _ = make_roles()
    text = render(planner.compose(memory_with([analysis_round(1), analysis_round(2, state="failed")])))
    line = next(line for line in text.splitlines() if "Question 2:" in line)
    assert "round failed (The LLM call failed: HTTP 500.)" in line and "made table_2" in line


def test_prompt_size_stays_flat_as_rounds_accumulate():
    planner, _ = make_roles()
    sizes = []
    for count in (10, 30, 60):
        rounds = [analysis_round(n) for n in range(1, count + 1)]
        sizes.append(len(render(planner.compose(memory_with(rounds)))))
    growth_per_round = (sizes[2] - sizes[1]) / 30
    assert growth_per_round < 200  # characters per Round once older Rounds are one line each


def test_rounds_older_than_the_one_line_ones_are_only_counted():
    planner, code = make_roles()
    rounds = [analysis_round(n) for n in range(1, 61)]  # previous in full, condensed, one line, counted
    memory = memory_with(rounds)
    counted = 54  # the default policy after 60 Rounds: 54 counted, 55-56 one line, 57-59 condensed
    for text in (render(planner.compose(memory)), render(code.compose(with_task(memory)))):
        assert f"({counted} earlier rounds not shown; the variables they made still exist)" in text
        assert f"Question {counted}:" not in text and f"month {counted} " not in text
        assert f"Question {counted + 1}:" in text or f"month {counted + 1} " in text


def test_prompt_size_stops_growing_once_old_rounds_are_only_counted():
    planner, code = make_roles()
    for role, wrap in ((planner, memory_with), (code, lambda r: with_task(memory_with(r)))):
        # 60 and 100 Rounds sit at the same point of the condensation steps (multiples of 4)
        histories = ([analysis_round(n) for n in range(1, count + 1)] for count in (60, 100))
        sizes = [len(render(role.compose(wrap(rounds)))) for rounds in histories]
        assert abs(sizes[1] - sizes[0]) < 100  # digits of the numbers only


# -- golden snapshots ------------------------------------------------------------------------------


@pytest.mark.parametrize("rounds", [1, 12])
def test_planner_prompt_snapshot(rounds):
    planner, _ = make_roles()
    check_snapshot(
        f"planner_after_{rounds}_rounds.txt",
        render(planner.compose(memory_with([analysis_round(n) for n in range(1, rounds + 1)]))),
    )


@pytest.mark.parametrize("rounds", [1, 12])
def test_codeinterpreter_prompt_snapshot(rounds):
    _, code = make_roles()
    check_snapshot(
        f"code_interpreter_after_{rounds}_rounds.txt",
        render(code.compose(with_task(memory_with([analysis_round(n) for n in range(1, rounds + 1)])))),
    )
