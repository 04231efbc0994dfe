"""The user's own cells in an exported notebook: written before the Round's own cells, marked as the
user's, and re-run with them, so the notebook is the analysis as it happened."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.replay_rounds import code_round, conversation, stdout, user_cell, with_user_cells

from twnb.replay.export import build_notebook
from twnb.replay.rerun import RerunOptions, rerun_notebook
from twnb.session.factory import NotebookParts

LOAD = user_cell("sales = [3, 4, 5]", 2, made=("sales",))


def _kinds(nb) -> list[str]:
    return [(cell.metadata.get("twnb") or {}).get("cell", "") for cell in nb.cells]


def test_the_users_cells_come_before_the_rounds_own_cells_marked_as_theirs(tmp_path):
    rounds = conversation(with_user_cells(code_round("Sum", "print(sum(sales))", [stdout("12\n")]), LOAD))
    nb = build_notebook(rounds, tmp_path / "a.ipynb", source_dir=tmp_path).notebook
    assert _kinds(nb)[:7] == ["title", "setup", "text", "user", "show", "text", "code"]
    heading, cell = nb.cells[2], nb.cells[3]
    assert heading.source == "*Your own cells, run before Round 1:*"
    assert cell.source == "sales = [3, 4, 5]" and cell.outputs == []
    assert cell.metadata["twnb"] == {"cell": "user", "round_id": rounds.rounds[0].id, "execution_count": 2}


def test_a_users_cell_that_raised_then_is_tagged_so_a_rerun_carries_on_past_it(tmp_path):
    raised = user_cell("1 / 0", 3, error="ZeroDivisionError: division by zero")
    rounds = conversation(with_user_cells(code_round("Sum", "print(1)", [stdout("1\n")]), raised))
    nb = build_notebook(rounds, tmp_path / "a.ipynb", source_dir=tmp_path).notebook
    (cell,) = [c for c in nb.cells if c.metadata["twnb"]["cell"] == "user"]
    assert cell.metadata["tags"] == ["raises-exception"]
    assert cell.metadata["twnb"]["error"] == "ZeroDivisionError: division by zero"


def test_a_cell_too_long_to_record_whole_is_shown_not_run(tmp_path):
    clipped = {**user_cell("data = [1, 2, 3", 4), "clipped": True}
    rounds = conversation(with_user_cells(code_round("Sum", "print(1)", [stdout("1\n")]), clipped))
    built = build_notebook(rounds, tmp_path / "a.ipynb", source_dir=tmp_path)
    (shown,) = [cell for cell in built.notebook.cells if (cell.metadata.get("twnb") or {}).get("clipped")]
    assert shown.cell_type == "markdown" and "too long to record whole" in shown.source
    assert all(not piece.user for piece in built.pieces.values())


def test_several_rounds_each_get_the_cells_that_ran_before_them(tmp_path):
    rounds = conversation(
        with_user_cells(code_round("One", "print(1)", [stdout("1\n")]), user_cell("a = 1", 1)),
        with_user_cells(code_round("Two", "print(2)", [stdout("2\n")]), user_cell("b = 2", 3)),
    )
    nb = build_notebook(rounds, tmp_path / "a.ipynb", source_dir=tmp_path).notebook
    users = [
        (c.source, c.metadata["twnb"]["round_id"]) for c in nb.cells if c.metadata["twnb"]["cell"] == "user"
    ]
    assert users == [("a = 1", rounds.rounds[0].id), ("b = 2", rounds.rounds[1].id)]


@pytest.mark.slow
def test_a_rerun_runs_the_users_cells_first_and_reproduces_every_cell(tmp_path):
    rounds = conversation(with_user_cells(code_round("Sum", "print(sum(sales))", [stdout("12\n")]), LOAD))
    built = build_notebook(rounds, tmp_path / "a.ipynb", source_dir=tmp_path)
    report = rerun_notebook(built.notebook, built.pieces, cwd=tmp_path, options=RerunOptions(timeout=60))
    assert report.summary() == "2 of 2 cells reproduced"
    assert [cell.where for cell in report.cells] == ["your cell before Round 1", "Round 1"]


@pytest.mark.slow
def test_a_users_cell_reproduces_when_it_raises_as_it_did_and_differs_when_it_does_not(tmp_path):
    rounds = conversation(
        with_user_cells(
            code_round("Print", "print('ok')", [stdout("ok\n")]),
            user_cell("1 / 0", 1, error="ZeroDivisionError: division by zero"),
            user_cell("x = 1", 2, error="NameError: name 'y' is not defined"),
        )
    )
    built = build_notebook(rounds, tmp_path / "a.ipynb", source_dir=tmp_path)
    report = rerun_notebook(built.notebook, built.pieces, cwd=tmp_path, options=RerunOptions(timeout=60))
    assert [cell.comparison.reproduced for cell in report.cells] == [True, False, True]
    assert report.cells[1].comparison.reason == "it raised when recorded, not now"


@pytest.mark.slow
def test_a_session_with_the_users_cells_replays_from_its_saved_file(make_session, shell, workdir):
    from support.session_script import one_step

    from twnb.kernel import UserCellLog

    log = UserCellLog(shell).start()
    try:
        shell.run_cell("prices = [2, 3, 4]", store_history=True)
        session = make_session(
            one_step("total = sum(prices)\nprint(total)"), notebook=NotebookParts(user_cells=log)
        )
        assert session.run_round("Add up the prices").state == "finished"
    finally:
        log.close()
    session.save(workdir / "conv.yaml")
    done = subprocess.run(
        [sys.executable, "-m", "twnb.cli", "export", "conv.yaml", "-o", "out.ipynb", "--check"],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 of 2 cells reproduced." in done.stdout
