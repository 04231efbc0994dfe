"""`twnb trust --folder SUB`: what a confined kernel started in a parent folder moved aside in SUB (a
`sub/yaml.py`, a `sub/.git`) is entered in the parent's record, and `twnb trust` in SUB finds it
there, with the command that puts it back (twnb/config/kernel_end.py `recorded_elsewhere`). The record
is driven as the launcher and its warden drive it (a session begun, a module planted, the end)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from twnb.cli import main
from twnb.config import LaunchRecord


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("TWNB_CONFINED", raising=False)
    notebook = tmp_path / "notebook"
    (notebook / "sub").mkdir(parents=True)
    record = LaunchRecord(notebook)
    record.begin(files=(), folders=(), warden=os.getpid(), kernel=os.getpid(), writable=[str(notebook)])
    (notebook / "sub" / "yaml.py").write_text("import os\n")  # what the kernel left, below its folder
    record.end(os.getpid())
    assert not (notebook / "sub" / "yaml.py").exists()
    return notebook.resolve()


def test_trust_in_the_sub_folder_lists_what_the_parents_record_holds(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["trust", "--folder", str(folder / "sub")]) == 0
    assert (
        "  sub/yaml.py (a module that would shadow the installed yaml) was moved aside to "
        f"sub/yaml.py.twnb-quarantined; `twnb trust --folder {folder} accept sub/yaml.py` puts it back."
    ) in capsys.readouterr().out


def test_accept_in_the_sub_folder_names_the_command_that_does_it(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["trust", "--folder", str(folder / "sub"), "accept", "yaml.py", "--yes"]) == 1
    assert f"run `twnb trust --folder {folder} accept sub/yaml.py`" in capsys.readouterr().err


def test_that_command_puts_it_back(folder: Path) -> None:
    assert main(["trust", "--folder", str(folder), "accept", "sub/yaml.py", "--yes"]) == 0
    assert (folder / "sub" / "yaml.py").read_text() == "import os\n"
