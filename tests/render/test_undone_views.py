"""An undone Round in every view: greyed, with the one line of what was undone under its header; what of
a Round cannot be undone is a note until then."""

from __future__ import annotations

from support.nb_rounds import HOSTILE, analysis_round

from twnb.render import MIME_TYPE, plan_from_round, round_bundle

LINE = "Undone by the user: removed m; moved out.png to twnb-undone/round-1/."
LIMIT = "`big` (6.1 GB) changed in place cannot be undone"


def views(round) -> dict:
    return round_bundle(round, session_id="s", plan=plan_from_round(round))


def undone(line: str = LINE) -> object:
    round = analysis_round()
    round.extra["undone"] = {"undone_at": "2026-12-02T14:03:00+00:00", "line": line, "removed": ["m"]}
    return round


def test_the_line_is_in_the_view_and_right_under_each_views_header():
    shown = views(undone())
    assert shown[MIME_TYPE]["twnb"]["view"]["undone"] == LINE
    assert shown["text/plain"].splitlines()[1] == LINE
    assert (
        shown["text/markdown"].splitlines()[2]
        == "*Undone by the user: removed m; moved out.png to twnb-undone/round-1/.*"
    )


def test_the_html_greys_everything_below_the_header_and_the_line():
    html = views(undone())["text/html"]
    assert html.startswith('<div class="twnb-round twnb-undone"')
    line_at, grey_at = html.index(LINE), html.index('<div style="opacity:0.5">')
    assert line_at < grey_at < html.index("statistics.mean")


def test_a_round_not_undone_is_not_greyed():
    shown = views(analysis_round())
    assert "undone" not in shown[MIME_TYPE]["twnb"]["view"]
    assert "twnb-undone" not in shown["text/html"] and "opacity:0.5" not in shown["text/html"]


def test_the_line_is_text_everywhere():
    shown = views(undone(f"Undone by the user: removed m {HOSTILE}."))
    assert "<img" not in shown["text/html"] and "&lt;img" in shown["text/html"]


def test_what_cannot_be_undone_is_a_note_until_the_round_is_undone():
    round = analysis_round()
    round.extra["undo_limits"] = [LIMIT]
    assert f"Cannot be undone: {LIMIT}" in views(round)["text/plain"]
    round.extra["undone"] = {"line": f"Undone by the user: removed m. Not undone: {LIMIT}."}
    assert "Cannot be undone:" not in views(round)["text/plain"]
