"""`twnb export NOTEBOOK.ipynb --execute --check`: any exported or Round-run notebook re-run as it is, into
NAME.rerun.ipynb beside it unless -o says otherwise; no model is called, twnb's own commands are not run,
the code each `%%taskweaver` cell's Round ran runs after it."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from support.nb_run import llm_env, run_notebook
from support.nb_scripts import answer_round
from support.replay_rounds import code_round, conversation, stdout, user_cell, with_user_cells

from twnb.cli import main
from twnb.memory import save_conversation

ROUND_RUN = [
    "%load_ext twnb",
    "factor = 6",
    "%%taskweaver\nWhat is 6 times 7?",
    "%taskweaver save conv.yaml",
    "print(answer + 1)",
]


@pytest.fixture
def round_run(fake_llm, tmp_path) -> Path:
    """A notebook in which a Round ran (a real kernel, the loopback LLM server), the user's cells around."""
    fake_llm.load(answer_round())
    run_notebook(tmp_path, ROUND_RUN, llm_env(fake_llm, tmp_path))
    return tmp_path / "run.ipynb"


def _sources(nb) -> list[str]:
    return [cell.source for cell in nb.cells]


@pytest.mark.slow
def test_a_notebook_rounds_ran_in_reruns_as_it_is_with_every_cell_reproduced(round_run, fake_llm, capsys):
    asked = len(fake_llm.chat_requests())
    saved = (round_run.parent / "conv.yaml").read_bytes()
    assert main(["export", str(round_run), "--check"]) == 0
    out = capsys.readouterr().out
    assert "3 of 3 cells reproduced." in out
    assert len(fake_llm.chat_requests()) == asked  # no model was asked
    assert (round_run.parent / "conv.yaml").read_bytes() == saved  # `%taskweaver save` did not run
    rerun = nbformat.read(round_run.parent / "run.rerun.ipynb", as_version=4)
    sources = _sources(rerun)
    assert sources[: sources.index(ROUND_RUN[2]) + 1] == ROUND_RUN[:3]
    (inserted,) = [c for c in rerun.cells if (c.metadata.get("twnb") or {}).get("inserted")]
    assert sources.index(inserted.source) == sources.index(ROUND_RUN[2]) + 1
    assert "answer = 6 * 7" in inserted.source


@pytest.mark.slow
def test_o_names_where_the_rerun_goes(round_run, capsys):
    target = round_run.parent / "checked.ipynb"
    assert main(["export", str(round_run), "--execute", "-o", str(target)]) == 0
    assert target.is_file() and not (round_run.parent / "run.rerun.ipynb").exists()


def test_an_edited_cell_of_an_exported_notebook_is_refused_naming_it(tmp_path, capsys):
    rounds = conversation(
        with_user_cells(code_round("Print", "print(base * 2)", [stdout("4\n")]), user_cell("base = 2", 1))
    )
    save_conversation(rounds, tmp_path / "conv.yaml")
    main(["export", str(tmp_path / "conv.yaml"), "-o", str(tmp_path / "a.ipynb")])
    nb = nbformat.read(tmp_path / "a.ipynb", as_version=4)
    (code,) = [c for c in nb.cells if (c.metadata.get("twnb") or {}).get("cell") == "code"]
    code.source = "print(base * 3)"
    nbformat.write(nb, tmp_path / "a.ipynb")
    capsys.readouterr()
    assert main(["export", str(tmp_path / "a.ipynb"), "--check"]) == 2
    err = capsys.readouterr().err
    assert f"cell {nb.cells.index(code) + 1} shows code that differs from the code Round 1 recorded" in err
    assert not (tmp_path / "a.rerun.ipynb").exists()


def test_a_notebook_source_without_o_or_execute_says_what_to_give(tmp_path, capsys):
    nbformat.write(nbformat.v4.new_notebook(), tmp_path / "a.ipynb")
    assert main(["export", str(tmp_path / "a.ipynb")]) == 2
    assert "-o is needed" in capsys.readouterr().err


def test_the_rerun_never_replaces_the_notebook_it_reruns(tmp_path, capsys):
    nbformat.write(nbformat.v4.new_notebook(), tmp_path / "a.ipynb")
    assert main(["export", str(tmp_path / "a.ipynb"), "--check", "-o", str(tmp_path / "a.ipynb")]) == 2
    assert "is the input: name another file to write" in capsys.readouterr().err


def test_a_notebook_without_twnb_data_is_refused_in_one_line(tmp_path, capsys):
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")]), tmp_path / "a.ipynb")
    assert main(["export", str(tmp_path / "a.ipynb"), "--check"]) == 2
    assert "holds no twnb conversation" in capsys.readouterr().err
    assert not (tmp_path / "a.rerun.ipynb").exists()


def test_a_notebook_twnb_did_not_write_at_the_reruns_place_is_replaced_only_with_force(tmp_path, capsys):
    nbformat.write(nbformat.v4.new_notebook(), tmp_path / "a.ipynb")
    mine = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("my own work")])
    nbformat.write(mine, tmp_path / "a.rerun.ipynb")
    kept = (tmp_path / "a.rerun.ipynb").read_bytes()
    assert main(["export", str(tmp_path / "a.ipynb"), "--check"]) == 2
    assert "a.rerun.ipynb exists: add --force to replace it" in capsys.readouterr().err
    assert (tmp_path / "a.rerun.ipynb").read_bytes() == kept


@pytest.mark.slow
def test_checking_twice_replaces_the_earlier_reruns_own_output(round_run, capsys):
    assert main(["export", str(round_run), "--check"]) == 0
    first = nbformat.read(round_run.parent / "run.rerun.ipynb", as_version=4)
    capsys.readouterr()
    assert main(["export", str(round_run), "--check"]) == 0
    assert "3 of 3 cells reproduced." in capsys.readouterr().out
    second = nbformat.read(round_run.parent / "run.rerun.ipynb", as_version=4)
    assert _sources(second) == _sources(first)
    assert second.metadata["twnb"]["rerun"]["reproduced"] == 3
