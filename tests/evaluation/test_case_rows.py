"""Nothing is lost silently: every file that looks like a case gets a row (run, skipped with why, or
invalid with why), the summary counts each, and a case whose app_dir is missing says so."""

from __future__ import annotations

import csv
from pathlib import Path

from twnb.evaluation import EvalOptions, run_evaluation
from twnb.evaluation.case_file import CaseError, find_cases, read_case
from twnb.evaluation.case_settings import case_setup

# Skipped before any kernel starts: a dependency that is not installed.
NOT_INSTALLED = ["twnb-no-such-package"]


def _evaluate(tmp_path: Path) -> tuple[object, list[str]]:
    lines: list[str] = []
    outcome = run_evaluation(
        EvalOptions(paths=[tmp_path / "cases"], out_dir=tmp_path / "out", models=["m"]), progress=lines.append
    )
    return outcome, lines


def test_a_near_spelling_of_a_case_key_makes_a_file_a_case(tmp_path: Path):
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "a.yaml").write_text("task_description: x\nscoring_point:\n  - score_point: y\n")
    (folder / "b.yaml").write_text("Task_Desc: x\nscoring_points: []\n")
    (folder / "plugin.yaml").write_text("name: sql_pull_data\ndescription: pulls data\n")
    cases, broken = find_cases([folder])
    assert cases == []
    assert sorted(path.name for path, _ in broken) == ["a.yaml", "b.yaml"]


def test_a_misspelled_key_says_which_key_was_meant(make_case):
    path = make_case("calc")
    path.write_text(
        "task_description: Ask for 42.\nscoring_point:\n  - score_point: It says 42\n    weight: 1\n"
    )
    try:
        read_case(path)
    except CaseError as error:
        message = str(error)
    assert message == (
        f"{path}: scoring_points must be a list of {{score_point, weight}} entries "
        "(it has scoring_point: did you mean scoring_points?)"
    )


def test_an_invalid_yaml_names_its_path_once_and_keeps_pyyamls_own_words(make_case):
    path = make_case("broken")
    path.write_text("task_description: x\nscoring_points: [\n")
    try:
        read_case(path)
    except CaseError as error:
        message = str(error)
    assert message.count(str(path)) == 1 and "\n" not in message
    assert (
        "while parsing a flow node expected the node content, but found '<stream end>' (line 3, column 1)"
        in (message)
    )
    assert message.endswith("fix it, or move it out of the cases' folder")


def test_every_case_file_gets_a_row_and_the_summary_counts_each_kind(tmp_path, live, make_case):
    make_case("needs_a_package", dependencies=NOT_INSTALLED)
    misspelled = make_case("misspelled")
    misspelled.write_text("task_description: Ask for 42.\nscoring_point:\n  - score_point: It says 42\n")
    outcome, lines = _evaluate(tmp_path)
    assert {r.case: r.status for r in outcome.all_results} == {
        "misspelled": "invalid",
        "needs_a_package": "skipped",
    }
    assert outcome.summary() == "2 runs: 1 skipped, 1 invalid"
    with outcome.csv.open(newline="", encoding="utf-8") as handle:
        rows = {row["case_file"]: row for row in csv.DictReader(handle)}
    assert rows["misspelled"]["status"] == "invalid"
    assert "did you mean scoring_points?" in rows["misspelled"]["why"]
    assert "(0 scored, 1 skipped, 1 invalid)" in outcome.table.terminal()
    assert "## Invalid case files" in outcome.report_md.read_text(encoding="utf-8")
    assert any(line.startswith("m · misspelled: invalid: ") for line in lines)


def test_a_case_whose_app_dir_cannot_be_found_says_so(tmp_path, live, make_case):
    make_case("copied_out", dependencies=NOT_INSTALLED, app_dir="../project/")
    setup = case_setup(read_case(tmp_path / "cases" / "copied_out" / "copied_out.yaml"))
    assert any(note.startswith("its app_dir ../project/ was not found") for note in setup.notes)
    _, lines = _evaluate(tmp_path)
    assert any("note: its app_dir ../project/ was not found" in line for line in lines)


def test_a_case_whose_app_dir_is_there_says_nothing_of_it(tmp_path, make_case):
    (tmp_path / "project").mkdir()
    setup = case_setup(read_case(make_case("at_home", app_dir="../project/")))
    assert not any("app_dir" in note for note in setup.notes)


def test_the_command_counts_invalid_files_and_exits_1(clean_env, make_case, capsys):
    from twnb.cli import main

    broken = make_case("broken")
    broken.write_text("task_description: x\nscoring_points: [\n")
    assert main(["eval", str(broken.parent.parent), "--model", "m", "-o", "out"]) == 1
    captured = capsys.readouterr()
    assert "twnb eval: 1 run: 1 invalid" in captured.out
    assert "twnb eval: 1 case file(s) are invalid; fix them (the report says how)." in captured.err
