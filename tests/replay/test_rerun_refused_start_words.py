"""A re-run's line for a program start the confined kernel's supervisor refused while a cell ran is the
line a Round's run notes give it (`RefusedStartsRecord.take_notes`): one wording, whoever reads the
record. The record is a real file in the supervisor's format; the report prints the line after its own
"refused by the confined kernel:" (twnb/replay/command.py), so the kernel's prefix is left off."""

from __future__ import annotations

import json
from pathlib import Path

from twnb.confine import RefusedStartsRecord
from twnb.replay.rerun import CONFINED_REFUSAL, _started_refusal

STARTS = [("/bin/sh", 41), ("/usr/bin/touch", 41), ("/bin/sh", 42)]


def _written(path: Path) -> RefusedStartsRecord:
    with open(path, "a") as file:
        for time, (program, pid) in enumerate(STARTS):
            file.write(json.dumps({"time": float(time), "program": program, "pid": pid}) + "\n")
    return RefusedStartsRecord(path)


def test_the_rerun_words_a_refused_start_as_a_runs_notes_do(tmp_path: Path) -> None:
    (note,) = _written(tmp_path / "notes.jsonl").take_notes()
    assert _started_refusal(_written(tmp_path / "rerun.jsonl")) == note.removeprefix(CONFINED_REFUSAL)


def test_the_notes_line_begins_as_the_confined_kernels_refusals_do(tmp_path: Path) -> None:
    (note,) = _written(tmp_path / "notes.jsonl").take_notes()
    assert note.startswith(CONFINED_REFUSAL) and "/bin/sh" in note and "/usr/bin/touch" in note


def test_nothing_refused_gives_no_line(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("")
    assert _started_refusal(RefusedStartsRecord(tmp_path / "empty.jsonl")) is None
