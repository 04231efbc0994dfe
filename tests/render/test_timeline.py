"""The Round's waterfall (timeline_html): one bar per ledger entry, placed and sized by its figures,
and the totals; in the static HTML of a Round that has a ledger."""

from __future__ import annotations

import re

import pytest

from twnb.memory.ledger import Ledger, LedgerEntry
from twnb.render.timeline import timeline_html

LEDGER = Ledger(
    10.0,
    [
        LedgerEntry("llm", "Planner", 0.0, 2.0, "stop", "m", input_tokens=1000, output_tokens=100, cost=0.01),
        LedgerEntry(
            "llm", "CodeInterpreter", 2.0, 3.0, "stop", "m", input_tokens=800, output_tokens=200, cost=0.02
        ),
        LedgerEntry("code", "CodeInterpreter", 5.0, 4.0, "error", error_type="ZeroDivisionError"),
        LedgerEntry("llm", "Planner", 9.0, 0.001, "LLMStreamDropped", "m", cost=0.0),
    ],
)

BAR = re.compile(
    r'<div style="[^"]*">([^<]*)</div>'  # the line above the bar: what it says
    r'<div class="twnb-bar" data-kind="(\w+)" style="(margin-left:([\d.]+)%;width:([\d.]+)%[^"]*)"'
)


def bars(html: str) -> list[tuple[str, ...]]:
    """Each bar as (kind, left, width, what its line says, style)."""
    return [(kind, left, width, says, style) for says, kind, style, left, width in BAR.findall(html)]


def test_each_entry_is_one_bar_placed_and_sized_by_its_start_and_duration():
    found = bars(timeline_html(LEDGER))
    assert [(kind, float(left), float(width)) for kind, left, width, _, _ in found] == [
        ("llm", 0.0, 20.0),
        ("llm", 20.0, 30.0),
        ("code", 50.0, 40.0),
        ("llm", 90.0, 0.3),  # a hairline: never invisible
    ]


def test_a_bar_holds_no_copy_of_its_figures():
    html = timeline_html(LEDGER)
    assert "data-start" not in html and "data-duration" not in html and "data-left" not in html


def test_a_bar_repeats_nothing_its_line_says():
    html = timeline_html(LEDGER)
    assert "title=" not in html
    assert html.count("1,000 in / 100 out") == 1


def test_failed_entries_are_red_and_say_why():
    found = bars(timeline_html(LEDGER))
    assert "#cf222e" in found[2][4] and "error" in found[2][3]
    assert "#cf222e" in found[3][4] and "LLMStreamDropped" in found[3][3]
    assert "#cf222e" not in found[0][4]


def test_totals_give_time_tokens_and_cost():
    html = timeline_html(LEDGER)
    totals = re.search(r'class="twnb-totals"[^>]*>([^<]*)<', html).group(1)
    assert totals == (
        "time 10.0 s · LLM 3 calls 5.0 s · code 1 run 4.0 s · 1,800 in / 300 out tokens · cost 0.0300"
    )


def test_a_round_without_every_price_has_no_total_cost():
    unpriced = Ledger(1.0, [LedgerEntry("llm", "Planner", 0.0, 1.0, "stop", cost=None)])
    assert "no cost (no price for every call)" in timeline_html(unpriced)


def test_text_is_escaped():
    hostile = Ledger(1.0, [LedgerEntry("llm", "<img src=x onerror=alert(1)>", 0.0, 1.0, "stop")])
    assert "<img" not in timeline_html(hostile)


def test_an_empty_ledger_draws_nothing():
    assert timeline_html(None) == "" and timeline_html({}) == ""


@pytest.mark.parametrize("source", ["ledger", "dict"])
def test_it_reads_the_ledger_or_its_saved_dict(source):
    value = LEDGER if source == "ledger" else LEDGER.to_dict()
    assert len(bars(timeline_html(value))) == 4


def test_a_rounds_static_html_draws_its_ledger_and_its_summary_gives_the_cost():
    from twnb.memory import Round
    from twnb.render import MIME_TYPE, round_bundle

    round = Round.create(user_query="q")
    round.change_round_state("finished")
    round.extra["ledger"] = LEDGER.to_dict()
    bundle = round_bundle(round, session_id="s")
    page = bundle["text/html"]
    assert len(bars(page)) == 4
    assert "cost 0.0300" in page
    assert bundle[MIME_TYPE]["extra"]["ledger"] == LEDGER.to_dict()


def test_a_round_without_a_ledger_draws_no_waterfall():
    from twnb.memory import Round
    from twnb.render import round_bundle

    round = Round.create(user_query="q")
    assert "twnb-timeline" not in round_bundle(round, session_id="s")["text/html"]


def test_code_the_user_skipped_is_a_grey_bar_that_says_not_run():
    skipped = Ledger(1.0, [LedgerEntry("code", "CodeInterpreter", 0.5, 0.0, "skipped")])
    (bar,) = bars(timeline_html(skipped))
    assert bar[3] == "CodeInterpreter code · 0.00 s, not run"
    assert "#cf222e" not in bar[4]
