"""What a confined kernel's end quarantined, as the batch command that started it says it
(twnb/config/kernel_end.py), the record driven as the launcher and its warden drive it: a session
begun for this process, what the kernel left, the end."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from twnb.config import KernelEnd, LaunchRecord


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    notebook = tmp_path / "notebook"
    notebook.mkdir()
    return notebook.resolve()


def _begun(folder: Path) -> tuple[LaunchRecord, KernelEnd]:
    record = LaunchRecord(folder)
    record.begin(files=(), folders=(), warden=os.getpid(), kernel=os.getpid(), writable=[str(folder)])
    return record, KernelEnd(folder, os.getpid())


def test_a_name_with_a_terminals_escape_is_said_escaped_and_as_one_shell_word(folder: Path) -> None:
    record, end = _begun(folder)
    hostile = folder / "x\x1b[2J\n"
    hostile.mkdir()
    (hostile / "yaml.py").write_text("import os\n")
    record.end(os.getpid())
    (line,) = end.lines(wait_s=0)
    assert "\x1b" not in line and "\n" not in line
    assert "accept $'x\\x1b[2J\\n/yaml.py'`" in line


def test_an_end_that_does_not_come_in_time_is_said_with_where_to_look(folder: Path) -> None:
    _record, end = _begun(folder)  # this process is its warden: it never ends
    (line,) = end.lines(wait_s=0.1)
    assert (
        line.startswith("Confined kernel's end: not finished after 0.1 s") and f"--folder {folder}`" in line
    )
