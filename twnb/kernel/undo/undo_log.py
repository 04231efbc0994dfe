"""What each run of generated code changed, kept so `%taskweaver undo` can take it back.

Around one run (`UndoLog.begin` before, `UndoLog.end` after) a `RunSnapshot` keeps:
- references to the objects the run rebound or deleted (the namespace is held by reference while the
  code runs, one dict copy of its names, and afterwards only the replaced objects stay): no copies;
- the names it created, with their signatures right after the run (to see later changes), and a
  fingerprint of the content of each object undo would remove, rebind or restore (content_fingerprint.py:
  to see a later change in place that keeps type and shape, `lst[0] = 9`), within the budget in bytes
  read (an object over what is left keeps its signature only);
- copies, taken just before the run, of the objects the code may change in place
  (`estimate_in_place`), within the undo budget; the ones over budget are named before the run;
- copies of the files it overwrote or removed, taken by the runtime guard's hook when the code first
  opens an existing file for writing (before a byte of it changes), within what the budget has left.

Memory: the budget (`undo_budget_mb`) bounds the copies all kept snapshots hold together, objects and
files: before a run's copies are taken the oldest snapshots' copies are released until they fit (those
changes can no longer be undone, and undo says so). References to replaced objects cost no copy but
keep the objects alive: the session keeps the snapshots of the last few Rounds only (`keep_only`), and
a snapshot is released when its Round is undone, and on reset or load.

The namespace is the live shell's (`LiveShellExecutor`): a separate kernel keeps no snapshots.
"""

from __future__ import annotations

import contextlib
import copy
import os
import shutil
import stat
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twnb.kernel.namespace import namespace_signatures
from twnb.kernel.undo.content_fingerprint import Fingerprint, fingerprint
from twnb.kernel.undo.in_place_estimate import (
    IMMUTABLE,
    MB,
    InPlaceTarget,
    columns_size,
    copy_size,
    estimate_in_place,
    over_budget_line,
    size_text,
)
from twnb.kernel.undo.undo_paths import unsafe_reason, write_back

UNDONE_FOLDER = "twnb-undone"
"""The visible folder beside the notebook where undo moves the files an undone Round created."""


@dataclass
class KeptCopy:
    """An object the code may change in place: `original` as the code found it, `copy` taken before.
    For a DataFrame the code changes only column by column, `copy` holds just those columns (a dict
    of the ones it had) and `column_order` its columns as they were."""

    name: str
    original: Any
    copy: Any
    size_bytes: int
    column_order: list[str] | None = None


@dataclass
class KeptFile:
    """A file that existed before the run and that the run wrote over or removed: `copy_path` holds
    its content from before (None: over the budget, or it could not be read)."""

    path: str
    copy_path: str | None
    size_bytes: int


@dataclass(frozen=True)
class TakenFingerprint:
    """An object's content fingerprint right after a run: `columns` those of a DataFrame it covers
    (None: all of it), `identity` the object's id (another object now: its signature tells)."""

    columns: tuple[str, ...] | None
    digest: Fingerprint
    identity: int


@dataclass
class RunSnapshot:
    """One run's undo record (live objects: never saved)."""

    execution_id: str
    copies: list[KeptCopy] = field(default_factory=list)
    over_budget: list[InPlaceTarget] = field(default_factory=list)
    in_place: list[str] = field(default_factory=list)  # every name the code may have changed in place
    replaced: dict[str, Any] = field(default_factory=dict)  # rebound or deleted: the object before
    deleted: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    after: dict[str, Any] = field(default_factory=dict)  # touched names' signatures after the run
    # The content of what undo would act on, right after the run, by name.
    fingerprints: dict[str, TakenFingerprint] = field(default_factory=dict)
    files: list[KeptFile] = field(default_factory=list)
    created_files: list[str] = field(default_factory=list)
    released: list[str] = field(default_factory=list)  # lines: copies released to make room
    ended: bool = False
    _before: dict[str, Any] | None = None
    _file_folder: Path | None = None
    _file_budget: int = 0

    @property
    def copied_bytes(self) -> int:
        return sum(c.size_bytes for c in self.copies) + sum(f.size_bytes for f in self.files if f.copy_path)

    @property
    def touched(self) -> list[str]:
        """Every name the run created, rebound, deleted or may have changed in place."""
        return list(dict.fromkeys([*self.created, *self.replaced, *self.in_place]))

    def limit_lines(self) -> list[str]:
        """What of this run cannot be undone, one line each."""
        lines = [over_budget_line(t) for t in self.over_budget]
        lines += [
            f"`{os.path.basename(f.path)}` ({size_text(f.size_bytes)}) overwritten cannot be restored"
            for f in self.files
            if f.copy_path is None
        ]
        return lines + self.released

    def keep_file(self, path: str) -> None:
        """The runtime guard's hook: `path` exists and the code is about to write over it or remove it.
        Copied if it is a regular file that fits what the budget has left."""
        if any(f.path == path for f in self.files) or self._file_folder is None:
            return
        try:
            info = os.stat(path)
        except OSError:
            return
        if not stat.S_ISREG(info.st_mode):
            return
        size = info.st_size
        if size > self._file_budget:
            self.files.append(KeptFile(path, None, size))
            return
        target = self._file_folder / f"{len(self.files)}-{os.path.basename(path)}"
        try:
            self._file_folder.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        except OSError:
            self.files.append(KeptFile(path, None, size))
            return
        self._file_budget -= size
        self.files.append(KeptFile(path, str(target), size))

    def release_copies(self, why: str) -> int:
        """Drop the copies (objects and files); what they would have restored is said in `released`."""
        freed = 0
        for kept in self.copies:
            freed += kept.size_bytes
            self.released.append(f"`{kept.name}` changed in place cannot be undone ({why})")
        self.copies = []
        for kept_file in self.files:
            if kept_file.copy_path is not None:
                freed += kept_file.size_bytes
                _remove(kept_file.copy_path)
                name = os.path.basename(kept_file.path)
                self.released.append(f"`{name}` overwritten cannot be restored ({why})")
                kept_file.copy_path = None
        return freed

    def release(self) -> None:
        """Drop everything this snapshot holds."""
        self.release_copies("released")
        self.replaced = {}
        self._before = None
        if self._file_folder is not None:
            shutil.rmtree(self._file_folder, ignore_errors=True)


@dataclass
class UndoReport:
    """What undoing some runs did, for the user's one line and the Round's record."""

    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    files_restored: list[str] = field(default_factory=list)
    files_moved: dict[str, str] = field(default_factory=dict)
    not_undone: list[str] = field(default_factory=list)


class UndoLog:
    """The snapshots of the runs on one shell's `namespace` (its `user_ns`), by execution id, oldest
    first; copies of overwritten files go in `folder` (twnb's own, never an artifact)."""

    def __init__(self, budget_mb: float, folder: str | os.PathLike[str], namespace: dict[str, Any]) -> None:
        self.namespace = namespace
        self.budget_bytes = int(budget_mb * MB)
        self.folder = Path(folder)
        self.snapshots: dict[str, RunSnapshot] = {}

    @property
    def held_bytes(self) -> int:
        return sum(s.copied_bytes for s in self.snapshots.values())

    def get(self, execution_id: str) -> RunSnapshot | None:
        return self.snapshots.get(execution_id)

    # -- around a run -----------------------------------------------------------------------------------

    def begin(
        self, execution_id: str, code: str, namespace: dict[str, Any], hidden: Collection[str] = ()
    ) -> RunSnapshot:
        """Before `code` runs in `namespace`: copies of what it may change in place, and the names."""
        estimate = estimate_in_place(code, namespace, self.budget_bytes / MB, hidden=hidden)
        self._make_room(estimate.copied_bytes)
        snapshot = RunSnapshot(execution_id, over_budget=list(estimate.over_budget))
        snapshot.in_place = [t.name for t in estimate.targets]
        for target in estimate.copied:
            original = namespace[target.name]
            size = target.size_bytes or 0
            try:
                if target.columns:
                    order = [str(c) for c in original.columns]
                    columns = {c: original[c].copy(deep=True) for c in target.columns if c in order}
                    snapshot.copies.append(KeptCopy(target.name, original, columns, size, order))
                    continue
                duplicate = _copy(original)
            except Exception:
                snapshot.over_budget.append(
                    InPlaceTarget(target.name, target.type, None, target.why, target.line)
                )
                continue
            snapshot.copies.append(KeptCopy(target.name, original, duplicate, size))
        snapshot._before = dict(namespace)
        snapshot._file_folder = self.folder / execution_id
        snapshot._file_budget = max(0, self.budget_bytes - self.held_bytes - snapshot.copied_bytes)
        old = self.snapshots.pop(execution_id, None)
        if old is not None:
            old.release()
        self.snapshots[execution_id] = snapshot
        return snapshot

    def end(
        self,
        snapshot: RunSnapshot,
        namespace: dict[str, Any],
        hidden: Collection[str] = (),
        created_files: Iterable[str] = (),
    ) -> None:
        """After the run (however it ended): which names it created, rebound or deleted."""
        before = snapshot._before or {}
        snapshot._before = None
        skipped = set(hidden)
        for name, value in namespace.items():
            if name.startswith("_") or name in skipped:
                continue
            if name not in before:
                snapshot.created.append(name)
            elif before[name] is not value:
                snapshot.replaced[name] = before[name]
        for name, value in before.items():
            if name not in namespace and not name.startswith("_") and name not in skipped:
                snapshot.replaced[name] = value
                snapshot.deleted.append(name)
        snapshot.after = signatures_of(namespace, snapshot.touched)
        snapshot.fingerprints = self._fingerprints(snapshot, namespace)
        snapshot.created_files = list(created_files)
        snapshot.ended = True

    def _fingerprints(self, snapshot: RunSnapshot, namespace: dict[str, Any]) -> dict[str, TakenFingerprint]:
        """Fingerprints of what undo would act on, as the run left it: the objects it restores from
        copies (of a frame copied column by column, the columns it puts back or drops), the ones it
        rebinds and the ones it removes. At most the budget's bytes are read, in that order."""
        wanted: dict[str, tuple[str, ...] | None] = {}
        for kept in snapshot.copies:
            if kept.column_order is None:
                wanted[kept.name] = None
                continue
            try:
                added = [str(c) for c in kept.original.columns if str(c) not in kept.column_order]
            except Exception:
                continue
            wanted[kept.name] = (*kept.copy, *added)
        for name in [*snapshot.replaced, *snapshot.created]:
            if name in namespace and name not in snapshot.deleted:
                wanted.setdefault(name, None)
        left = self.budget_bytes
        taken: dict[str, TakenFingerprint] = {}
        for name, columns in wanted.items():
            value = namespace.get(name, _MISSING)
            if value is _MISSING or isinstance(value, IMMUTABLE):
                continue  # what cannot change in place: its signature is its content
            size = columns_size(value, columns) if columns is not None else copy_size(value)
            if size is None or size > left:
                continue
            digest = fingerprint(value, columns)
            if digest is not None:
                left -= size
                taken[name] = TakenFingerprint(columns, digest, id(value))
        return taken

    def _make_room(self, needed: int) -> None:
        for snapshot in self.snapshots.values():  # oldest first
            if self.held_bytes + needed <= self.budget_bytes:
                return
            snapshot.release_copies("its copy was released to make room within undo_budget_mb")

    # -- bounds ---------------------------------------------------------------------------------------

    def keep_only(self, execution_ids: Collection[str]) -> None:
        """Release every snapshot but those of `execution_ids`."""
        for execution_id in [e for e in self.snapshots if e not in execution_ids]:
            self.snapshots.pop(execution_id).release()

    def release(self, execution_ids: Iterable[str]) -> None:
        for execution_id in execution_ids:
            snapshot = self.snapshots.pop(execution_id, None)
            if snapshot is not None:
                snapshot.release()

    def clear(self) -> None:
        self.keep_only(())

    # -- undo -----------------------------------------------------------------------------------------

    def changed_since(self, execution_ids: list[str]) -> list[str]:
        """The names these runs touched whose binding, type, shape or dtype is no longer what the last
        of them left: something changed them since."""
        left: dict[str, Any] = {}
        for execution_id in execution_ids:
            snapshot = self.snapshots.get(execution_id)
            if snapshot is not None and snapshot.ended:
                left.update(snapshot.after)
                for name in snapshot.deleted:
                    left.pop(name, None)
                    left[name] = None
        now = signatures_of(self.namespace, list(left))
        return [name for name, signature in left.items() if now.get(name) != signature]

    def changed_in_place_since(self, execution_ids: list[str]) -> list[str]:
        """The names these runs touched, bound to the object the last of them left, whose content undo
        would overwrite or drop is no longer what it was right after: something changed it in place
        since (the user's `lst[0] = 9`)."""
        left: dict[str, TakenFingerprint] = {}
        for execution_id in execution_ids:
            snapshot = self.snapshots.get(execution_id)
            if snapshot is not None and snapshot.ended:
                for name in snapshot.touched:
                    left.pop(name, None)  # the later run may have changed it: its fingerprint, if any
                left.update(snapshot.fingerprints)
        changed = []
        for name, taken in left.items():
            value = self.namespace.get(name, _MISSING)
            if value is _MISSING or id(value) != taken.identity:
                continue  # unbound or rebound since: changed_since names it, at no cost
            if fingerprint(value, taken.columns) != taken.digest:
                changed.append(name)
        return changed

    def undo(self, execution_ids: list[str], moved_to: Path, *, within: Path | None = None) -> UndoReport:
        """Put back what these runs (in the order they ran) changed, the last run first, and release
        their snapshots. Files the runs created are moved into `moved_to`. Only files inside `within`
        (the notebook's folder; by default the folder holding `moved_to`), reached without a symlink,
        are written, moved or restored (undo_paths.py); the others are named in `not_undone`."""
        namespace = self.namespace
        report = UndoReport()
        folder = within if within is not None else moved_to.parent
        aside_refused = unsafe_reason(moved_to, folder, must_exist=False)
        for execution_id in reversed(execution_ids):
            snapshot = self.snapshots.get(execution_id)
            if snapshot is None:
                continue
            for name in snapshot.created:
                if namespace.pop(name, _MISSING) is not _MISSING:
                    report.removed.append(name)
            for name, value in snapshot.replaced.items():
                namespace[name] = value
                report.restored.append(name)
            for kept in snapshot.copies:
                if kept.column_order is not None and not _same_rows(kept):
                    # Its rows changed too, in a way the code did not show: the column copies would
                    # be aligned to other rows. Left as it is, and said.
                    line = f"`{kept.name}` changed in place cannot be undone (its rows changed too)"
                    report.not_undone.append(line)
                    continue
                namespace[kept.name] = _restore(kept)
                report.restored.append(kept.name)
            for path in snapshot.created_files:
                refused = aside_refused or unsafe_reason(path, folder, must_exist=False)
                if refused is not None:
                    if os.path.lexists(path):
                        report.not_undone.append(
                            f"`{os.path.basename(path)}` was left where it is: {refused}"
                        )
                    continue
                moved = _move_aside(path, moved_to)
                if moved is not None:
                    report.files_moved[path] = moved
            for kept_file in snapshot.files:
                if kept_file.copy_path is not None:
                    refused = unsafe_reason(kept_file.path, folder, must_exist=False)
                    if refused is not None:
                        name = os.path.basename(kept_file.path)
                        report.not_undone.append(f"`{name}` was not restored: {refused}")
                        continue
                    try:
                        write_back(kept_file.copy_path, kept_file.path)
                        report.files_restored.append(kept_file.path)
                        continue
                    except OSError as error:
                        line = (
                            f"`{os.path.basename(kept_file.path)}` could not be restored ({error.strerror})"
                        )
                        report.not_undone.append(line)
                        continue
            report.not_undone.extend(snapshot.limit_lines())
        report.restored = list(dict.fromkeys(report.restored))
        report.removed = [n for n in dict.fromkeys(report.removed) if n not in namespace]
        report.not_undone = list(dict.fromkeys(report.not_undone))
        self.release(execution_ids)
        return report


_MISSING = object()


def signatures_of(namespace: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """Each name's signature (type, shape, dtype, identity), None for a name not bound."""
    subset = {name: namespace[name] for name in names if name in namespace}
    signatures: dict[str, Any] = dict(namespace_signatures(subset))
    return {name: signatures.get(name) for name in names}


def _copy(value: Any) -> Any:
    module = (getattr(type(value), "__module__", "") or "").split(".")[0]
    if module in ("pandas", "numpy") and hasattr(value, "copy"):
        return value.copy(deep=True) if module == "pandas" else value.copy()
    return copy.deepcopy(value)


def _restore(kept: KeptCopy) -> Any:
    """The object as it was: a builtin container gets its content back in place (so other names that
    hold it see it restored too); anything else is replaced by the copy."""
    original, saved = kept.original, kept.copy
    if kept.column_order is not None:
        return _restore_columns(original, saved, kept.column_order)
    if type(original) is list or type(original) is bytearray:
        original[:] = saved
    elif type(original) is dict or type(original) is set:
        original.clear()
        original.update(saved)
    else:
        return saved
    return original


def _same_rows(kept: KeptCopy) -> bool:
    """The frame still has the rows its column copies were taken from."""
    saved = list(kept.copy.values()) if isinstance(kept.copy, dict) else []
    try:
        return not saved or bool(kept.original.index.equals(saved[0].index))
    except Exception:
        return False


def _restore_columns(frame: Any, saved: dict[str, Any], order: list[str]) -> Any:
    """The frame itself back as it was, column by column: columns the code added dropped, the ones it
    replaced or deleted put back where they were (other names holding the frame see it restored)."""
    for column in [c for c in frame.columns if c not in order]:
        del frame[column]
    for position, column in enumerate(order):
        if column not in saved:
            continue
        if column in frame.columns:
            frame[column] = saved[column]
        else:
            frame.insert(position, column, saved[column])
    return frame


def _move_aside(path: str, folder: Path) -> str | None:
    """Move a file the undone run created into `folder`, keeping its name (numbered if taken)."""
    source = Path(path)
    if not source.is_file() or source.is_symlink():
        return None
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / source.name
    number = 1
    while target.exists():
        target = folder / f"{source.stem}-{number}{source.suffix}"
        number += 1
    try:
        shutil.move(str(source), str(target))
    except OSError:
        return None
    return str(target)


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(path)
