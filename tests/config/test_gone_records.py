"""Quarantine records of notebook folders that no longer exist are pruned as `twnb trust` walks the
state folder (twnb/config/gone_records.py): a folder deleted or renamed is gone for its path; one on a
disk unmounted for now is not; a record with a running session, or with a moved-aside file still there
to put back, stays.

Records made as the launcher and its warden make them (`LaunchRecord.begin`, `end`); `twnb trust` run
as a user runs it (a subprocess of the real command); the unmounted disk a real tmpfs, mounted and
unmounted in a private user and mount namespace.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from twnb.config import LaunchRecord
from twnb.config.quarantine import quarantine_root, record_dir


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state"


def _ended_record(folder: Path) -> Path:
    """A record as a confined kernel's start and end leave it: no session running."""
    folder.mkdir(parents=True, exist_ok=True)
    record = LaunchRecord(folder)
    record.begin(files=(), folders=(), warden=os.getpid(), kernel=os.getpid(), writable=[str(folder)])
    record.end(os.getpid())
    return record.folder


def _trust(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twnb.cli", "trust", "--folder", str(folder)],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_twnb_trust_prunes_the_record_of_a_deleted_folder(state: Path, tmp_path: Path) -> None:
    gone = _ended_record(tmp_path / "deleted")
    (tmp_path / "deleted").rmdir()
    (tmp_path / "elsewhere").mkdir()
    assert _trust(tmp_path / "elsewhere").returncode == 0
    assert not gone.exists()


def test_a_renamed_folder_is_gone_for_its_old_path(state: Path, tmp_path: Path) -> None:
    old = _ended_record(tmp_path / "project")
    (tmp_path / "project").rename(tmp_path / "project-2")
    assert _trust(tmp_path / "project-2").returncode == 0
    assert not old.exists()


def test_the_record_of_a_folder_that_exists_stays(state: Path, tmp_path: Path) -> None:
    kept = _ended_record(tmp_path / "project")
    (tmp_path / "elsewhere").mkdir()
    assert _trust(tmp_path / "elsewhere").returncode == 0
    assert (kept / "record.json").exists()


def test_a_record_with_a_running_session_stays(state: Path, tmp_path: Path) -> None:
    folder = tmp_path / "running"
    folder.mkdir()
    record = LaunchRecord(folder)  # this process is its warden and kernel: it runs
    record.begin(files=(), folders=(), warden=os.getpid(), kernel=os.getpid(), writable=[str(folder)])
    folder.rmdir()
    (tmp_path / "elsewhere").mkdir()
    assert _trust(tmp_path / "elsewhere").returncode == 0
    assert (record.folder / "record.json").exists()


def test_a_record_with_a_moved_aside_file_still_there_stays(state: Path, tmp_path: Path) -> None:
    place = _ended_record(tmp_path / "notebook")
    moved = tmp_path / "home" / ".gitconfig.twnb-quarantined"  # outside the folder: survives it
    moved.parent.mkdir()
    moved.write_text("[core]\n\tfsmonitor = touch /tmp/x\n")
    record = json.loads((place / "record.json").read_text())
    record["quarantined"][str(tmp_path / "home" / ".gitconfig")] = {
        "found": None,
        "since": "2026-12-08T00:00:00Z",
        "moved_to": str(moved),
        "what": "a home start-up file",
    }
    (place / "record.json").write_text(json.dumps(record, sort_keys=True, indent=1))
    (tmp_path / "notebook").rmdir()
    assert _trust(tmp_path / "home").returncode == 0
    assert (place / "record.json").exists()
    moved.unlink()  # put back by hand, or removed: nothing is left to restore
    assert _trust(tmp_path / "home").returncode == 0
    assert not place.exists()


def test_a_record_from_before_devices_were_kept_stays_when_the_folder_above_is_empty(
    state: Path, tmp_path: Path
) -> None:
    place = _ended_record(tmp_path / "mnt" / "project")
    record = json.loads((place / "record.json").read_text())
    del record["device"]
    (place / "record.json").write_text(json.dumps(record, sort_keys=True, indent=1))
    (tmp_path / "mnt" / "project").rmdir()  # `mnt` empty, as an unmounted mount point is
    (tmp_path / "elsewhere").mkdir()
    assert _trust(tmp_path / "elsewhere").returncode == 0
    assert (place / "record.json").exists()
    (tmp_path / "mnt" / "other").mkdir()
    assert _trust(tmp_path / "elsewhere").returncode == 0
    assert not place.exists()


def test_trust_in_a_sub_folder_still_lists_what_a_parents_record_holds_for_it(
    state: Path, tmp_path: Path
) -> None:
    from twnb.config import recorded_elsewhere

    place = _ended_record(tmp_path / "parent")
    (tmp_path / "parent" / "sub").mkdir()
    record = json.loads((place / "record.json").read_text())
    record["quarantined"]["sub/.git"] = {"found": None, "since": "x", "moved_to": "sub/.git.q", "what": "git"}
    (place / "record.json").write_text(json.dumps(record, sort_keys=True, indent=1))
    for index in range(50):  # records of other folders, deleted: pruned on the way
        _ended_record(tmp_path / f"other-{index}")
        (tmp_path / f"other-{index}").rmdir()
    found = recorded_elsewhere(tmp_path / "parent" / "sub")
    assert [(holder, name) for holder, name, _ in found] == [
        (str((tmp_path / "parent").resolve()), "sub/.git")
    ]
    assert sorted(os.listdir(quarantine_root(os.environ))) == [record_dir(tmp_path / "parent").name]


UNMOUNTED = """
import ctypes, os, sys
from pathlib import Path
from twnb.confine.mounts import MountError, enter_private_mounts, private_tmpfs
from twnb.config import LaunchRecord, recorded_elsewhere
disk, elsewhere, how = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
try:
    enter_private_mounts()
    private_tmpfs(disk, "1m")
except MountError as error:
    print("no mount namespace here:", error)
    sys.exit(77)
project = disk / "project"
project.mkdir()
record = LaunchRecord(project)
record.begin(files=(), folders=(), warden=os.getpid(), kernel=os.getpid(), writable=[str(project)])
record.end(os.getpid())
if how == "unmount":
    assert ctypes.CDLL(None, use_errno=True).umount2(str(disk).encode(), 0) == 0, ctypes.get_errno()
else:
    project.rmdir()
assert not project.exists()
recorded_elsewhere(elsewhere)
print("kept" if record.folder.exists() else "pruned")
"""


@pytest.mark.parametrize(("how", "outcome"), [("unmount", "kept"), ("delete", "pruned")])
def test_a_folder_on_a_disk_unmounted_for_now_is_not_gone(
    state: Path, tmp_path: Path, how: str, outcome: str
) -> None:
    (tmp_path / "disk").mkdir()
    (tmp_path / "elsewhere").mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(UNMOUNTED),
            str(tmp_path / "disk"),
            str(tmp_path / "elsewhere"),
            how,
        ],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode == 77:
        pytest.skip(done.stdout.strip())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == outcome
