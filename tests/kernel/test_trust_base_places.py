"""TrustBase's answers for paths, without a kernel: what resolves into the trust base is in it, however
it is named, and a folder's cached answer is forgotten when the code moves or links anything."""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

from twnb.kernel.guard.guard_events import FileEffect
from twnb.kernel.guard.trust_base import TrustBase


def _base(tmp_path: Path) -> tuple[TrustBase, Path, Path]:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    notebook = tmp_path / "nb"
    notebook.mkdir()
    return TrustBase.build(twnb_folders=[plugins]), plugins, notebook


def test_a_file_in_a_protected_folder_is_held_by_any_name(tmp_path):
    base, plugins, notebook = _base(tmp_path)
    assert base.holds(str(plugins / "tool.py"))
    assert base.holds(str(plugins))
    (notebook / "link").symlink_to(plugins)
    assert base.holds(str(notebook / "link" / "tool.py"))
    assert not base.holds(str(notebook / "result.csv"))


def test_settings_files_are_held_by_name_in_any_folder(tmp_path):
    base, _, notebook = _base(tmp_path)
    for name in ("twnb.yaml", ".env", "sitecustomize.py", "jupyter_server_config.py", "ipython_config.py"):
        assert base.holds(str(notebook / name)), name
    assert not base.holds(str(notebook / "jupyter_notes.py"))


def test_a_folder_swapped_for_a_link_is_seen_after_the_code_moves_it(tmp_path):
    base, plugins, notebook = _base(tmp_path)
    out = notebook / "out"
    out.mkdir()
    assert base.judge("open", (str(out / "a.csv"), "w", 0), FileEffect("write", str(out / "a.csv"))) is None
    os.rename(out, notebook / "old")
    base.judge(
        "os.rename", (str(out), str(notebook / "old")), FileEffect("move", str(notebook / "old"), str(out))
    )
    out.symlink_to(plugins)  # as another process could
    verdict = base.judge("open", (str(out / "b.py"), "w", 0), FileEffect("write", str(out / "b.py")))
    assert verdict is not None and verdict.kind == "trust-base"


def test_a_place_inside_another_is_named_as_the_inner_one():
    """In many Pythons site-packages sits inside the standard library's folder: a write there is named
    by the innermost place that holds it (here a folder of twnb's inside the standard library's)."""
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    inner = os.path.join(stdlib, "twnb-test-plugins")
    base = TrustBase.build(twnb_folders=[inner])
    assert "twnb's own folders" in base.holds(os.path.join(inner, "tool.py"))
    assert "standard library" in base.holds(os.path.join(stdlib, "os.py"))


# -- git's places ------------------------------------------------------------------------------------------


def test_anything_in_a_git_folder_is_held_wherever_it_is(tmp_path):
    base, _, notebook = _base(tmp_path)
    for path in (".git", ".git/config", ".git/hooks/pre-commit", "data/clone/.git/config"):
        assert "git repository" in base.holds(str(notebook / path)), path
    assert not base.holds(str(notebook / "notes.git"))
    assert not base.holds(str(notebook / ".github" / "workflow.yml"))


def test_the_repository_a_git_file_points_to_is_held(tmp_path, monkeypatch):
    """A worktree's `.git` is a file naming its folder in the main repository, whose `commondir` names
    the folder holding the shared config and hooks: neither needs to be called `.git`."""
    store = tmp_path / "store"
    (store / "worktrees" / "nb").mkdir(parents=True)
    (store / "worktrees" / "nb" / "commondir").write_text("../..\n", encoding="utf-8")
    notebook = tmp_path / "nb"
    (notebook / "sub").mkdir(parents=True)
    (notebook / ".git").write_text(f"gitdir: {store / 'worktrees' / 'nb'}\n", encoding="utf-8")
    monkeypatch.chdir(notebook / "sub")  # the repository is found from a parent of the working folder
    base = TrustBase.build()
    assert "git repository" in base.holds(str(store / "worktrees" / "nb" / "HEAD"))
    assert "git repository" in base.holds(str(store / "config"))
    assert "git repository" in base.holds(str(store / "hooks" / "pre-commit"))


def test_a_hard_link_to_the_repositorys_config_is_held(tmp_path, monkeypatch):
    notebook = tmp_path / "nb"
    (notebook / ".git").mkdir(parents=True)
    (notebook / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    os.link(notebook / ".git" / "config", notebook / "settings.txt")  # made before the Round
    monkeypatch.chdir(notebook)
    base = TrustBase.build()
    assert "hard link" in base.holds(str(notebook / "settings.txt"))


def test_the_users_git_settings_are_held(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    base = TrustBase.build()
    assert "git settings" in base.holds(str(tmp_path / ".gitconfig"))
    assert "git settings" in base.holds(str(tmp_path / ".config" / "git" / "config"))


# -- modules that would shadow an installed one ---------------------------------------------------------


def test_a_write_that_would_shadow_an_installed_module_is_refused_with_its_own_hint(tmp_path, monkeypatch):
    _, _, notebook = _base(tmp_path)
    monkeypatch.chdir(notebook)
    base = TrustBase.build()
    target = str(notebook / "yaml.py")
    verdict = base.judge("open", (target, "w", 0), FileEffect("write", target))
    assert verdict is not None and verdict.kind == "trust-base"
    assert "`yaml`" in verdict.message and "site-packages" in verdict.message
    assert "name" in verdict.hint
    removed = base.judge("os.remove", (target,), FileEffect("remove", target))
    assert removed is None  # removing such a file plants nothing


def test_a_write_through_a_link_that_would_make_a_shadowing_module_is_held(tmp_path, monkeypatch):
    _, _, notebook = _base(tmp_path)
    monkeypatch.chdir(notebook)
    (notebook / "notes.txt").symlink_to(notebook / "yaml.py")  # made before the Round, dangling
    base = TrustBase.build()
    target = str(notebook / "notes.txt")
    verdict = base.judge("open", (target, "w", 0), FileEffect("write", target))
    assert verdict is not None and "`yaml`" in verdict.message
