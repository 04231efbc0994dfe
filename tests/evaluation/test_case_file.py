"""Reading TaskWeaver's evaluation case files, unchanged, and finding them in folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from twnb.evaluation import CaseError, find_cases, read_case


def test_a_case_reads_every_field_of_taskweavers_format(make_case):
    path = make_case(
        "calc_mean",
        data={"demo.csv": "x\n1\n"},
        dependencies=["numpy"],
        data_files=["demo.csv"],
        verbose=True,
        scoring_points=[
            {"score_point": "The mean is 2", "weight": 1},
            {"score_point": "It says hello", "weight": 0.5, "eval_code": "assert True"},
            {"score_point": "Null code is the evaluator's", "weight": 2, "eval_code": None},
        ],
    )
    case = read_case(path)
    assert case.name == "calc_mean"
    assert case.dependencies == ("numpy",)
    assert case.data_files == ("demo.csv",)
    assert case.verbose is True
    assert case.app_dir == "../project/"
    assert [(p.weight, p.eval_code) for p in case.scoring_points] == [
        (1, None),
        (0.5, "assert True"),
        (2, None),
    ]
    assert case.max_score == 3.5


def test_a_case_is_named_after_its_folder_as_taskweavers_results_name_it(make_case):
    path = make_case("echo")
    path.rename(path.with_name("whatever.yaml"))
    assert read_case(path.with_name("whatever.yaml")).name == "echo"


def test_cases_sharing_a_folder_are_named_after_their_files(tmp_path: Path, make_case):
    make_case("first", root=tmp_path / "flat")
    make_case("second", root=tmp_path / "flat")
    for name in ("first", "second"):
        (tmp_path / "flat" / name / f"{name}.yaml").rename(tmp_path / "flat" / f"{name}.yaml")
    cases, broken = find_cases([tmp_path / "flat"])
    assert [c.name for c in cases] == ["first", "second"] and broken == []


def test_a_folder_of_case_folders_gives_every_case_by_name(tmp_path: Path, make_case):
    for name in ("b_case", "a_case"):
        make_case(name)
    (tmp_path / "cases" / "a_case" / "twnb.yaml").write_text("llm:\n  model: m\n")
    (tmp_path / "cases" / "a_case" / "x.cassette.yaml").write_text("twnb_cassette: 1\n")
    cases, broken = find_cases([tmp_path / "cases"])
    assert [c.name for c in cases] == ["a_case", "b_case"] and broken == []


def test_a_case_file_that_cannot_run_is_reported_with_its_file_and_why(tmp_path: Path, make_case):
    make_case("good")
    bad = make_case("bad", scoring_points=[{"score_point": "x", "weight": "heavy"}])
    cases, broken = find_cases([tmp_path / "cases"])
    assert [c.name for c in cases] == ["good"]
    assert broken == [
        (bad.resolve(), f"{bad.resolve()}: scoring point 1: weight must be a number, got 'heavy'")
    ]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"task_description": ""}, "task_description must be the task"),
        ({"scoring_points": []}, "scoring_points must be a list"),
        ({"scoring_points": [{"score_point": "x", "weight": 0}]}, "weight must be more than 0"),
        ({"scoring_points": [{"weight": 1}]}, "score_point must say what the agent should have done"),
        ({"scoring_points": [{"score_point": "x", "eval_code": 3}]}, "eval_code must be Python code as text"),
        ({"config_var": ["a"]}, "config_var must be a mapping"),
        ({"data_files": [1]}, "data_files must be a list of texts"),
        ({"max_rounds": 0}, "max_rounds must be a whole number"),
    ],
)
def test_a_wrong_field_is_refused_with_what_to_fix(make_case, fields, message):
    with pytest.raises(CaseError, match=message):
        read_case(make_case("wrong", **fields))


def test_a_path_that_does_not_exist_is_an_error_of_the_command_line(tmp_path: Path):
    with pytest.raises(CaseError, match="no such file or folder"):
        find_cases([tmp_path / "nowhere"])


def test_a_folder_without_cases_says_what_a_case_file_is(tmp_path: Path):
    (tmp_path / "notes.yaml").write_text("a: 1\n")
    with pytest.raises(CaseError, match="a case file is YAML with task_description and scoring_points"):
        find_cases([tmp_path])


def test_keys_taskweaver_added_and_unknown_keys_are_kept_apart(make_case):
    case = read_case(make_case("extra", pre_command=["echo hi"], max_rounds=9, surprise=1))
    assert case.pre_command == ("echo hi",)
    assert case.max_rounds == 9
    assert case.unknown_keys == ("surprise",)
