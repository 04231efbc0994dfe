"""Which settings of a `pyproject.toml` or `setup.cfg` make a developer tool run code
(twnb/config/tool_settings.py): the warden moves such a file aside at a confined kernel's end only when
they changed, so the user's edit of anything else while the kernel runs is left alone. Real files."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from twnb.config import FolderQuarantine, KernelEnd, LaunchRecord, planted, quarantine_review
from twnb.config.tool_settings import (
    JUDGED_NAMES,
    UNREADABLE,
    changed,
    code_loading_settings,
    settings_at_start,
)
from twnb.confine.plan import TOOL_CONFIG
from twnb.kernel.guard.trust_base import PROTECTED_NAMES, TOOL_NAMES

PYPROJECT = '[project]\nname = "analysis"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n'
SETUP_CFG = "[metadata]\nname = analysis\n\n[tool:pytest]\naddopts = -q\n"


def _write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("name", "text", "edited"),
    [
        (
            "pyproject.toml",
            PYPROJECT,
            PYPROJECT.replace("0.1.0", "0.2.0") + "\n[tool.ruff]\nline-length = 99\n",
        ),
        ("setup.cfg", SETUP_CFG, SETUP_CFG.replace("name = analysis", "name = analysis\nversion = 2")),
    ],
)
def test_an_edit_of_other_settings_is_no_change(tmp_path: Path, name: str, text: str, edited: str) -> None:
    _write(tmp_path, name, text)
    at_start = settings_at_start([str(tmp_path)])
    _write(tmp_path, name, edited)
    assert not changed(str(tmp_path / name), at_start)


@pytest.mark.parametrize(
    ("name", "added"),
    [
        ("pyproject.toml", '\n[tool.pytest]\npythonpath = ["."]\n'),
        ("pyproject.toml", '\n[tool.mypy]\nplugins = ["typing_checks"]\n'),
        ("pyproject.toml", '\n[tool.coverage.run]\nplugins = ["cov_plugin"]\n'),
        ("pyproject.toml", '\n[tool.pylint.main]\ninit-hook = "import os"\n'),
        ("setup.cfg", "\n[flake8:local-plugins]\npaths = .\n"),
        ("setup.cfg", "\n[mypy]\nplugins = typing_checks\n"),
        ("setup.cfg", "\n[pylint.main]\nload-plugins = lint_plugin\n"),
        ("setup.cfg", "\n[testenv]\ncommands = python -c 1\n"),
        ("setup.cfg", "\n[pylint.main]\nextension-pkg-allow-list = native_ext\n"),
        ("pyproject.toml", '\n[tool.mypy]\nPlugins = ["typing_checks"]\n'),
    ],
)
def test_a_setting_that_makes_a_tool_run_code_is_a_change(tmp_path: Path, name: str, added: str) -> None:
    text = PYPROJECT if name == "pyproject.toml" else SETUP_CFG
    _write(tmp_path, name, text)
    at_start = settings_at_start([str(tmp_path)])
    _write(tmp_path, name, text + added)
    assert changed(str(tmp_path / name), at_start)


def test_a_changed_addopts_is_a_change(tmp_path: Path) -> None:
    _write(tmp_path, "setup.cfg", SETUP_CFG)
    at_start = settings_at_start([str(tmp_path)])
    _write(tmp_path, "setup.cfg", SETUP_CFG.replace("-q", "-q -p timing_plugin"))
    assert changed(str(tmp_path / "setup.cfg"), at_start)


def test_a_file_absent_at_the_start_counts_only_with_such_settings(tmp_path: Path) -> None:
    assert not changed(_write(tmp_path, "pyproject.toml", '[project]\nname = "x"\n'), {})
    assert changed(_write(tmp_path, "setup.cfg", SETUP_CFG), {})


def test_a_key_given_twice_is_read_as_unparsable_and_judged_by_its_bytes(tmp_path: Path) -> None:
    """pytest's parser and ours could take different ones of the two: neither is trusted."""
    path = _write(tmp_path, "setup.cfg", "[tool:pytest]\naddopts = -q\naddopts = -p timing_plugin\n")
    assert list(code_loading_settings(path)) == [UNREADABLE]
    assert changed(path, {})
    assert not changed(path, settings_at_start([str(tmp_path)]))  # the same bytes


def test_the_start_keeps_the_text_and_imports_no_parser(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", PYPROJECT)
    _write(tmp_path, "setup.cfg", SETUP_CFG)
    code = (
        "import sys; from twnb.config.tool_settings import settings_at_start; "
        f"kept = settings_at_start([{str(tmp_path)!r}]); "
        "print(sorted(k for v in kept.values() for k in v), 'tomllib' in sys.modules, "
        "'configparser' in sys.modules)"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert ran.stdout.split() == ["['text',", "'text']", "False", "False"]


def test_a_fifo_in_the_files_place_is_read_as_absent_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pyproject.toml")
    result: list[object] = []
    reader = threading.Thread(
        target=lambda: result.append(code_loading_settings(str(tmp_path / "pyproject.toml")))
    )
    reader.start()
    reader.join(5)
    assert result == [{}]


def test_each_tool_config_is_held_by_the_guard_the_mounts_and_the_warden() -> None:
    by_warden = {*planted.TOOL_FILES, *planted.JUDGED_FILES, planted.EDITOR_FOLDER}
    assert set(JUDGED_NAMES) == set(planted.JUDGED_FILES)
    assert set(TOOL_CONFIG) == by_warden
    assert by_warden <= {*TOOL_NAMES, *PROTECTED_NAMES, ".vscode"}


def test_the_warden_moves_aside_a_pyproject_whose_plugins_changed_only(tmp_path: Path) -> None:
    (tmp_path / "kept").mkdir()
    _write(tmp_path / "kept", "pyproject.toml", PYPROJECT)
    moved = _write(tmp_path, "pyproject.toml", PYPROJECT)
    at_start = {**settings_at_start([str(tmp_path)]), **settings_at_start([str(tmp_path / "kept")])}
    _write(tmp_path / "kept", "pyproject.toml", PYPROJECT.replace("0.1.0", "0.2.0"))
    _write(tmp_path, "pyproject.toml", PYPROJECT.replace('"-q"', '"-p timing_plugin"'))
    found = planted.find_planted(
        [str(tmp_path)],
        notebook_dir=str(tmp_path),
        since_ns=0,
        fixed=[moved],
        installed=planted.LaterImports(set()),
        settings_at_start=at_start,
    )
    assert [(p.path, "pytest" in p.what) for p in found.planted] == [(moved, True)]


@pytest.fixture
def notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    folder = tmp_path / "notebook"
    folder.mkdir()
    _write(folder, "pyproject.toml", PYPROJECT)
    return folder.resolve()


def _end_of_a_session(notebook: Path, edited: str) -> list[str]:
    """A session begun as the launcher begins it, the file edited, the end as the warden ends it: what
    the batch command that started the kernel says."""
    record = LaunchRecord(notebook)
    record.begin(
        files=(),
        folders=(),
        warden=os.getpid(),
        kernel=os.getpid(),
        writable=[str(notebook)],
        tool_settings=settings_at_start([str(notebook)]),
    )
    end = KernelEnd(notebook, os.getpid())  # the starter finds the session while the kernel runs
    _write(notebook, "pyproject.toml", edited)
    record.end(os.getpid())
    return end.lines(wait_s=0)


def test_the_end_of_a_session_says_nothing_of_an_edited_version(notebook: Path) -> None:
    assert _end_of_a_session(notebook, PYPROJECT.replace("0.1.0", "0.2.0")) == []
    assert (notebook / "pyproject.toml").read_text() == PYPROJECT.replace("0.1.0", "0.2.0")


def test_the_end_of_a_session_names_a_pyproject_moved_aside_for_a_plugin(notebook: Path) -> None:
    (line,) = _end_of_a_session(notebook, PYPROJECT.replace('"-q"', '"-q -p timing_plugin"'))
    assert line.startswith(
        "Confined kernel's end: pyproject.toml (a pyproject.toml with changed settings that make pytest, "
        "mypy, coverage, pylint or tox run code (addopts, pythonpath, plugins, init-hook, ...); any edit "
        "of yours is in the moved file) was moved aside to pyproject.toml.twnb-quarantined; `twnb trust"
    )
    assert "moved aside to pyproject.toml.twnb-quarantined" in line and "accept pyproject.toml`" in line
    assert not (notebook / "pyproject.toml").exists()


def test_the_next_sessions_first_round_names_the_moved_pyproject(notebook: Path) -> None:
    _end_of_a_session(notebook, PYPROJECT.replace('"-q"', '"-q -p timing_plugin"'))
    (line,) = quarantine_review(FolderQuarantine(notebook))
    assert "pyproject.toml (a pyproject.toml with changed settings that make pytest" in line
    assert "moved aside to pyproject.toml.twnb-quarantined)" in line and f"--folder {notebook}`" in line
