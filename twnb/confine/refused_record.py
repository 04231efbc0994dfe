"""The starter's side of the record of refused program starts: a file in a folder of the starter's own
(outside every folder the kernel may write), named to the launcher with `--refused-record PATH`,
which the supervisor outside the kernel appends to (exec_supervisor.py) and the starter reads as it
goes: `twnb export --execute --check` drives one cell at a time, so what was recorded while a cell
ran is what that cell tried.

This is how a refused start that raises nothing in the kernel is still seen: `os.system` and libc's
`system` through ctypes return 127 from the forked child whose exec failed.

Inside the kernel, twnb reads the record the launcher made for it (`RECORD_ENV`, mounted read-only:
the kernel reads it, never writes it): `RefusedStartsRecord.of_this_kernel()`.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from twnb.base import clip
from twnb.confine.exec_supervisor import RECORD_ENV, RECORD_OPTION, unread_program
from twnb.confine.kernelspec import confined_kernel_argv
from twnb.confine.refusals import program_refused

_SHOWN_CHARS = 200


@dataclass(frozen=True)
class RefusedStart:
    """One exec the supervisor refused: when, the program (None: unreadable, `unread` says why), the
    calling process."""

    time: float
    program: str | None
    pid: int
    unread: str | None = None


class RefusedStartsRecord:
    """One kernel's record file, in a new private folder (removed by `close`), or the one at `path`
    someone else keeps (left alone by `close`); `read_new` returns what was appended since it was
    last called."""

    def __init__(self, path: Path | None = None) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="twnb-refused-starts-")) if path is None else None
        self.path = self.folder / "refused-starts.jsonl" if self.folder is not None else Path(str(path))
        self._offset = 0

    @classmethod
    def of_this_kernel(cls) -> RefusedStartsRecord | None:
        """The record of this confined kernel's refused starts, which its launcher named in the
        environment (None in any other kernel), read from its end: what came before is not a run's.
        Taken once, when twnb starts here: code that later points the variable elsewhere does not
        move it."""
        path = os.environ.get(RECORD_ENV)
        if not path:
            return None
        record = cls(Path(path))
        record.read_new()
        return record

    def take_notes(self) -> list[str]:
        """What was recorded since the last call, as the line a run's notes give it (the Round's
        record, and what the model is told), or none."""
        programs = refused_programs(self.read_new())
        return [f"Confined kernel: {program_refused(' and '.join(programs))}"] if programs else []

    def kernel_argv(self, argv: list[str]) -> list[str]:
        """`argv` with the record named, when it is the confined kernel's launcher; else unchanged."""
        launcher = confined_kernel_argv(argv[0] if argv else None)
        if argv[: len(launcher) - 2] != launcher[:-2]:
            return list(argv)
        return [*argv, RECORD_OPTION, str(self.path)]

    def read_new(self) -> list[RefusedStart]:
        try:
            with open(self.path, "rb") as file:
                file.seek(self._offset)
                data = file.read()
        except FileNotFoundError:
            return []
        complete = data[: data.rfind(b"\n") + 1]  # a line being written is read next time
        self._offset += len(complete)
        starts: list[RefusedStart] = []
        for line in complete.splitlines():
            try:
                item = json.loads(line)
                program, unread = item["program"], item.get("unread")
                starts.append(
                    RefusedStart(
                        float(item["time"]),
                        None if program is None else str(program),
                        int(item["pid"]),
                        None if unread is None else str(unread),
                    )
                )
            except (ValueError, KeyError, TypeError):
                continue  # not the supervisor's line
        return starts

    def close(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> RefusedStartsRecord:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _shown(program: str) -> str:
    """The path as the kernel's code chose it, made safe to print: no control characters (a terminal's
    escape sequences, a forged report line), at most `_SHOWN_CHARS`."""
    return clip(program if program.isprintable() else ascii(program), _SHOWN_CHARS)


def refused_programs(starts: list[RefusedStart]) -> list[str]:
    """The programs `starts` tried, once each, in order. A search along PATH (execvp, `subprocess` with
    a bare name) tries each folder in turn, each refused: for each process, the first that exists
    stands for the search. A start whose path could not be read is named so, with why, even beside
    others: code that hides a program's name does not hide that it tried one."""
    searches: dict[tuple[int, str], list[str]] = {}
    for start in starts:
        key = (start.pid, os.path.basename(start.program)) if start.program is not None else (-1, "")
        searches.setdefault(key, []).append(start.program or unread_program(start.unread))
    programs: list[str] = []
    for (pid, _), tried in searches.items():
        if pid == -1:
            shown = [_shown(p) for p in dict.fromkeys(tried)]  # one per reason
        else:
            found = next((p for p in tried if os.path.isfile(p) and os.access(p, os.X_OK)), tried[0])
            shown = [_shown(found)]
        programs += [p for p in shown if p not in programs]
    return programs
