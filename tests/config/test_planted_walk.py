"""What the warden looks for at a confined kernel's end (twnb/config/planted.py), on real folders:
which entries count, and the bounds of the walk. The attacks themselves, with real confined kernels:
tests/confine/test_planted.py."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from twnb.config import planted

INSTALLED = planted.LaterImports({"yaml", "json", "pandas"})


def _find(*folders: Path, notebook: Path, fixed: tuple[Path, ...] = ()) -> planted.Found:
    return planted.find_planted(
        [str(f) for f in folders],
        notebook_dir=str(notebook),
        since_ns=0,
        fixed=[str(p) for p in fixed],
        installed=INSTALLED,
    )


def test_a_folder_inside_another_is_walked_once(tmp_path: Path) -> None:
    (tmp_path / "artifacts").mkdir()
    (tmp_path / "artifacts" / "yaml.py").write_text("")
    found = _find(tmp_path, tmp_path / "artifacts", notebook=tmp_path)
    assert [p.path for p in found.planted] == [str(tmp_path / "artifacts" / "yaml.py")]


def test_a_module_inside_a_package_of_the_folder_is_no_shadow(tmp_path: Path) -> None:
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text("")
    (tmp_path / "mypkg" / "json.py").write_text("")
    (tmp_path / "mypkg" / "yaml").mkdir()
    (tmp_path / "mypkg" / "yaml" / "__init__.py").write_text("")
    assert _find(tmp_path, notebook=tmp_path).planted == []


def test_the_notebook_folders_own_trust_base_is_left_to_its_baseline(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("x")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "AGENTS.md").write_text("x")
    (found,) = _find(tmp_path, notebook=tmp_path).planted
    assert found.path == str(tmp_path / "sub" / "AGENTS.md") and found.holder == str(tmp_path / "sub")


def test_a_sub_folders_plugin_file_is_quarantined_for_that_folder(tmp_path: Path) -> None:
    (tmp_path / "sub" / "plugins").mkdir(parents=True)
    (tmp_path / "sub" / "plugins" / "p.yaml").write_text("x")
    (found,) = _find(tmp_path, notebook=tmp_path).planted
    assert found.holder == str(tmp_path / "sub")


def test_a_git_mounted_read_only_at_the_start_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "sub" / ".git").mkdir(parents=True)
    found = _find(tmp_path, notebook=tmp_path, fixed=(tmp_path / ".git",))
    assert [p.path for p in found.planted] == [str(tmp_path / "sub" / ".git")]


def test_what_was_moved_aside_before_is_not_looked_at_again(tmp_path: Path) -> None:
    moved = planted.move_aside(str(_touch(tmp_path / "yaml.py")))
    assert moved == str(tmp_path / "yaml.py.twnb-quarantined")
    assert planted.move_aside(str(_touch(tmp_path / "yaml.py"))).endswith(".twnb-quarantined-2")
    assert [p.path for p in _find(tmp_path, notebook=tmp_path).planted] == []


def test_the_walk_stops_at_its_bound_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(planted, "MAX_ENTRIES", 10)
    for index in range(20):
        _touch(tmp_path / f"data{index}.csv")
    assert _find(tmp_path, notebook=tmp_path).cut


def test_installed_modules_are_this_pythons_but_not_the_writable_folders(tmp_path: Path) -> None:
    _touch(tmp_path / "only_here_module.py")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "path", [str(tmp_path), *sys.path])
        names = planted.installed_modules([str(tmp_path)])
    assert {"yaml", "json"} <= set(names) and "only_here_module" not in names and "sys" not in names


def test_installed_modules_include_those_an_installed_distribution_declares(tmp_path: Path) -> None:
    """A name nothing installs that a distribution requires (pandas' numexpr), said with who imports it;
    the writable folders' own distributions are no installed ones."""
    for folder, name in (("site", "twnb_optional_probe"), ("nb", "twnb_written_probe")):
        (tmp_path / folder / "fakeframes-1.0.dist-info").mkdir(parents=True)
        (tmp_path / folder / "fakeframes-1.0.dist-info" / "METADATA").write_text(
            f'Name: fakeframes\nRequires-Dist: {name}; extra == "performance"\n'
        )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "path", [str(tmp_path / "nb"), *sys.path, str(tmp_path / "site")])
        names = planted.installed_modules([str(tmp_path / "nb")])
    assert names["twnb_optional_probe"] == "fakeframes imports if it finds it"
    assert names["yaml"] == "would shadow the installed yaml" and "twnb_written_probe" not in names
    _touch(tmp_path / "nb" / "twnb_optional_probe.py")
    found = planted.find_planted(
        [str(tmp_path / "nb")], notebook_dir=str(tmp_path / "nb"), since_ns=0, fixed=[], installed=names
    )
    assert [p.what for p in found.planted] == ["a module that fakeframes imports if it finds it"]


def test_the_declared_names_are_read_only_for_a_module_of_a_name_not_installed(tmp_path: Path) -> None:
    """The warden's end pays for them only when the kernel left such a module."""
    reads = []

    def declared() -> dict[str, tuple[str, ...]]:
        reads.append(1)
        return {"numexpr": ("pandas",)}

    (tmp_path / "outputs").mkdir()
    since = time.time_ns() + planted.CLOCK_SLACK_NS + 20_000_000
    time.sleep((since - time.time_ns()) / 1e9 + 0.02)
    _touch(tmp_path / "outputs" / "summary.csv")
    _touch(tmp_path / "yaml.py")
    found = _find_since(since, tmp_path, planted.LaterImports({"yaml"}, declared)).planted
    assert [p.what for p in found] == ["a module that would shadow the installed yaml"] and reads == []
    _touch(tmp_path / "numexpr.py")
    found = _find_since(since, tmp_path, planted.LaterImports({"yaml"}, declared)).planted
    assert sorted(p.what for p in found) == [
        "a module that pandas imports if it finds it",
        "a module that would shadow the installed yaml",
    ]
    assert reads == [1]


def test_git_status_in_a_repository_below_is_not_taken_for_a_planted_git(tmp_path: Path) -> None:
    (tmp_path / "project" / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "project" / ".git" / "config").write_text("[core]\n")
    since = time.time_ns() + planted.CLOCK_SLACK_NS + 20_000_000
    time.sleep((since - time.time_ns()) / 1e9 + 0.02)
    _touch(tmp_path / "project" / ".git" / "index.lock")  # as git status writes the index
    os.replace(tmp_path / "project" / ".git" / "index.lock", tmp_path / "project" / ".git" / "index")
    assert _find_since(since, tmp_path).planted == []


def test_a_git_folder_renamed_into_place_is_planted(tmp_path: Path) -> None:
    (tmp_path / "stash" / "hooks").mkdir(parents=True)
    (tmp_path / "stash" / "config").write_text('[core]\n\tfsmonitor = "touch x"\n')
    (tmp_path / "project").mkdir()
    since = time.time_ns() + planted.CLOCK_SLACK_NS + 20_000_000
    time.sleep((since - time.time_ns()) / 1e9 + 0.02)
    os.rename(tmp_path / "stash", tmp_path / "project" / ".git")  # made in an earlier session
    assert [p.path for p in _find_since(since, tmp_path).planted] == [str(tmp_path / "project" / ".git")]


def _find_since(since: int, folder: Path, installed: planted.LaterImports = INSTALLED) -> planted.Found:
    return planted.find_planted(
        [str(folder)], notebook_dir=str(folder), since_ns=since, fixed=[], installed=installed
    )


def _touch(path: Path) -> Path:
    path.write_text("")
    return path


def test_a_session_left_unended_is_finished_into_the_readers_state_folder(tmp_path: Path) -> None:
    """A reader that finishes a session no process is left of (the warden killed) quarantines the
    sub-folder's trust-base file in the record its own environment names."""
    from twnb.config import FolderQuarantine
    from twnb.config.quarantine import record_dir, save

    notebook = tmp_path / "nb"
    (notebook / "sub").mkdir(parents=True)
    (notebook / "sub" / "AGENTS.md").write_text("planted\n")
    environ = {"HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "state")}
    place = record_dir(notebook, environ)
    place.mkdir(parents=True)
    gone = {"warden": [1, 0], "kernel": [1, 0], "userns": None, "since_ns": 0}
    session = {**gone, "writable": [str(notebook.resolve())], "fixed": []}
    save(place, {"folder": str(notebook.resolve()), "baseline": {}, "quarantined": {}, "sessions": [session]})
    FolderQuarantine(notebook, environ).record()
    sub = FolderQuarantine(notebook / "sub", environ)
    assert sub.record_dir.is_relative_to(tmp_path / "state") and "AGENTS.md" in sub.quarantined()
