"""An undone Round in an exported notebook: its heading says so in one line, and its code is shown, never
a code cell a re-run would run again (the user took its effects back); `load --rerun` skips it too."""

from __future__ import annotations

from support.replay_rounds import code_round, conversation, stdout

from twnb.replay import recorded_code
from twnb.replay.export import build_notebook

LINE = "Undone by the user: removed total."


def undone_conversation():
    rounds = conversation(
        code_round("One", "total = 1", [stdout("")]), code_round("Two", "print(2)", [stdout("2\n")])
    )
    rounds.rounds[0].extra["undone"] = {"line": LINE, "removed": ["total"]}
    return rounds


def test_the_heading_says_it_was_undone_and_its_code_is_shown_not_run(tmp_path):
    nb = build_notebook(undone_conversation(), tmp_path / "a.ipynb", source_dir=tmp_path).notebook
    code_cells = [
        cell.source for cell in nb.cells if cell.cell_type == "code" and "taskweaver" not in cell.source
    ]
    assert code_cells == ["print(2)"]
    text = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    assert f"*{LINE}*" in text
    assert "```python\ntotal = 1\n```" in text


def test_recorded_code_leaves_an_undone_rounds_code_out():
    assert [piece.code for piece in recorded_code(undone_conversation())] == ["print(2)"]
