"""An interrupted Round's note says "interrupted" once: its label is "Round interrupted", and the
reason the session recorded (which starts with "Interrupted" so that saved Rounds say why) is shown
after it without that word again, in every view."""

from __future__ import annotations

import pytest
from support.nb_rounds import analysis_round

from twnb.render import MIME_TYPE, failure_html, round_bundle
from twnb.session.session import INTERRUPTED, STOPPED


def _interrupted(reason: str):
    round = analysis_round()
    round.change_round_state("failed")
    round.extra["failure_reason"] = reason
    return round


@pytest.mark.parametrize(
    ("reason", "shown"),
    [
        (INTERRUPTED, "Round interrupted: every post made so far is kept."),
        (STOPPED, "Round interrupted: stopped by the user; every post made so far is kept."),
    ],
    ids=["interrupted", "stopped"],
)
def test_the_plain_text_note_reads_interrupted_once(reason, shown):
    text = round_bundle(_interrupted(reason), session_id="s-1")["text/plain"]
    assert shown in text.splitlines()
    assert "Interrupted" not in text


def test_the_views_note_keeps_label_and_reason_apart_without_the_word_twice():
    view = round_bundle(_interrupted(INTERRUPTED), session_id="s-1")[MIME_TYPE]["twnb"]["view"]
    (note,) = [n for n in view["notes"] if n["kind"] == "failure"]
    assert (note["label"], note["text"]) == ("Round interrupted", "every post made so far is kept.")


def test_the_live_failure_note_reads_interrupted_once():
    assert "<b>Round interrupted:</b> every post made so far is kept." in failure_html(
        "interrupted", INTERRUPTED
    )


def test_a_failure_that_is_not_an_interrupt_keeps_its_reason_whole():
    assert "<b>Round failed:</b> Interrupted handshake with the server" in failure_html(
        "failed", "Interrupted handshake with the server"
    )
