"""An autosave that fails (a read-only or a full session folder) is said once, in the Round itself
(`Round.extra["autosave_failed"]`, a status event, one log line), and the Round goes on to its answer.

Both folders are real file systems: a tmpfs mounted read-only, and a 64 KB tmpfs filled up (mounting
needs root, which the test machines have; elsewhere the tests skip and say why)."""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.session_script import one_step

from twnb.memory.round import AUTOSAVE_FAILED


@contextlib.contextmanager
def _tmpfs(folder: Path, options: str) -> Iterator[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


@pytest.fixture
def read_only_session_dir(workdir: Path) -> Iterator[Path]:
    with _tmpfs(workdir / ".twnb", "ro,size=64k") as folder:
        yield folder


@pytest.fixture
def full_session_dir(workdir: Path) -> Iterator[Path]:
    with _tmpfs(workdir / ".twnb", "size=64k") as folder:
        with contextlib.suppress(OSError), open(folder / "filler", "wb") as filler:
            while True:
                filler.write(b"x" * 4096)
                filler.flush()
        yield folder


@pytest.fixture(params=["read-only", "full"])
def broken_session_dir(request: pytest.FixtureRequest) -> Path:
    name = "read_only_session_dir" if request.param == "read-only" else "full_session_dir"
    return request.getfixturevalue(name)


def test_the_round_still_answers_when_autosave_fails(make_session, broken_session_dir):
    round = make_session(one_step("a = 1")).run_round("Set a")
    assert round.state == "finished" and len(round.post_list) == 4


def test_a_failed_autosave_leaves_one_note_in_the_round_naming_the_folder_and_why(
    make_session, broken_session_dir
):
    session = make_session(one_step("a = 1"))
    round = session.run_round("Set a")
    note = round.extra[AUTOSAVE_FAILED]
    assert note.startswith(f"Autosave to {session.autosave_dir} failed (")
    full = (broken_session_dir / "filler").exists()
    why = "No space left on device" if full else "Read-only file system"
    assert f"failed ({why})" in note and "save it elsewhere with %taskweaver save PATH" in note


def test_a_failed_autosave_is_one_status_event_and_one_log_line_per_round(
    make_session, broken_session_dir, recorder, caplog
):
    caplog.set_level(logging.WARNING, logger="twnb")
    round = make_session(one_step("a = 1")).run_round("Set a", recorder)
    notes = [e.text for e in recorder.of("StatusChanged") if e.text.startswith("Autosave to")]
    assert notes == [round.extra[AUTOSAVE_FAILED]]
    assert len([r for r in caplog.records if "could not autosave" in r.getMessage()]) == 1


def test_a_conversation_saved_elsewhere_keeps_the_note(make_session, read_only_session_dir, workdir):
    session = make_session(one_step("a = 1"))
    round = session.run_round("Set a")
    from twnb.memory import Conversation

    saved = Conversation.from_yaml(session.save(workdir / "elsewhere.yaml"))
    assert saved.rounds[0].extra[AUTOSAVE_FAILED] == round.extra[AUTOSAVE_FAILED]
