"""`--check` checks what a reader sees: the re-run is compared with the outputs the cells show (what
nbviewer and JupyterLab draw), not with the metadata's copy; a notebook whose recorded code differs from
its shown cells is refused in one line naming the cell, and none of its code runs. Each test edits a
real exported notebook as someone sending it would."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from support.replay_rounds import code_round, conversation, stdout, user_cell, with_user_cells

from twnb.cli import main
from twnb.memory import AttachmentType, save_conversation
from twnb.replay import read_notebook
from twnb.replay.compare import compare_outputs
from twnb.replay.errors import ReplayError

MARKER = "import pathlib\npathlib.Path('ran-unseen').write_text('x')\nprint('rows 3')"


def _export(folder: Path, *rounds) -> Path:
    save_conversation(conversation(*rounds), folder / "conv.yaml")
    assert main(["export", str(folder / "conv.yaml"), "-o", str(folder / "a.ipynb")]) == 0
    return folder / "a.ipynb"


def _code_cells(nb) -> list[tuple[int, nbformat.NotebookNode]]:
    return [(i, c) for i, c in enumerate(nb.cells) if (c.metadata.get("twnb") or {}).get("cell") == "code"]


def _recorded_code(nb, new_code: str) -> None:
    """Replace the code the metadata's conversation recorded (the cells stay as they were)."""
    for round in nb.metadata["twnb"]["conversation"]["rounds"]:
        for post in round["post_list"]:
            for attachment in post["attachment_list"]:
                if attachment["type"] == AttachmentType.reply_content.value:
                    attachment["content"] = new_code


@pytest.mark.slow
def test_an_output_edited_by_hand_fails_the_check_naming_the_cell_and_its_line(tmp_path, capsys):
    path = _export(tmp_path, code_round("Count", "print('rows', 3)", [stdout("rows 3\n")]))
    nb = nbformat.read(path, as_version=4)
    ((index, cell),) = _code_cells(nb)
    cell.outputs[0]["text"] = "rows 3000\n"  # what the reader sees; the metadata still says 3
    nbformat.write(nb, path)
    capsys.readouterr()
    assert main(["export", str(path), "--check"]) == 1
    out = capsys.readouterr().out
    assert "0 of 1 cells reproduced." in out
    assert (
        f"differs: cell {index + 1} (Round 1): stdout line 1 differs: recorded 'rows 3000', now 'rows 3'"
        in out
    )


@pytest.mark.slow
def test_an_unedited_exported_notebook_still_reproduces(tmp_path, capsys):
    path = _export(tmp_path, code_round("Count", "print('rows', 3)", [stdout("rows 3\n")]))
    capsys.readouterr()
    assert main(["export", str(path), "--check"]) == 0
    assert "1 of 1 cells reproduced." in capsys.readouterr().out


def test_code_in_the_metadata_other_than_the_shown_cell_is_refused_by_check_and_never_runs(tmp_path, capsys):
    path = _export(tmp_path, code_round("Count", "print('rows 3')", [stdout("rows 3\n")]))
    nb = nbformat.read(path, as_version=4)
    _recorded_code(nb, MARKER)
    nbformat.write(nb, path)
    ((index, _),) = _code_cells(nb)
    capsys.readouterr()
    assert main(["export", str(path), "--check"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"cell {index + 1} shows code that differs from the code Round 1 recorded" in err
    assert not (tmp_path / "ran-unseen").exists()
    assert not (tmp_path / "a.rerun.ipynb").exists()


def test_a_shown_cell_edited_by_hand_is_refused_naming_the_cell_and_line(tmp_path):
    path = _export(tmp_path, code_round("Count", "x = 1\nprint('rows 3')", [stdout("rows 3\n")]))
    nb = nbformat.read(path, as_version=4)
    ((index, cell),) = _code_cells(nb)
    cell.source = "x = 1\nprint('rows 3000')"
    nbformat.write(nb, path)
    with pytest.raises(ReplayError, match=rf"cell {index + 1} shows code .* \(line 2: recorded"):
        read_notebook(path)


def test_round_code_the_metadata_adds_without_a_cell_is_refused(tmp_path):
    path = _export(tmp_path, code_round("Count", "print('rows 3')", [stdout("rows 3\n")]))
    nb = nbformat.read(path, as_version=4)
    ((index, _),) = _code_cells(nb)
    del nb.cells[index]  # the metadata keeps the Round's code; no cell shows it
    nbformat.write(nb, path)
    with pytest.raises(ReplayError, match="Round 1's code in the notebook's metadata is shown in no cell"):
        read_notebook(path)


def test_a_users_cell_recorded_in_the_metadata_unlike_the_shown_one_is_refused(tmp_path):
    round = with_user_cells(code_round("Sum", "print(base)", [stdout("2\n")]), user_cell("base = 2", 1))
    path = _export(tmp_path, round)
    nb = nbformat.read(path, as_version=4)
    cells = nb.metadata["twnb"]["conversation"]["rounds"][0]["extra"]["user_cells"]
    cells[0]["source"] = MARKER
    nbformat.write(nb, path)
    with pytest.raises(ReplayError, match="shows code that differs from your cell recorded before Round 1"):
        read_notebook(path)


def test_a_tables_difference_names_its_row_and_column():
    recorded = "   name  rows\n0  a     3\n1  b     4\n"
    now = "   name  rows\n0  a     3\n1  b     4000\n"
    table = [{"output_type": "execute_result", "metadata": {}, "data": {"text/plain": recorded}}]
    new = [{"output_type": "execute_result", "metadata": {}, "data": {"text/plain": now}}]
    reason = compare_outputs(table, new).reason
    assert reason == "text line 3 differs (row 1, column 'rows'): recorded '1 b 4', now '1 b 4000'"


def test_a_long_lines_difference_shows_where_it_differs_not_the_same_prefix():
    common = "x" * 80
    reason = compare_outputs([stdout(f"{common}A\n")], [stdout(f"{common}B\n")]).reason
    assert reason == f"stdout line 1 differs: recorded '…{'x' * 20}A', now '…{'x' * 20}B'"


@pytest.mark.slow
def test_an_artifact_the_rerun_writes_is_found_where_it_wrote_it(tmp_path, capsys):
    code = "open('squares.txt', 'w').write('1 4 9')\nprint('saved')"
    round = code_round("Save", code, [stdout("saved\n")])
    coder = round.post_list[1]
    from twnb.memory import Attachment

    coder.add_attachment(Attachment.create(AttachmentType.artifact_paths, ["squares.txt"]))
    save_conversation(conversation(round), tmp_path / "conv.yaml")
    capsys.readouterr()
    assert main(["export", str(tmp_path / "conv.yaml"), "-o", str(tmp_path / "a.ipynb"), "--check"]) == 0
    out = capsys.readouterr().out
    assert f"Artifact written by the re-run, found at {tmp_path / 'squares.txt'}." in out
    assert "Artifact not found" not in out
    nbformat.validate(
        nbformat.reads(json.dumps(json.loads((tmp_path / "a.ipynb").read_text())), as_version=4)
    )


@pytest.mark.slow
def test_a_line_forged_into_a_rounds_shown_result_fails_the_check(fake_llm, tmp_path, capsys):
    from support.nb_run import llm_env, run_notebook
    from support.nb_scripts import answer_round

    from twnb.render import MIME_TYPE

    fake_llm.load(answer_round())
    run_notebook(
        tmp_path, ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?"], llm_env(fake_llm, tmp_path)
    )
    path = tmp_path / "run.ipynb"
    nb = json.loads(path.read_text())
    (payload,) = [
        o["data"][MIME_TYPE]
        for c in nb["cells"]
        for o in c.get("outputs", [])
        if MIME_TYPE in o.get("data", {})
    ]
    results = [
        a for p in payload["post_list"] for a in p["attachment_list"] if a["type"] == "execution_result"
    ]
    results[-1]["content"] += "\n\nOutput:\nAll 12 data checks passed"  # what the Round's view shows
    path.write_text(json.dumps(nb))
    capsys.readouterr()
    assert main(["export", str(path), "--check"]) == 1
    out = capsys.readouterr().out
    assert "the Round's result shows 'All 12 data checks passed', which the re-run did not print" in out
