"""A Round this kernel's session does not hold, found in a notebook that recorded it.

An exported notebook run top to bottom in a fresh kernel (Run All, `jupyter nbconvert --execute`,
nbclient, papermill) reaches `%taskweaver show ROUND_ID` with an empty session: each show cell would
replace the Round's view with "No Rounds in this kernel's session". A Round id is unique (a time and
random digits), so the Round is looked up in the notebooks that may hold it, without loading anything
into the session: the kernel's own notebook (`JPY_SESSION_NAME`, set by Jupyter Server), then the
notebooks of the working folder (where nbconvert and nbclient run a notebook), newest first. Each file
is read once per change (its size and time), and one over `MAX_SCANNED_BYTES` is not read at all.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from twnb.memory import Round

# A folder's notebooks are read to find a Round id; a big one is the user's data, not an export.
MAX_SCANNED_BYTES = 64 * 1024 * 1024
MAX_SCANNED_FILES = 50


@dataclass
class RecordedRound:
    round: Round
    notebook: Path
    session_id: str
    conversation_id: str | None


class RecordedRounds:
    """The Rounds of a folder's notebooks, read when first asked for and again when a file changes."""

    def __init__(self) -> None:
        # path -> ((size, mtime), {round id: RecordedRound})
        self._read: dict[Path, tuple[tuple[int, float], dict[str, RecordedRound]]] = {}

    def find(
        self, round_id: str, workdir: Path, environ: Mapping[str, str] | None = None
    ) -> RecordedRound | None:
        for path in _candidates(workdir, environ if environ is not None else os.environ):
            found = self._rounds_of(path).get(round_id)
            if found is not None:
                return found
        return None

    def _rounds_of(self, path: Path) -> dict[str, RecordedRound]:
        try:
            stat = path.stat()
        except OSError:
            return {}
        key = (stat.st_size, stat.st_mtime)
        cached = self._read.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        rounds: dict[str, RecordedRound] = {}
        if stat.st_size <= MAX_SCANNED_BYTES:
            from twnb.replay import read_notebook  # lazy: twnb.replay loads nbformat (~300 modules, ~1 s)

            try:
                imported = read_notebook(path)
            except (OSError, ValueError):
                imported = None  # not a notebook twnb wrote or ran in: nothing to find there
            if imported is not None:
                conversation = imported.conversation
                session_id = imported.session_id or ""
                for round in conversation.rounds:
                    rounds[round.id] = RecordedRound(round, path, session_id, conversation.id)
        self._read[path] = (key, rounds)
        return rounds


def _candidates(workdir: Path, environ: Mapping[str, str]) -> list[Path]:
    found: list[Path] = []
    name = environ.get("JPY_SESSION_NAME", "")
    if name.lower().endswith(".ipynb"):
        named = Path(name)
        for path in [named] if named.is_absolute() else [workdir / named, workdir / named.name]:
            if path.is_file():
                found.append(path)
                break
    try:
        here = [p for p in workdir.glob("*.ipynb") if p.is_file()]
    except OSError:
        here = []
    here.sort(key=_mtime, reverse=True)
    found += [p for p in here[:MAX_SCANNED_FILES] if p not in found]
    return found


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
