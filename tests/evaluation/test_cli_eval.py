"""`twnb eval` on the command line: what it refuses before anything runs, and how it says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from twnb.cli import main


def _err(capsys) -> str:
    return capsys.readouterr().err


def test_without_cases_it_asks_for_them(clean_env, capsys):
    assert main(["eval"]) == 2
    assert "which cases? Give CASE_OR_FOLDER" in _err(capsys)


def test_a_path_that_does_not_exist_is_refused(clean_env, capsys):
    assert main(["eval", "nowhere"]) == 2
    assert "twnb eval: nowhere: no such file or folder" in _err(capsys)


def test_without_a_model_it_says_how_to_name_one(clean_env, make_case, capsys):
    case = make_case("calc")
    assert main(["eval", str(case)]) == 2
    assert "Which model? Give --model NAME" in _err(capsys)


def test_a_live_run_without_a_server_says_what_to_set(clean_env, make_case, capsys):
    case = make_case("calc")
    assert main(["eval", str(case), "--model", "m"]) == 2
    err = _err(capsys)
    assert "twnb eval: a live run needs a model server: " in err and "OPENAI_API_KEY" in err


def test_live_goes_with_the_examples_only(clean_env, make_case, capsys):
    assert main(["eval", str(make_case("calc")), "--live"]) == 2
    assert "--live goes with --examples" in _err(capsys)


def test_record_and_replay_do_not_go_together(clean_env, make_case, capsys):
    with pytest.raises(SystemExit):
        main(["eval", str(make_case("calc")), "--record", "--replay", "x"])
    assert "not allowed with argument" in _err(capsys)


def test_replaying_a_folder_without_recordings_says_what_to_record(
    clean_env, make_case, capsys, tmp_path: Path
):
    (tmp_path / "empty").mkdir()
    assert main(["eval", str(make_case("calc")), "--replay", str(tmp_path / "empty")]) == 2
    assert "no recorded runs in it" in _err(capsys)


def test_two_cases_of_one_name_are_refused(clean_env, make_case, capsys, tmp_path: Path):
    make_case("calc", root=tmp_path / "one")
    make_case("calc", root=tmp_path / "two")
    assert main(["eval", str(tmp_path / "one"), str(tmp_path / "two"), "--model", "m"]) == 2
    assert "two cases are named calc" in _err(capsys)


@pytest.mark.parametrize("option", ["--repeat", "-j", "--timeout", "--max-rounds"])
def test_counts_must_be_whole_numbers_from_one(clean_env, make_case, capsys, option):
    with pytest.raises(SystemExit):
        main(["eval", str(make_case("calc")), option, "0"])
    assert "expected a whole number, 1 or more" in _err(capsys)


def test_the_help_shows_the_options_of_the_contract(capsys):
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    text = capsys.readouterr().out
    for option in (
        "CASE_OR_FOLDER",
        "-o DIR",
        "--model M",
        "--user-model M",
        "--evaluator-model M",
        "--repeat N",
        "-j N",
        "--resume",
    ):
        assert option in text


def test_two_models_whose_names_make_one_folder_are_refused(clean_env, make_case, capsys):
    assert main(["eval", str(make_case("calc")), "--model", "a/b", "--model", "a:b"]) == 2
    assert "the models a/b and a:b would share the folder a_b" in _err(capsys)
