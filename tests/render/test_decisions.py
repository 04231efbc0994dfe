"""Step mode's decisions in the saved output: one short line on each post a person decided on, in the
HTML and in the terminal's text view alike; a post nobody decided on gets none (nor does the summary a
saved notebook keeps as text/plain and text/markdown)."""

from __future__ import annotations

import re

import pytest
from support.nb_rounds import analysis_round

from twnb.memory import EDITED_BY_USER, SKIPPED_BY_USER
from twnb.render import MIME_TYPE, plan_from_round, round_bundle, terminal_bundle
from twnb.render.decisions import CODE_DECISIONS, PLAN_DECISIONS

PLAN, CODE = 1, 2  # analysis_round's Planner post with the plan, and its CodeInterpreter post
DECISIONS = [
    (PLAN, "approved_by", "You approved this plan", "Planner", "CodeInterpreter"),
    (PLAN, "edited_by", "You changed this plan", "Planner", "CodeInterpreter"),
    (CODE, "approved_by", "You ran this code", "CodeInterpreter", "Planner"),
    (CODE, "edited_by", "You edited this code before it ran", "CodeInterpreter", "Planner"),
    (CODE, "skipped_by", "You skipped this code", "CodeInterpreter", "Planner"),
]
EVERY_LINE = [*PLAN_DECISIONS.values(), *CODE_DECISIONS.values()]


def _bundle(index: int | None = None, key: str | None = None) -> dict:
    round = analysis_round()
    if index is not None and key is not None:
        round.post_list[index].extra[key] = "User"  # type: ignore[literal-required]
    return terminal_bundle(round_bundle(round, session_id="s", plan=plan_from_round(round)))


def _summaries(html: str) -> list[str]:
    return re.findall(r"<summary[^>]*>(.*?)</summary>", html, flags=re.S)


@pytest.mark.parametrize(("index", "key", "line", "sender", "recipient"), DECISIONS)
def test_html_shows_the_decision_in_the_main_view_and_the_decided_posts_summary(
    index, key, line, sender, recipient
):
    html = _bundle(index, key)["text/html"]
    main, conversation = html.split("<b>Conversation (")
    assert main.count(line) == 1  # beside the plan or the code block, seen without unfolding anything
    with_line = [s for s in _summaries(conversation) if line in s]
    assert len(with_line) == 1
    assert f"<b>{sender} → {recipient}</b>" in with_line[0]
    assert conversation.count(line) == 1


def _main_view(shown: str, marker: str) -> str:
    """The text view's main part: everything before its conversation's posts."""
    main, _ = shown.split(marker)
    return main


@pytest.mark.parametrize(("index", "key", "line", "sender", "recipient"), DECISIONS)
def test_plain_text_shows_the_decision_once_beside_the_plan_or_the_code(index, key, line, sender, recipient):
    text = _bundle(index, key)["text/plain"]
    main = _main_view(text, "\nconversation (")
    if index == PLAN:  # under the plan's steps
        assert f"\nplan:\n  [done] compute the mean\n  [done] report it\n  ({line}.)\n" in main
    else:
        assert re.search(rf"^  1\. [a-z ]+ \({line}\.\)$", main, flags=re.M)
    assert text.count(line) == 1


@pytest.mark.parametrize("view", ["text/html", "text/markdown", "text/plain"])
def test_a_round_nobody_decided_on_shows_no_decision_line(view):
    shown = _bundle()[view]
    assert [line for line in EVERY_LINE if line in shown] == []


def test_a_skip_is_the_decision_even_beside_an_approval():
    round = analysis_round()
    round.post_list[CODE].extra.update({"approved_by": "User", "skipped_by": "User"})
    text = terminal_bundle(round_bundle(round, session_id="s"))["text/plain"]
    assert "(You skipped this code.)" in text and "You ran this code" not in text


@pytest.mark.parametrize("view", ["text/html", "text/plain"])
def test_a_stop_after_a_refused_edit_says_so_and_shows_the_edit_once(view):
    round = analysis_round()
    round.post_list[CODE].extra["refused_edit"] = {"code": "stopped_edit = 1", "refusal": "Line 1: no"}
    shown = terminal_bundle(round_bundle(round, session_id="s"))[view]
    said = "You stopped here after verification refused your edit"
    # The HTML says it in its main view and in the post's summary in the folded conversation.
    assert shown.count(said) == (2 if view == "text/html" else 1)
    assert shown.count("stopped_edit") == 1


@pytest.mark.parametrize("view", ["text/html", "text/markdown", "text/plain"])
def test_every_view_says_why_the_cells_queued_below_a_step_round_did_not_run(view):
    round = analysis_round()
    round.extra["held_back_cells"] = "You stopped this Round, so the cells queued below it were not run."
    shown = round_bundle(round, session_id="s")[view]
    assert "Cells below not run:" in shown
    assert "You stopped this Round, so the cells queued below it were not run." in shown


@pytest.mark.parametrize(
    ("index", "key", "words"),
    [(CODE, "skipped_by", SKIPPED_BY_USER), (CODE, "edited_by", EDITED_BY_USER), (PLAN, "edited_by", None)],
)
def test_the_view_names_the_words_recording_a_code_decision_for_the_extension_to_leave_out(index, key, words):
    """The extension copies no string from Python: the words step mode wrote for a skip or an edit of
    code come to it in the view (`posts[].recorded_words`); a plan's decision and an undecided post have
    none."""
    posts = _bundle(index, key)[MIME_TYPE]["twnb"]["view"]["posts"]
    assert posts[index].get("recorded_words") == words
    assert [i for i, post in enumerate(posts) if "recorded_words" in post] == ([index] if words else [])
