"""A Round's saved view leaves to the record the facts it gives as they are (recorded_facts.py): the
plan's steps, each post's title, a code block's files, a ledger row's label and times, and keys at
their defaults. Reading the payload back gives the whole view, and a fact the view says otherwise is
kept in the view. The extension reads the same (labextension/test/view.test.ts)."""

from __future__ import annotations

import copy
from typing import Any

from support.nb_rounds import analysis_round
from view_fixtures import BUILDERS, CODE

from twnb.memory import Round
from twnb.render import MIME_TYPE, plan_from_round, round_bundle
from twnb.render.view import round_view, stored_view, view_of


def _payload(round: Round) -> dict[str, Any]:
    return round_bundle(round, session_id="s", plan=plan_from_round(round))[MIME_TYPE]


def _fresh_view(payload: dict[str, Any]) -> dict[str, Any]:
    record = copy.deepcopy(payload)
    del record["twnb"]["view"]
    return dict(round_view(record))


def test_the_saved_view_leaves_plan_titles_and_ledger_rows_figures_only():
    payload = BUILDERS["artifacts"]()
    stored = payload["twnb"]["view"]
    assert "plan" not in stored and "posts" not in stored
    assert [sorted(row) for row in stored["ledger"]["rows"]] == [["figures", "left", "width"]] * 3
    assert stored["code"] == [{"outcome": "ran", "post_id": payload["post_list"][CODE]["id"]}]


def test_reading_it_back_gives_the_whole_view():
    payload = BUILDERS["artifacts"]()
    whole = view_of(payload)
    assert whole == _fresh_view(payload)
    assert [row["label"] for row in whole["ledger"]["rows"]] == [
        "Planner LLM",
        "CodeInterpreter code",
        "Planner LLM",
    ]
    assert whole["posts"][1]["title"] == "Planner → CodeInterpreter"


def test_a_title_the_record_does_not_give_as_it_is_stays_in_the_view():
    round = analysis_round()
    round.post_list[CODE].extra["incomplete"] = "the stream ended"
    payload = _payload(round)
    stored = payload["twnb"]["view"]["posts"]
    assert stored[CODE]["title"] == "CodeInterpreter → Planner (reply cut off)"
    assert [post for index, post in enumerate(stored) if index != CODE] == [{}, {}, {}]
    assert view_of(payload)["posts"][CODE]["title"] == "CodeInterpreter → Planner (reply cut off)"


def test_a_plan_step_the_view_cleans_keeps_its_own_text():
    payload = _payload(analysis_round())
    payload["twnb"]["plan"]["subtasks"][0]["name"] = "compute  the\nmean"  # as a model may write it
    del payload["twnb"]["view"]
    payload["twnb"]["view"] = stored_view(round_view(payload), payload)
    assert payload["twnb"]["view"]["plan"][0] == {"text": "compute the mean", "state": "done"}
    assert view_of(payload)["plan"][0]["text"] == "compute the mean"


def test_a_view_saved_before_these_facts_were_left_out_reads_as_it_was():
    payload = BUILDERS["artifacts"]()
    older = copy.deepcopy(payload)
    older["twnb"]["view"] = dict(view_of(payload), version=2)  # every fact in the view
    older["twnb"]["view"]["posts"][0]["title"] = "A title only the view knows"
    assert view_of(older)["posts"][0]["title"] == "User → Planner"  # another version: computed anew


def test_an_artifact_link_left_out_is_read_back_only_as_a_safe_relative_one():
    payload = BUILDERS["artifacts"]()
    crafted = [{"kind": "file", "path": "javascript:alert(1)"}, {"kind": "file", "path": ".twnb/x.png"}]
    payload["twnb"]["view"]["artifacts"] = crafted
    links = [artifact["url"] for artifact in view_of(payload)["artifacts"]]
    assert links == ["javascript%3Aalert%281%29", None]  # a file name, not a scheme; hidden: no link
