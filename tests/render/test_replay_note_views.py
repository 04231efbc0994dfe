"""A replayed Round says how it differed from its recording, in each view and in the cell's quiet line:
started over for a new conversation, or drifted (the drift lines folded under the note)."""

from __future__ import annotations

from support.nb_rounds import analysis_round

from twnb.notebook.attempt_line import replay_line
from twnb.render import plan_from_round, round_bundle

DRIFT = "Replay call 1 (Planner) drifted from recorded call 1: message 2 (user) differs at character 40"


def replayed(**record) -> object:
    round = analysis_round()
    round.extra["replay"] = {"cassette": "q.cassette.yaml", **record}
    return round


def views(round) -> dict:
    return round_bundle(round, session_id="s", plan=plan_from_round(round))


def test_drift_is_one_note_in_every_view_and_the_extensions_view():
    shown = views(replayed(drift=[DRIFT, DRIFT]))
    said = "2 calls drifted from the recording in q.cassette.yaml (the recorded replies were served)"
    assert all(said in shown[mime] for mime in ("text/plain", "text/markdown", "text/html"))
    notes = shown["application/vnd.twnb.round+json"]["twnb"]["view"]["notes"]
    assert {"kind": "replay", "label": "Replay", "text": said} in notes


def test_a_replay_that_started_over_says_so():
    round = replayed(rewound=True)
    assert replay_line(round) == "replayed q.cassette.yaml again from its first reply, as a new conversation"
    assert "Replay: replayed q.cassette.yaml again from its first reply" in views(round)["text/plain"]


def test_a_replay_as_recorded_adds_nothing():
    round = replayed()
    assert replay_line(round) is None
    assert "replayed" not in views(round)["text/plain"].lower()
