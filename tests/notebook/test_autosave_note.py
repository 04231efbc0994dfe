"""A Round whose autosave failed says so once wherever the Round is shown: the widget, the static
bundle (Markdown and text) and `%taskweaver history`."""

from __future__ import annotations

from nb_fake_clock import FakeClock
from nb_shell import magics
from support.nb_rounds import analysis_round

from twnb.memory.round import AUTOSAVE_FAILED
from twnb.notebook.history_table import history_rows
from twnb.notebook.round_view import RoundView
from twnb.render import MIME_TYPE, plan_from_round, round_bundle

NOTE = "Autosave to /x/.twnb/s/rounds failed (No space left on device); the Round goes on"


def _round():
    round = analysis_round()
    round.extra[AUTOSAVE_FAILED] = NOTE
    return round


def test_the_static_bundle_says_the_round_was_not_autosaved():
    bundle = round_bundle(_round(), session_id="s")
    assert f"**Not autosaved:** {NOTE}" in bundle["text/markdown"]
    assert f"Not autosaved: {NOTE}" in bundle["text/plain"]
    assert bundle[MIME_TYPE]["extra"][AUTOSAVE_FAILED] == NOTE


def test_a_round_that_was_autosaved_says_nothing_about_it():
    bundle = round_bundle(analysis_round(), session_id="s")
    assert "autosaved" not in bundle["text/markdown"] and "autosaved" not in bundle["text/plain"]


def test_the_finished_widget_shows_the_note_once():
    round = _round()
    view = RoundView(round.user_query, clock=FakeClock())
    view.finish(round, round_bundle(round, session_id="s", plan=plan_from_round(round))[MIME_TYPE])
    assert view.failure.value.count("Not autosaved:") == 1 and "No space left on device" in view.failure.value
    assert ">finished</span>" in view.header.value


def test_history_marks_the_round_not_autosaved(shell):
    notebook = magics(shell).notebook
    notebook.conversation.add_round(analysis_round())
    notebook.conversation.add_round(_round())
    states = [row[2] for row in history_rows(notebook.conversation)]
    assert states == ["finished", "finished, not autosaved"]
