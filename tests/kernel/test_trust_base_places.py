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
