"""The wheel's build hook (hatch_build.py) and the committed build of the JupyterLab extension.

Installing twnb runs no npm: the hook ships the bundle committed in twnb/labextension/ as it is (with
node and npm on PATH, as on a developer's machine, it still runs neither). tests/run.sh rebuilds the
bundle from labextension/ and compares (tests/labextension_build.py); the comparison is tested here."""

from __future__ import annotations

import json
import os
import shutil
import stat
import warnings
from pathlib import Path
from typing import Any

import pytest
from labextension_build import differences

import hatch_build

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "twnb" / "labextension"


def _initialize(root: Path, target: str) -> dict[str, Any]:
    build_data: dict[str, Any] = {"shared_data": {}, "force_include": {}}
    hook = hatch_build.LabextensionBuildHook(str(root), {}, None, None, str(root / "dist"), target)  # type: ignore[arg-type]
    hook.initialize("0", build_data)
    return build_data


@pytest.fixture
def npm_that_leaves_a_mark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """node and npm on PATH that create a marker file when anything runs them."""
    bin_dir, marker = tmp_path / "bin", tmp_path / "npm-ran"
    bin_dir.mkdir()
    for name in ("node", "npm"):
        path = bin_dir / name
        path.write_text(f"#!/bin/sh\necho {name} >> {marker}\necho v22.1.0\n")
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return marker


def test_the_wheel_ships_the_committed_build_and_runs_no_npm(npm_that_leaves_a_mark: Path) -> None:
    build_data = _initialize(ROOT, "wheel")
    assert build_data["shared_data"] == {str(COMMITTED): "share/jupyter/labextensions/twnb-labextension"}
    assert not npm_that_leaves_a_mark.exists()


def test_the_sdist_includes_the_committed_build(npm_that_leaves_a_mark: Path) -> None:
    assert _initialize(ROOT, "sdist")["force_include"] == {str(COMMITTED): "twnb/labextension"}
    assert not npm_that_leaves_a_mark.exists()


def test_a_checkout_without_the_build_installs_without_it_and_says_how_to_build_it(tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build_data = _initialize(tmp_path, "wheel")
    assert build_data["shared_data"] == {}
    assert any("cd labextension && npm ci && npm run build" in str(w.message) for w in caught)


def test_the_committed_build_is_the_extension_its_package_json_describes() -> None:
    built = json.loads((COMMITTED / "package.json").read_text())
    source = json.loads((ROOT / "labextension" / "package.json").read_text())
    assert (COMMITTED / built["jupyterlab"]["_build"]["load"]).is_file()
    assert (COMMITTED / "install.json").read_bytes() == (ROOT / "labextension" / "install.json").read_bytes()
    del built["jupyterlab"]["_build"]
    assert built == source  # a build made from another version of the sources would differ here


def _copy(tmp_path: Path, name: str) -> Path:
    return Path(shutil.copytree(COMMITTED, tmp_path / name))


def test_a_rebuild_elsewhere_matches_though_its_container_id_and_entry_name_differ(tmp_path: Path) -> None:
    """rspack derives remoteEntry's container id from the checkout's path: not a difference."""
    rebuilt = _copy(tmp_path, "rebuilt")
    entry = next((rebuilt / "static").glob("remoteEntry.*.js"))
    text = entry.read_text()
    moved = text.replace("N={", "N={9", 1).replace("var F=I(", "var F=I(9", 1)
    assert moved != text
    entry.unlink()
    (rebuilt / "static" / "remoteEntry.0123456789abcdef.js").write_text(moved)
    meta = json.loads((rebuilt / "package.json").read_text())
    meta["jupyterlab"]["_build"]["load"] = "static/remoteEntry.0123456789abcdef.js"
    (rebuilt / "package.json").write_text(json.dumps(meta, indent=2))
    assert differences(COMMITTED, rebuilt) == []


def test_a_changed_source_shows_as_a_differing_chunk(tmp_path: Path) -> None:
    rebuilt = _copy(tmp_path, "rebuilt")
    chunk = next(p for p in (rebuilt / "static").glob("*.js") if not p.name.startswith(("remote", "style")))
    chunk.write_text(chunk.read_text().replace("twnb", "twnB", 1))
    assert differences(COMMITTED, rebuilt) == [f"static/{chunk.name}: differs from the build"]
    renamed = chunk.with_name("999.0000000000000000.js")
    chunk.rename(renamed)
    assert differences(COMMITTED, rebuilt) == [
        f"static/{renamed.name}: built from the sources but not committed",
        f"static/{chunk.name}: committed but no longer built",
    ]
