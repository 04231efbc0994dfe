"""What the recorded code reads that nothing recorded makes is named up front: "`sales` comes from
outside the notebook: define it first"."""

from __future__ import annotations

from support.replay_rounds import code_round, conversation, stdout, user_cell, with_user_cells

from twnb.cli import main
from twnb.memory import save_conversation
from twnb.replay.export import build_notebook
from twnb.replay.name_sources import RecordedCode, outside_names, recorded_code


def _names(*codes: str, known: tuple[str, ...] = ()) -> list[str]:
    pieces = [RecordedCode(code, n, f"Round {n}'s code", succeeded=True) for n, code in enumerate(codes, 1)]
    return [found.name for found in outside_names(pieces, known)]


def test_a_name_read_before_anything_made_it_is_outside():
    assert _names("total = sales.sum()") == ["sales"]


def test_a_name_an_earlier_piece_made_is_not():
    assert _names("sales = load()\n", "total = sales.sum()") == ["load"]


def test_builtins_and_ipythons_own_names_are_not():
    assert _names("display(len([1]))\nget_ipython()\nprint(sorted({}))") == []


def test_names_the_code_binds_itself_anywhere_are_not():
    code = "import pandas as pd\ndef f(frame):\n    return frame\nfor row in range(2):\n    pass\nf(pd)\nrow"
    assert _names(code) == []


def test_magics_do_not_hide_what_the_code_reads():
    assert _names("%matplotlib inline\nplot(weekly)") == ["plot", "weekly"]


def test_a_pasted_prompt_is_read_as_ipython_runs_it():
    assert _names(">>> total = sales.sum()\n>>> total") == ["sales"]
    assert _names("In [3]: total = sales.sum()\n   ...: total") == ["sales"]


def test_a_shell_escape_and_help_are_read_as_ipython_runs_them():
    assert _names("files = !ls\nfiles?\nlen(files)") == []
    assert _names("frame = load()\nframe.head??") == ["load"]


def test_known_names_are_not_outside():
    assert _names("total = sales.sum()", known=("sales",)) == []


def test_each_name_is_named_once_at_its_first_reader():
    pieces = [
        RecordedCode("a = sales", 1, "Round 1's code", succeeded=True),
        RecordedCode("b = sales", 2, "Round 2's code", succeeded=True),
    ]
    (found,) = outside_names(pieces)
    assert (found.name, found.round_number, found.where) == ("sales", 1, "Round 1's code")


def test_a_failed_attempt_is_not_asked_what_it_reads():
    pieces = [RecordedCode("x = invented_name", 1, "Round 1's code", succeeded=False)]
    assert outside_names(pieces) == []


def test_after_a_star_import_nothing_more_is_named():
    assert _names("from math import *\n", "print(pi, anything)") == []


def test_the_variables_an_execution_record_lists_count_as_made():
    piece = RecordedCode("exec_result = run()", 1, "Round 1's code", succeeded=True, made=("hidden",))
    later = RecordedCode("hidden.sum()", 2, "Round 2's code", succeeded=True)
    assert [n.name for n in outside_names([piece, later])] == ["run"]


def test_the_users_cells_before_a_round_make_what_the_round_reads():
    rounds = conversation(
        with_user_cells(
            code_round("Sum", "print(sum(sales))", [stdout("12\n")]), user_cell("sales = [3, 4, 5]", 7)
        )
    )
    assert outside_names(recorded_code(rounds)) == []


def test_the_sentence_says_where_it_is_read_and_what_to_do():
    rounds = conversation(code_round("Sum", "print(sum(sales))", [stdout("12\n")]))
    (found,) = outside_names(recorded_code(rounds))
    assert found.sentence() == (
        "`sales` comes from outside the notebook (Round 1's code reads it; nothing recorded makes it): "
        "define it first"
    )


def test_the_exported_notebook_says_so_before_any_round(tmp_path):
    rounds = conversation(code_round("Sum", "print(sum(sales))", [stdout("12\n")]))
    nb = build_notebook(rounds, tmp_path / "a.ipynb", source_dir=tmp_path).notebook
    note = nb.cells[2]
    assert note.metadata["twnb"]["cell"] == "outside_names"
    assert "**Before you run this notebook**" in note.source and "sales" in note.source


def test_the_export_command_names_it(tmp_path, capsys):
    save_conversation(
        conversation(code_round("Sum", "print(sum(sales))", [stdout("12\n")])), tmp_path / "c.yaml"
    )
    assert main(["export", str(tmp_path / "c.yaml"), "-o", str(tmp_path / "out.ipynb")]) == 0
    assert "Before it can re-run: `sales` comes from outside the notebook" in capsys.readouterr().out
