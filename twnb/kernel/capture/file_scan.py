"""Which files the code wrote: a bounded scan of the working directory before and after a run.

Bounded three ways (depth, number of files, time) because a notebook's folder can hold a dataset of a
million files; hidden folders, the session folder and the artifacts folder are skipped. Files are
compared by size and mtime, never by content.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

_SKIPPED_DIR_NAMES = frozenset({"__pycache__", "node_modules", "site-packages"})


@dataclass(frozen=True)
class ScanLimits:
    max_depth: int = 3
    max_files: int = 5000
    time_budget_s: float = 0.5


@dataclass
class DirectorySnapshot:
    root: Path
    files: dict[str, tuple[int, int]] = field(default_factory=dict)  # relative path -> (size, mtime_ns)
    # Folders whose listing was read to the end: after a scan cut short, only a new file in one of
    # these is known to be new (elsewhere it may just not have been reached before).
    listed_dirs: set[str] = field(default_factory=set)
    seen_dirs: set[str] = field(default_factory=set)
    # Why the scan stopped early ("" when it saw everything within the depth limit).
    cut_short: str = ""

    @property
    def complete(self) -> bool:
        return not self.cut_short


@dataclass
class FileChanges:
    created: list[Path] = field(default_factory=list)
    modified: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


DEFAULT_SCAN_LIMITS = ScanLimits()


def scan_directory(
    root: str | os.PathLike[str],
    *,
    skip: tuple[str | os.PathLike[str], ...] = (),
    limits: ScanLimits = DEFAULT_SCAN_LIMITS,
) -> DirectorySnapshot:
    """Snapshot of the files under `root` (breadth first, sorted, so two scans cover the same files)."""
    root_path = Path(root).resolve()
    skipped = {str(Path(p).resolve()) for p in skip}
    snapshot = DirectorySnapshot(root=root_path)
    deadline = time.monotonic() + limits.time_budget_s
    level: list[tuple[str, str, int]] = [(str(root_path), "", 0)]
    while level:
        next_level: list[tuple[str, str, int]] = []
        for directory, rel_dir, depth in level:
            if time.monotonic() > deadline:
                snapshot.cut_short = f"time budget of {limits.time_budget_s:g} s"
                return snapshot
            try:
                entries = sorted(os.scandir(directory), key=lambda e: e.name)
            except OSError:
                continue  # unreadable or vanished meanwhile: nothing to compare
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name in _SKIPPED_DIR_NAMES or entry.path in skipped:
                            continue
                        rel_sub = rel_dir + entry.name
                        snapshot.seen_dirs.add(rel_sub)
                        if depth + 1 < limits.max_depth:
                            next_level.append((entry.path, rel_sub + os.sep, depth + 1))
                        continue
                    if not entry.is_file(follow_symlinks=False):
                        continue
                    stat = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if len(snapshot.files) >= limits.max_files:
                    snapshot.cut_short = f"file limit of {limits.max_files}"
                    return snapshot
                # Relative paths by concatenation: os.path.relpath per file dominated the scan's cost.
                snapshot.files[rel_dir + entry.name] = (stat.st_size, stat.st_mtime_ns)
            snapshot.listed_dirs.add(rel_dir.rstrip(os.sep) or ".")
        level = next_level
    return snapshot


def _known_new(rel: str, before: DirectorySnapshot) -> bool:
    """After a scan cut short: is a file absent from `before` really new, or just never reached?"""
    directory = os.path.dirname(rel) or "."
    while True:
        if directory in before.listed_dirs:
            return True  # the nearest folder that existed before was read to the end
        if directory in before.seen_dirs or directory == ".":
            return False  # it existed but was not read: the file may be old
        directory = os.path.dirname(directory) or "."


def changes_since(
    before: DirectorySnapshot,
    *,
    skip: tuple[str | os.PathLike[str], ...] = (),
    limits: ScanLimits = DEFAULT_SCAN_LIMITS,
) -> FileChanges:
    """Scan `before.root` again and compare. The code has already run by then: a scan that fails is
    a note, never an exception that would lose the execution's result."""
    try:
        return compare_snapshots(before, scan_directory(before.root, skip=skip, limits=limits))
    except OSError as exc:
        return FileChanges(notes=[f"The working-directory scan failed: {exc}"])


def compare_snapshots(before: DirectorySnapshot, after: DirectorySnapshot) -> FileChanges:
    changes = FileChanges()
    for rel, signature in after.files.items():
        previous = before.files.get(rel)
        if previous is None:
            if before.complete or _known_new(rel, before):
                changes.created.append(after.root / rel)
        elif previous != signature:
            changes.modified.append(after.root / rel)
    cut_short = after.cut_short or before.cut_short
    if cut_short:
        changes.notes.append(
            f"The working-directory scan stopped at its {cut_short}: files written beyond it are not listed."
        )
    return changes
