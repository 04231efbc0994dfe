"""Token counts twnb estimated (the server sent none, as llama-cpp-python never does while streaming) are
marked `~` in every view, the history and the exported notebook; a failed Round shows what it spent."""

from __future__ import annotations

import nbformat
from nb_fake_clock import FakeClock
from support.nb_rounds import analysis_round

from twnb.memory import Conversation, PostStarted, RoundStarted, UsageReported
from twnb.notebook.history_table import history_rows
from twnb.notebook.round_view import RoundView
from twnb.render import round_bundle
from twnb.render.labels import spent_tokens
from twnb.replay.export import export_notebook

ESTIMATED = {
    "prompt_tokens": 25_729,
    "completion_tokens": 310,
    "cached_tokens": 0,
    "calls": 3,
    "estimated": True,
}


def estimated_round():
    round = analysis_round()
    round.extra["usage"] = dict(ESTIMATED)
    return round


def ledger_of(input_tokens: int, output_tokens: int, *, estimated: bool) -> dict:
    return {
        "entries": [],
        "totals": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cached_tokens": 0,
            "estimated": estimated,
        },
    }


def test_the_summary_line_marks_estimated_counts():
    text = round_bundle(estimated_round(), session_id="s-1")["text/plain"]
    assert "tokens ~25,729 in / ~310 out" in text.splitlines()[-1]


def test_every_static_view_marks_them():
    bundle = round_bundle(estimated_round(), session_id="s-1")
    for mime in ("text/html", "text/markdown", "text/plain"):
        assert "~25,729 in / ~310 out" in bundle[mime], mime


def test_counts_the_server_sent_are_not_marked():
    text = round_bundle(analysis_round(), session_id="s-1")["text/plain"]
    assert "tokens 1,500 in / 120 out" in text and "~" not in text.splitlines()[-1]


def test_the_history_marks_estimated_counts():
    conversation = Conversation()
    conversation.add_round(estimated_round())
    conversation.add_round(analysis_round())

    tokens = [row[5] for row in history_rows(conversation)]

    assert tokens == ["~26,039", "1,620"]


def test_a_failed_round_shows_what_its_ledger_spent():
    # every reply unreadable: no post kept the counts, the ledger did
    round = analysis_round()
    round.change_round_state("failed")
    round.extra["usage"] = {}
    round.extra["ledger"] = ledger_of(23_000, 757, estimated=True)
    conversation = Conversation()
    conversation.add_round(round)

    assert history_rows(conversation)[0][5] == "~23,757"
    assert "tokens ~23,000 in / ~757 out" in round_bundle(round, session_id="s-1")["text/plain"]


def test_spent_tokens_takes_the_ledger_only_when_it_counts_more():
    usage = {"prompt_tokens": 100, "completion_tokens": 10}
    assert spent_tokens(usage, ledger_of(100, 10, estimated=True)).estimated is False
    assert spent_tokens(usage, ledger_of(500, 10, estimated=False)).tokens_in == 500
    assert spent_tokens({}, None) is None


def test_the_live_widget_header_marks_estimated_counts():
    view = RoundView("What is the mean?", clock=FakeClock())
    view.on_event(RoundStarted("round-1", "What is the mean?"))
    view.on_event(PostStarted("post-1", "Planner", "CodeInterpreter"))
    view.on_event(
        UsageReported("post-1", {"prompt_tokens": 1200, "completion_tokens": 34, "estimated": True})
    )

    assert "~1,200 in / ~34 out tokens" in view.header.value


def test_the_exported_notebook_marks_estimated_counts(tmp_path):
    conversation = Conversation()
    conversation.add_round(estimated_round())

    export_notebook(conversation, tmp_path / "out.ipynb", source_dir=tmp_path, session_id="s-1")

    notebook = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    nbformat.validate(notebook)
    shown = [
        str(data)
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        for data in output.get("data", {}).values()
    ]
    assert any("~25,729 in / ~310 out" in text for text in shown)
