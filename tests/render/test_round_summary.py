"""A saved Round's text/plain and text/markdown summarise it (the HTML and the MIME JSON show it whole):
they name the Round and its outcome in a few lines, and never carry a second copy of its code, results
or conversation. A terminal, which shows only text and saves nothing, gets the whole Round as text."""

from __future__ import annotations

import pytest
from support.nb_markdown import rendered
from support.nb_rounds import analysis_round

from twnb.render import MIME_TYPE, plan_from_round, round_bundle, terminal_bundle
from twnb.render.summary import ANSWER_LIMIT

SUMMARIES = ["text/plain", "text/markdown"]
CODE = "m = statistics.mean([1, 2, 3])"  # a line of analysis_round's code


def _bundle(round) -> dict:
    return round_bundle(round, session_id="s", plan=plan_from_round(round))


def test_the_plain_text_names_the_round_its_state_request_plan_code_and_answer():
    round = analysis_round(message="The mean of the list is 2.")
    lines = _bundle(round)["text/plain"].splitlines()
    assert lines[:5] == [
        f"twnb Round {round.id} [finished] (a summary: the HTML view shows the whole Round)",
        "request: What is the mean of [1, 2, 3]?",
        "plan: 2 steps (2 done)",
        "code: 1 block (1 ran).",
        "answer: The mean of the list is 2.",
    ]
    assert lines[-1] == "time 3.2 s · tokens 1,500 in / 120 out · 3 LLM calls"


def test_the_markdown_names_the_round_its_state_and_its_answer_as_a_viewer_renders_it():
    round = analysis_round(message="The mean of the list is **2**.")
    page = rendered(_bundle(round)["text/markdown"])
    assert f"<strong>twnb Round</strong> <code>{round.id}</code> · finished <em>(a summary" in page
    assert "<blockquote>" in page and "What is the mean of" in page
    assert "<strong>Answer:</strong> The mean of the list is <strong>2</strong>." in page


@pytest.mark.parametrize("mime", SUMMARIES)
def test_a_summary_holds_no_code_result_or_conversation(mime):
    shown = _bundle(analysis_round())[mime]
    assert CODE not in shown
    assert "The mean is 2.0" not in shown  # the CodeInterpreter's report, a post of the conversation
    assert "Use statistics.mean." not in shown  # its thought
    assert "onversation" not in shown


@pytest.mark.parametrize("mime", SUMMARIES)
def test_a_failed_rounds_summary_gives_its_reason_whole(mime):
    round = analysis_round()
    round.change_round_state("failed")
    reason = "The LLM call failed: ConnectError " + "x" * ANSWER_LIMIT
    round.extra["failure_reason"] = reason
    shown = _bundle(round)[mime]
    assert "failed" in shown.splitlines()[0]
    assert "x" * ANSWER_LIMIT in shown


def test_a_code_block_that_raised_is_counted_as_raised():
    round = analysis_round()
    status = next(a for a in round.post_list[2].attachment_list if a.type.value == "execution_status")
    status.content = "FAILURE"
    assert "code: 1 block (1 raised)." in _bundle(round)["text/plain"].splitlines()


@pytest.mark.parametrize("mime", SUMMARIES)
def test_a_long_answer_is_clipped_the_record_keeps_it_whole(mime):
    answer = "word " * ANSWER_LIMIT
    bundle = _bundle(analysis_round(message=answer))
    assert answer.strip() not in bundle[mime] and "…" in bundle[mime]
    assert bundle[MIME_TYPE]["post_list"][-1]["message"] == answer


def test_a_terminal_gets_the_whole_round_as_text():
    text = terminal_bundle(_bundle(analysis_round()))["text/plain"]
    assert CODE in text and "Use statistics.mean." in text
