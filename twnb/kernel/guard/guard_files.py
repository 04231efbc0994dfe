"""The files a guarded run wrote, as the run's artifacts: exact, wherever the working folder was.

The runtime guard records every file the code (or a thread it started) opened for writing, created,
moved into place or removed (runtime_guard.py). What is still there when the run ends, and is a
regular file, is an artifact, unless it is bookkeeping rather than a result:
- twnb's own folders (the session folder, the artifacts folder: saved figures are listed apart);
- hidden files and anything in a hidden folder (a saved Round may not link there anyway), and
  `__pycache__`;
- outside the working folders (`workdirs`: the notebook's, and wherever the code moved to): caches
  (`~/.cache`, matplotlib's font list), the Python installation and the temporary folder.

A file another process writes is never one: the guard sees only this process. What it cannot see is a
file written by C code that bypasses Python's `open` (polars' and DuckDB's own writers, pyarrow's
`write_table` called directly; pandas' `to_parquet` opens through Python and is seen).

Stdlib only: sent as source to kernels where twnb is not installed (kernel_guard.py).
"""

from __future__ import annotations

import os
import stat
import sys
import sysconfig
import tempfile
from collections.abc import Iterable

from twnb.kernel.guard.runtime_guard import GuardedRun, file_signature


def written_files(
    run: GuardedRun,
    *,
    skip: Iterable[str | os.PathLike[str]] = (),
    workdirs: Iterable[str | os.PathLike[str]] = (),
) -> tuple[list[str], list[str]]:
    """(created, modified): absolute paths, in the order the code first wrote them. `skip`: folders
    whose files are never artifacts (twnb's own)."""
    folders = _Folders(skip, workdirs)
    created: list[str] = []
    modified: list[str] = []
    for path, existed in run.writes.items():
        if folders.holds_artifact(path):
            (modified if existed else created).append(path)
    for path, before in run.maybe_writes.items():
        if folders.holds_artifact(path) and file_signature(path) != before:
            (modified if before is not None else created).append(path)
    return created, modified


def risky_sightings(
    run: GuardedRun, folder: str | os.PathLike[str], *, skip: Iterable[str | os.PathLike[str]] = ()
) -> list[dict[str, str]]:
    """What the run did that risky step mode pauses on when verification predicts it, as the guard saw
    it: `{"kind": ..., "subject": ...}` with kind "overwrite" (a file written that existed before),
    "delete" (a file removed that existed before), "outside" (a file written outside `folder`, the
    notebook's, other than in the temporary folder, caches and the Python installation), and the
    run's sightings ("working_folder", "environment", "network"). Files in `skip` (twnb's folders: the
    artifacts folder among them) are none of these."""
    inside = os.path.realpath(os.fspath(folder))
    skipped = tuple(sorted({os.path.realpath(os.fspath(p)) for p in skip}))
    system = _system_roots()
    found: list[dict[str, str]] = []

    def judge(path: str, existed: bool, kind: str) -> None:
        real = os.path.realpath(path)
        if _under(real, skipped):
            return
        if not _under(real, (inside,)):
            if not _under(real, system):
                found.append({"kind": "outside", "subject": path})
        elif existed:
            found.append({"kind": kind, "subject": path})

    for path, existed in run.writes.items():
        judge(path, existed, "overwrite")
    for path, before in run.maybe_writes.items():
        if file_signature(path) != before:
            judge(path, before is not None, "overwrite")
    for path in run.removed:
        judge(path, True, "delete")
    found += [{"kind": kind, "subject": subject} for kind, subject in run.sightings]
    return found


class _Folders:
    """Which folders hold artifacts: decided once per folder (a run may write thousands of files into
    one), the file itself needing one `lstat`."""

    def __init__(
        self, skip: Iterable[str | os.PathLike[str]], workdirs: Iterable[str | os.PathLike[str]]
    ) -> None:
        self.skipped = tuple(sorted({os.path.realpath(os.fspath(p)) for p in skip}))
        self.users = tuple(sorted({os.path.realpath(os.fspath(p)) for p in workdirs}))
        self.system = _system_roots()
        self._verdicts: dict[str, bool] = {}

    def holds_artifact(self, path: str) -> bool:
        folder, name = os.path.split(path)
        if name.startswith("."):
            return False
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                return False  # gone, a folder, or a link
        except OSError:
            return False
        verdict = self._verdicts.get(folder)
        if verdict is None:
            verdict = self._verdicts[folder] = self._judge(os.path.realpath(folder))
        return verdict

    def _judge(self, folder: str) -> bool:
        if _under(folder, self.skipped):
            return False
        # Within a working folder only the part below it counts (the folder itself may sit in a hidden one).
        root = next((r for r in self.users if _under(folder, (r,))), None)
        below = folder[len(root) :] if root is not None else folder
        if any(part.startswith(".") or part == "__pycache__" for part in below.split(os.sep)):
            return False
        return root is not None or not _under(folder, self.system)


def _under(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def _system_roots() -> tuple[str, ...]:
    roots: set[str] = set()
    roots.update(
        os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, tempfile.gettempdir())
    )
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(name)
        if path:
            roots.add(os.path.realpath(path))
    home = os.path.expanduser("~")
    for folder in (".cache", ".config", ".local", ".ipython", ".jupyter", ".matplotlib"):
        roots.add(os.path.realpath(os.path.join(home, folder)))
    for variable in ("MPLCONFIGDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "IPYTHONDIR", "JUPYTER_CONFIG_DIR"):
        value = os.environ.get(variable)
        if value:
            roots.add(os.path.realpath(value))
    return tuple(sorted(roots))
