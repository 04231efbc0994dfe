"""Step mode's decisions in the live Round widget: the decided post's section title carries the line the
saved output shows, and the post reads without the record's own words for the same decision."""

from __future__ import annotations

from typing import Any

import pytest
from nb_fake_clock import FakeClock
from support.nb_rounds import analysis_round

from twnb.memory import PostCommitted, RoundStarted
from twnb.memory.extras import EDITED_BY_USER, SKIPPED_BY_USER
from twnb.notebook.round_view import RoundView

PLAN, CODE = 1, 2  # analysis_round's Planner post with the plan, and its CodeInterpreter post
DECISIONS = [
    (PLAN, "approved_by", "Planner → CodeInterpreter · You approved this plan"),
    (PLAN, "edited_by", "Planner → CodeInterpreter · You changed this plan"),
    (CODE, "approved_by", "CodeInterpreter → Planner · You ran this code"),
    (CODE, "edited_by", "CodeInterpreter → Planner · You edited this code before it ran"),
    (CODE, "skipped_by", "CodeInterpreter → Planner · You skipped this code"),
]


def _committed(post: Any) -> RoundView:
    view = RoundView("What is the mean?", clock=FakeClock())
    view.on_event(RoundStarted("round-1", "What is the mean?"))
    view.on_event(PostCommitted(post))
    return view


def _read(view: RoundView, post_id: str) -> str:
    """What a person reads of the post's section: its title, message and attachments."""
    section = view._posts[post_id]
    chunks = section.message_view.box.children
    message = "".join(chunk.outputs[0]["data"]["text/markdown"] for chunk in chunks if chunk.outputs)
    return "\n".join([*section.box.titles, message, section.attachments_html.value])


@pytest.mark.parametrize(("index", "key", "title"), DECISIONS)
def test_a_decided_posts_title_carries_the_users_decision(index, key, title):
    post = analysis_round().post_list[index]
    post.extra[key] = "User"  # type: ignore[literal-required]
    assert _committed(post)._posts[post.id].box.titles == (title,)


def test_a_post_nobody_decided_on_has_a_plain_title():
    post = analysis_round().post_list[CODE]
    assert _committed(post)._posts[post.id].box.titles == ("CodeInterpreter → Planner",)


def test_a_skipped_post_says_once_that_the_user_skipped_it():
    post = analysis_round().post_list[CODE]
    post.message = SKIPPED_BY_USER  # as step mode records a skip: the message and the result
    post.attachment_list[-1].content = SKIPPED_BY_USER
    post.attachment_list[-2].content = "NONE"
    post.extra["skipped_by"] = "User"
    shown = _read(_committed(post), post.id)
    assert "You skipped this code" in shown
    assert shown.lower().count("skipped") == 1


def test_an_edited_post_says_once_that_the_user_edited_it_and_keeps_the_outcome():
    post = analysis_round().post_list[CODE]
    post.message = f"{EDITED_BY_USER} The code ran successfully."  # as step mode records an edit
    post.extra["edited_by"] = "User"
    shown = _read(_committed(post), post.id)
    assert "You edited this code before it ran" in shown and "The code ran successfully." in shown
    assert shown.lower().count("edited") == 1
