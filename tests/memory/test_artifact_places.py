"""Which files a conversation's artifact paths may bring along: real files in its own folders only."""

from __future__ import annotations

from pathlib import Path

import pytest

from twnb.memory.artifact_places import ArtifactPlaces, notebook_folder_of


@pytest.fixture
def notebook(tmp_path: Path) -> Path:
    folder = tmp_path / "notebook"
    (folder / "twnb-artifacts").mkdir(parents=True)
    (folder / "twnb-artifacts" / "plot.png").write_bytes(b"png")
    (folder / ".twnb" / "abc" / "rounds").mkdir(parents=True)
    (folder / ".twnb" / "abc" / "cassette.yaml").write_text("x")
    (folder / ".env").write_text("TOKEN=x")
    (tmp_path / "outside.txt").write_text("x")
    (folder / "link-out.txt").symlink_to(tmp_path / "outside.txt")
    (folder / "link-in.png").symlink_to(folder / "twnb-artifacts" / "plot.png")
    return folder


def test_a_file_in_the_notebooks_folder_tree_is_admitted_as_its_real_path(notebook):
    places = ArtifactPlaces.of([notebook])
    assert places.admits(notebook / "twnb-artifacts" / "plot.png") == notebook / "twnb-artifacts" / "plot.png"
    assert places.admits(notebook / "link-in.png") == notebook / "twnb-artifacts" / "plot.png"


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "/proc/self/environ",
        "../outside.txt",
        "link-out.txt",
        ".env",
        ".twnb/abc/cassette.yaml",
    ],
)
def test_a_path_outside_or_hidden_is_refused(notebook, monkeypatch, path):
    monkeypatch.chdir(notebook)
    places = ArtifactPlaces.of([notebook])
    assert places.admits(path) is None and not places.inside(path)


def test_the_session_folder_admits_what_is_in_it_when_it_is_one_of_the_places(notebook):
    places = ArtifactPlaces.of([notebook, notebook / ".twnb"])
    assert places.admits(notebook / ".twnb" / "abc" / "cassette.yaml") is not None


def test_a_folder_is_not_a_file_to_copy(notebook):
    assert ArtifactPlaces.of([notebook]).admits(notebook / "twnb-artifacts") is None


def test_an_autosave_belongs_to_the_notebook_that_holds_its_session_folder(notebook):
    assert notebook_folder_of(notebook / ".twnb" / "abc" / "rounds") == notebook
    assert notebook_folder_of(notebook / "twnb-artifacts" / "plot.png") == notebook / "twnb-artifacts"


def test_the_default_session_folder_is_the_settings_default():
    from twnb.config.table import SETTINGS_BY_NAME
    from twnb.memory.artifact_places import DEFAULT_SESSION_FOLDER

    assert SETTINGS_BY_NAME["session_dir"].default == DEFAULT_SESSION_FOLDER
