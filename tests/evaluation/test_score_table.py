"""The comparison table: cases against models, repeats as a mean and a spread, totals per model."""

from __future__ import annotations

from results_data import errored, scored, skipped

from twnb.evaluation.score_table import ScoreTable


def test_each_model_is_a_column_and_each_case_a_row():
    table = ScoreTable.of(
        [scored("a", "m1", [True, False]), scored("a", "m2", [True, True]), scored("b", "m1", [True])]
    )
    rows = table.rows()
    assert rows[0] == ["case", "m1", "m2"]
    assert rows[1] == ["a", "0.50", "1.00"]
    assert rows[2] == ["b", "1.00", "-"]


def test_repeats_show_the_mean_and_the_spread():
    results = [
        scored("a", "m", hits, run=n)
        for n, hits in enumerate([[True, True], [True, False], [False, False]], 1)
    ]
    assert ScoreTable.of(results).rows()[1] == ["a", "0.50 (0.00-1.00, sd 0.50, 3 runs)"]


def test_a_model_is_scored_only_on_the_cases_it_ran():
    table = ScoreTable.of(
        [scored("a", "m", [True]), skipped("b", "m", "needs web_search"), errored("c", "m", "died")]
    )
    totals = table.totals("m")
    assert (totals.mean, totals.scored, totals.skipped, totals.errors) == (1.0, 1, 1, 1)
    rows = {row[0]: row[1] for row in table.rows()}
    assert rows["b"] == "skipped" and rows["c"] == "error"
    assert rows["mean score"] == "1.00 (1 scored, 1 skipped, 1 errors)"


def test_cost_is_summed_when_every_call_has_a_price_and_says_so_when_not():
    priced = ScoreTable.of([scored("a", "m", [True], cost=0.25), scored("b", "m", [True], cost=0.5)])
    assert {row[0]: row[1] for row in priced.rows()}["cost"] == "0.7500"
    unpriced = ScoreTable.of([scored("a", "m", [True], cost=None)])
    assert {row[0]: row[1] for row in unpriced.rows()}["cost"].startswith("-")


def test_the_terminal_table_lines_up_its_columns():
    text = ScoreTable.of([scored("a_long_case_name", "m", [True])]).terminal()
    lines = text.splitlines()
    assert lines[0].startswith("case") and "m" in lines[0]
    assert lines[2].index("1.00") == lines[0].index("m")
