"""Token counts twnb estimated (the server sent none: llama-cpp-python never does while streaming)
carry `~` in every eval output: the console's table, the report and results.csv."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

from results_data import scored

from twnb.evaluation.model_calls import Spend
from twnb.evaluation.report import RunEntry, report_html, report_markdown
from twnb.evaluation.results_csv import write_results_csv
from twnb.evaluation.score_table import ScoreTable

ESTIMATED = Spend(calls=2, input_tokens=1200, output_tokens=300, cost=None, unpriced=2, estimated=True)


def _estimated():
    return replace(scored("calc", "m", [True]), agent_spend=ESTIMATED)


def test_the_console_table_marks_estimated_counts():
    assert "~1,200 / ~300" in ScoreTable.of([_estimated()]).terminal()


def test_measured_counts_carry_no_mark():
    assert "1,000 / 100" in ScoreTable.of([scored("calc", "m", [True])]).terminal()
    assert "~" not in ScoreTable.of([scored("calc", "m", [True])]).terminal()


def test_the_report_marks_estimated_counts(tmp_path: Path):
    entries = [RunEntry(_estimated(), "m/calc")]
    markdown = report_markdown(entries, out_dir=tmp_path)
    assert "tokens ~1,200 in, ~300 out" in markdown and "| ~1,200 / ~300 |" in markdown
    assert "~1,200 in, ~300 out" in report_html(entries, out_dir=tmp_path)


def test_the_csv_marks_estimated_counts(tmp_path: Path):
    path = write_results_csv(tmp_path / "results.csv", [(_estimated(), "m/calc")])
    with path.open(newline="", encoding="utf-8") as handle:
        row = next(csv.DictReader(handle))
    assert (row["input_tokens"], row["output_tokens"]) == ("~1200", "~300")
