"""The quarantine records of notebook folders that no longer exist, found and removed as `twnb trust`
walks the state folder (`kernel_end.recorded_elsewhere`), and that walk kept fast with many records.

Gone means deleted or renamed: the folder's path is not there (ENOENT; any other error, EACCES,
EIO, ESTALE, says nothing of the folder) and the nearest folder above it that exists is on the file
system the folder was on when its record began (`device`, st_dev). A disk unmounted, or a network
share not mounted now, leaves its mount point, a folder of the file system below: another device,
so the folder is out of reach, not gone, and its record stays. A record from before the device was
kept counts the folder gone only when that folder above is not empty (an unmounted mount point
usually is). A record is removed only when it also holds no session (a kernel's end not yet
written, which may still move aside what the kernel left elsewhere) and no moved-aside entry whose
file is still there to be put back (`moved_to` outside the gone folder: a home folder's
`.gitconfig.twnb-quarantined`).

The walk reads each record's bytes, never parses one that cannot concern the folder asked about: a
record holds entries for places inside a folder only if its own folder is above that folder (looked
up by key) or the folder's path is written in it (below it, or absolute entries).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

from twnb.config.quarantine import RECORD, QuarantineError, _Lock, folder_key, load

# save() writes the record with sort_keys and indent=1: the top-level "folder" is on a line of its own
_FOLDER = re.compile(rb'\n "folder": ("(?:[^"\\]|\\.)*")')


def record_folder(raw: bytes) -> str | None:
    """The folder a record's bytes name, without parsing the whole record."""
    found = _FOLDER.search(raw)
    if found is None:
        try:
            value = json.loads(raw).get("folder")
        except (ValueError, AttributeError):
            return None
        return value if isinstance(value, str) else None
    value = json.loads(found.group(1))
    return value if isinstance(value, str) else None


def folder_is_gone(folder: str, device: object) -> bool:
    """Whether `folder` was deleted or renamed, rather than out of reach for now (module docstring)."""
    try:
        os.stat(folder)
        return False
    except FileNotFoundError:
        pass
    except OSError:
        return False
    above = os.path.dirname(folder)
    while True:
        try:
            info = os.stat(above)
            break
        except FileNotFoundError:
            if above == os.path.dirname(above):
                return False
            above = os.path.dirname(above)
        except OSError:
            return False
    if isinstance(device, int):
        return info.st_dev == device
    try:
        return bool(os.listdir(above))
    except OSError:
        return False


def _restorable(record: dict[str, object]) -> bool:
    """Whether the record holds a moved-aside file that is still there to be put back."""
    folder = str(record.get("folder") or "")
    entries = record.get("quarantined")
    for entry in entries.values() if isinstance(entries, dict) else []:
        moved = entry.get("moved_to") if isinstance(entry, dict) else None
        if isinstance(moved, str) and os.path.lexists(os.path.join(folder, moved)):
            return True
    return False


def prunable(record: dict[str, object]) -> bool:
    """Whether the record is of a gone folder, with no session and nothing to put back."""
    folder = record.get("folder")
    sessions = record.get("sessions")
    return (
        isinstance(folder, str)
        and not sessions
        and folder_is_gone(folder, record.get("device"))
        and not _restorable(record)
    )


def prune(place: Path) -> bool:
    """Remove the record in `place` if it is prunable, looked at again under its lock (a launcher may
    have begun a session there meanwhile); True when it was removed."""
    try:
        with _Lock(place):
            record = load(place)
            if record is None or not prunable(record):
                return False
            # renamed away first, under the lock: a writer waiting for the lock finds its lock file
            # gone and makes the folder again (quarantine._Lock)
            gone = place.with_name(f".pruned-{place.name}-{os.getpid()}")
            os.rename(place, gone)
    except (QuarantineError, OSError):
        return False
    import shutil  # lazy: shutil (~11 ms fresh) for a removal only

    shutil.rmtree(gone, ignore_errors=True)
    return True


def concerning(root: Path, folder: str) -> Iterator[tuple[Path, dict[str, object]]]:
    """The records under `root` that may hold entries for places inside `folder` (a real path), each
    with its place; records of gone folders met on the way are pruned."""
    above = {folder_key(folder)}
    parent = folder
    while parent != os.path.dirname(parent):
        parent = os.path.dirname(parent)
        above.add(folder_key(parent))
    needle = json.dumps(folder)[1:-1].encode("utf-8", "surrogateescape")
    base = str(root)
    try:
        keys = sorted(os.listdir(base))
    except OSError:
        return
    for key in keys:  # plain strings and descriptors: pathlib's objects cost more than the reading
        if key.startswith("."):
            continue
        raw = _read(os.path.join(base, key, RECORD))
        if raw is None:  # no record (a folder made, not yet written), or unreadable: nothing here
            continue
        named = record_folder(raw)
        if named is not None and not _exists_or_unsure(named) and prune(root / key):
            continue
        if key not in above and needle not in raw:
            continue
        with contextlib.suppress(QuarantineError):
            record = load(root / key)
            if record is not None:
                yield root / key, record


def _read(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _exists_or_unsure(folder: str) -> bool:
    try:
        os.stat(folder)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True
