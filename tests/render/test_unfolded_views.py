"""The terminal's text view (what terminal IPython prints: render.terminal_bundle) draws the payload's
view, as the HTML and the extension do, and since it cannot fold the conversation beneath it, no fact
reads twice: each post lists only what the main view did not say. (A saved notebook's text/plain and
text/markdown are the Round's summary: test_round_summary.py.)"""

from __future__ import annotations

import copy

import pytest
from support.nb_rounds import analysis_round
from view_fixtures import BUILDERS

from twnb.memory import Attachment, AttachmentType, Post
from twnb.render import MIME_TYPE, plan_from_round, round_bundle, terminal_bundle
from twnb.render.bundle import bundle_from_payload
from twnb.render.view import view_of

UNFOLDED = ["text/plain"]  # as terminal_bundle makes it
CODE = "m = statistics.mean([1, 2, 3])"  # a line of analysis_round's code


def _parts(shown: str) -> tuple[str, str]:
    """The text view's main view and the conversation listed beneath it."""
    main, conversation = shown.split("\nconversation (")
    return main, conversation


def _bundle(round) -> dict:
    return terminal_bundle(round_bundle(round, session_id="s", plan=plan_from_round(round)))


def _shown(payload) -> dict:
    return terminal_bundle(bundle_from_payload(payload))


def _failed_then_revised():
    """The first attempt raises; the CodeInterpreter is told the error and its second attempt runs."""
    round = analysis_round()
    failed = Post.create("The mean failed.", "CodeInterpreter", "CodeInterpreter")
    failed.add_attachment(Attachment.create(AttachmentType.reply_content, "mean(values)"))
    failed.add_attachment(Attachment.create(AttachmentType.execution_status, "FAILURE"))
    traceback = "Traceback (most recent call last):\n  File x\nNameError: name 'mean' is not defined"
    failed.add_attachment(Attachment.create(AttachmentType.execution_result, traceback))
    failed.add_attachment(Attachment.create(AttachmentType.revise_message, f"Fix this error:\n{traceback}"))
    round.post_list.insert(2, failed)
    return round


@pytest.mark.parametrize("view", UNFOLDED)
def test_they_draw_what_the_payloads_view_says(view):
    payload = copy.deepcopy(_bundle(analysis_round())[MIME_TYPE])
    facts = payload["twnb"]["view"]
    facts["state"] = "a state only the view knows"
    facts["code"][0]["decision_line"] = "A decision only the view knows"
    facts["answer"] = "An answer only the view knows."
    shown = _shown(payload)[view]
    for said in (
        "a state only the view knows",
        "A decision only the view knows",
        "An answer only the view knows.",
    ):
        assert said in shown, said


@pytest.mark.parametrize("view", UNFOLDED)
def test_a_payload_without_a_view_shows_the_same(view):
    payload = _bundle(analysis_round())[MIME_TYPE]
    older = copy.deepcopy(payload)
    del older["twnb"]["view"]
    assert _shown(older)[view] == _shown(payload)[view]


@pytest.mark.parametrize("view", UNFOLDED)
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_each_piece_of_code_reads_once(view, name):
    payload = BUILDERS[name]()
    shown = _shown(payload)[view]
    for block in view_of(payload)["code"]:
        for line in block["code"].splitlines():
            # Every line of code is its own line of the view (indented in the text view).
            assert [row.strip() for row in shown.splitlines()].count(line.strip()) == 1, (name, line)


@pytest.mark.parametrize("view", UNFOLDED)
def test_the_request_the_result_and_the_answer_read_once_and_the_conversation_points_at_them(view):
    shown = _bundle(analysis_round(message="The mean of the list is 2."))[view]
    assert shown.count("What is the mean of") == 1
    assert shown.count("The mean of the list is 2.") == 1
    assert shown.count("the request, above") == 1 and shown.count("the answer, above") == 1


@pytest.mark.parametrize("view", UNFOLDED)
def test_a_failed_attempts_traceback_reads_once_beside_its_code(view):
    shown = _bundle(_failed_then_revised())[view]
    assert shown.count("NameError: name 'mean' is not defined") == 1
    main, _ = _parts(shown)
    assert main.index("mean(values)") < main.index("NameError") < main.index(CODE)


@pytest.mark.parametrize("view", UNFOLDED)
def test_the_conversation_keeps_what_the_main_view_does_not_show(view):
    shown = _bundle(analysis_round())[view]
    _, conversation = _parts(shown)
    assert "Compute the mean of" in conversation  # the Planner's instruction
    assert "Use statistics.mean." in conversation  # the CodeInterpreter's thought
    assert "The mean is 2.0" in conversation  # its report to the Planner


@pytest.mark.parametrize("view", UNFOLDED)
def test_the_plan_text_reads_once_in_the_conversation_until_it_changes(view):
    _, conversation = _parts(_bundle(analysis_round())[view])
    # Both Planner posts of analysis_round carry the same init_plan and plan: shown in the first only.
    lines = [line.strip() for line in conversation.splitlines()]
    assert lines.count("1. compute the mean") == 2  # the initial plan and the plan, once each


def test_text_lists_every_artifact_with_its_path():
    text = _shown(BUILDERS["artifacts"]())["text/plain"]
    assert "artifacts:\n  unusual_weeks.csv\n  twnb-artifacts/plot.png\n  .twnb/hidden.png\n" in text


@pytest.mark.parametrize("view", ["text/html", "text/markdown", *UNFOLDED])
def test_the_conversation_leaves_out_the_planners_current_step_and_stop_word(view):
    # analysis_round's answer says it is on "2. report it" and has "Completed": the plan above and the
    # Round's state say so; the record (the MIME JSON) keeps both.
    bundle = _bundle(analysis_round())
    assert "Completed" not in bundle[view]
    assert not any(
        label in bundle[view] for label in ("current step", "current plan step", "current_plan_step")
    )
    assert any(
        a["content"] == "Completed" for p in bundle[MIME_TYPE]["post_list"] for a in p["attachment_list"]
    )
