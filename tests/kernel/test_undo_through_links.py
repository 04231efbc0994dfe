"""Undo sees files as the file system does: a symlink or hard link swapped in since the run, or a folder
above the file made a link to elsewhere, is never written, moved or restored through; what was left
is said. Each test makes the swap as code or a later cell would, with real files and links."""

from __future__ import annotations

import os
from pathlib import Path

from twnb.kernel import UndoLog
from twnb.kernel.guard.guard_events import FileEffect
from twnb.kernel.guard.runtime_guard import GuardedRun


def _overwrote(folder: Path, path: Path, new: str) -> UndoLog:
    """A run that overwrote `path` (its copy kept by the guard's hook) with `new`."""
    log = UndoLog(10, folder / "copies", {})
    snapshot = log.begin("one", "pass", {})
    GuardedRun(keep_before=snapshot.keep_file).record(FileEffect("write", str(path)))
    path.write_text(new)
    log.end(snapshot, {})
    return log


def _created(folder: Path, path: Path) -> UndoLog:
    log = UndoLog(10, folder / "copies", {})
    snapshot = log.begin("one", "pass", {})
    path.write_text("made by the run")
    log.end(snapshot, {}, created_files=[str(path)])
    return log


def test_a_symlink_swapped_in_for_an_overwritten_file_is_not_written_through(tmp_path: Path) -> None:
    notebook, outside = tmp_path / "notebook", tmp_path / "outside"
    notebook.mkdir(), outside.mkdir()
    data, victim = notebook / "data.csv", outside / "victim.txt"
    data.write_text("old content")
    log = _overwrote(notebook, data, "new content")
    victim.write_text("not yours")
    data.unlink()
    data.symlink_to(victim)
    report = log.undo(["one"], notebook / "twnb-undone" / "r", within=notebook)
    assert victim.read_text() == "not yours"
    assert report.files_restored == []
    assert report.not_undone == ["`data.csv` was not restored: it, or a folder above it, is now a symlink"]


def test_a_folder_above_the_file_made_a_symlink_is_not_written_through(tmp_path: Path) -> None:
    notebook, outside = tmp_path / "notebook", tmp_path / "outside"
    (notebook / "sub").mkdir(parents=True), outside.mkdir()
    data = notebook / "sub" / "data.csv"
    data.write_text("old content")
    log = _overwrote(notebook, data, "new content")
    (outside / "data.csv").write_text("not yours")
    data.unlink(), (notebook / "sub").rmdir()
    (notebook / "sub").symlink_to(outside, target_is_directory=True)
    log.undo(["one"], notebook / "twnb-undone" / "r", within=notebook)
    assert (outside / "data.csv").read_text() == "not yours"


def test_a_hard_link_swapped_in_is_not_written_through(tmp_path: Path) -> None:
    notebook = tmp_path / "notebook"
    notebook.mkdir()
    data, other = notebook / "data.csv", tmp_path / "other.txt"
    data.write_text("old content")
    log = _overwrote(notebook, data, "new content")
    other.write_text("not yours")
    data.unlink()
    os.link(other, data)
    report = log.undo(["one"], notebook / "twnb-undone" / "r", within=notebook)
    assert other.read_text() == "not yours"
    assert report.not_undone == ["`data.csv` was not restored: it now has another name (a hard link)"]


def test_an_overwritten_file_still_in_place_is_restored(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text("old content")
    log = _overwrote(tmp_path, data, "new content")
    report = log.undo(["one"], tmp_path / "twnb-undone" / "r", within=tmp_path)
    assert data.read_text() == "old content" and report.files_restored == [str(data)]


def test_a_file_in_a_folder_swapped_for_a_link_to_elsewhere_is_not_moved_into_twnb_undone(
    tmp_path: Path,
) -> None:
    notebook, outside = tmp_path / "notebook", tmp_path / "outside"
    (notebook / "out").mkdir(parents=True), outside.mkdir()
    made = notebook / "out" / "notes.txt"
    log = _created(notebook, made)
    made.unlink(), (notebook / "out").rmdir()
    (notebook / "out").symlink_to(outside, target_is_directory=True)
    (outside / "notes.txt").write_text("not yours")
    report = log.undo(["one"], notebook / "twnb-undone" / "r", within=notebook)
    assert (outside / "notes.txt").read_text() == "not yours"
    assert not (notebook / "twnb-undone").exists()
    assert report.files_moved == {}


def test_a_created_file_outside_the_notebooks_folder_is_left_where_it_is(tmp_path: Path) -> None:
    notebook, outside = tmp_path / "notebook", tmp_path / "outside"
    notebook.mkdir(), outside.mkdir()
    made = outside / "notes.txt"
    log = _created(notebook, made)
    report = log.undo(["one"], notebook / "twnb-undone" / "r", within=notebook)
    assert made.read_text() == "made by the run"
    assert report.not_undone == ["`notes.txt` was left where it is: it is outside the notebook's folder"]


def test_twnb_undone_made_a_link_to_elsewhere_receives_nothing(tmp_path: Path) -> None:
    notebook, outside = tmp_path / "notebook", tmp_path / "outside"
    notebook.mkdir(), outside.mkdir()
    made = notebook / "notes.txt"
    log = _created(notebook, made)
    (notebook / "twnb-undone").symlink_to(outside, target_is_directory=True)
    log.undo(["one"], notebook / "twnb-undone" / "r", within=notebook)
    assert list(outside.iterdir()) == [] and made.exists()
