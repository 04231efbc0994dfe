"""results.csv (TaskWeaver's columns first) and the reports people read."""

from __future__ import annotations

import csv
from pathlib import Path

from results_data import errored, scored, skipped

from twnb.evaluation.case_file import ScoringPoint
from twnb.evaluation.evaluator import Verdict
from twnb.evaluation.report import RunEntry, report_html, report_markdown
from twnb.evaluation.results_csv import write_results_csv


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_csv_starts_with_taskweavers_columns(tmp_path: Path):
    path = write_results_csv(
        tmp_path / "results.csv", [(scored("calc_mean", "m", [True, False]), "m/calc_mean")]
    )
    header = path.read_text().splitlines()[0].split(",")
    assert header[:3] == ["case_file", "score", "normalized_score"]
    row = _rows(path)[0]
    assert (row["case_file"], row["score"], row["normalized_score"]) == ("calc_mean", "1", "0.5000")
    assert (row["model"], row["points_hit"], row["points"], row["notebook"]) == (
        "m",
        "1",
        "2",
        "m/calc_mean/calc_mean.ipynb",
    )


def test_runs_not_scored_have_empty_scores_and_say_why(tmp_path: Path):
    path = write_results_csv(
        tmp_path / "r.csv",
        [
            (skipped("web", "m", "it needs the role web_search"), "m/web"),
            (errored("x", "m", "the kernel died"), "m/x"),
        ],
    )
    first, second = _rows(path)
    assert (first["score"], first["status"], first["why"]) == ("", "skipped", "it needs the role web_search")
    assert (second["score"], second["status"], second["why"]) == ("", "error", "the kernel died")


def _entries():
    result = scored("calc_mean", "m", [True, False])
    result.verdicts.append(
        Verdict(ScoringPoint("third", 1.0), None, "", "evaluator", "the evaluator's model failed")
    )
    result.max_score = 3.0
    result.failures.append("not judged: third: the evaluator's model failed")
    return [
        RunEntry(result, "m/calc_mean"),
        RunEntry(skipped("web", "m", "it needs the role web_search"), "m/web"),
    ]


def test_the_report_gives_each_points_verdict_and_reason(tmp_path: Path):
    text = report_markdown(_entries(), out_dir=tmp_path)
    assert "| 1 | point 1 | 1 | hit | evaluator | reason 1 |" in text
    assert "| 2 | point 2 | 1 | missed | evaluator | reason 2 |" in text
    assert "| 3 | third | 1 | not judged | evaluator | the evaluator's model failed |" in text


def test_the_report_gives_score_tokens_cost_time_and_links(tmp_path: Path):
    text = report_markdown(_entries(), out_dir=tmp_path)
    assert "### calc_mean: `m`: 1 of 3 (0.33)" in text
    assert "tokens 1,000 in, 100 out; cost 0.0100; 12.5 s" in text
    assert (
        "[notebook](m/calc_mean/calc_mean.ipynb)" in text
        and "[conversation](m/calc_mean/conversation.yaml)" in text
    )


def test_the_report_lists_failures_and_skipped_runs_with_why(tmp_path: Path):
    text = report_markdown(_entries(), out_dir=tmp_path)
    assert "- not judged: third: the evaluator's model failed" in text
    assert "| web | m | it needs the role web_search |" in text


def test_untrusted_text_renders_as_text_in_both_reports(tmp_path: Path):
    result = scored("c", "m", [False])
    result.verdicts[0] = Verdict(
        ScoringPoint("<img src=x onerror=alert(1)> | ![x](http://evil/)", 1.0),
        False,
        "<script>alert(1)</script>",
        "evaluator",
    )
    entries = [RunEntry(result, "m/c")]
    markdown = report_markdown(entries, out_dir=tmp_path)
    assert "<script>" not in markdown and "<img" not in markdown and "![x](" not in markdown
    page = report_html(entries, out_dir=tmp_path)
    assert "<script>" not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
