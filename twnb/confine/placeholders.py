"""Stand-ins for the settings files the next launch reads (`twnb.yaml`, `.env`) where the notebook's
folder has none, so that the confined kernel cannot create them.

A bind mount makes a file read-only only where it exists, and Landlock allows whole folders, never
"this folder but not that name in it": the kernel, which must create files in the notebook's folder,
could create a `twnb.yaml` or `.env` (a base URL for the key proxy to send the key to, verification
off), and the next launch would read it. So the launcher creates each absent one, empty and read-only
(mode 0400: the mark that it is a stand-in), before the mounts make it read-only (`twnb.yaml`) or
hide it (`.env`) in the kernel's namespace, and the warden (outside the confinement) removes it when
the kernel ends. An empty file is read as no settings by twnb and by any other reader.

Two kernels in one folder: each launch holds a shared lock on the stand-in for its kernel's life, and
a warden removes it only when it can take the lock alone (unlinking a file another namespace has a
mount on would take that mount away). A launch that waited for the lock while the file was removed
makes a new one.
"""

from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path

SETTINGS_FILES = ("twnb.yaml", ".env")
_MODE = 0o400


def hold_placeholders(folder: Path) -> list[tuple[Path, int]]:
    """Create the absent settings files of `folder` as stand-ins and hold a shared lock on each
    settings file there (stand-in or not) for the kernel's life: (path, descriptor) pairs, the
    descriptors closed on exec (the warden keeps them). A file that cannot be made (a read-only
    folder) is left out: the kernel cannot make it either."""
    held: list[tuple[Path, int]] = []
    for name in SETTINGS_FILES:
        path = folder / name
        flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW
        for _ in range(100):
            try:
                fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, _MODE)
            except FileExistsError:
                try:
                    fd = os.open(path, flags)
                except FileNotFoundError:
                    continue  # removed since: make it
                except OSError:
                    break  # a symlink or a file we cannot read: the mounts treat it as they find it
            except OSError:
                break
            fcntl.flock(fd, fcntl.LOCK_SH)
            if _same_file(path, fd):
                held.append((path, fd))
                break
            os.close(fd)  # an ending kernel's warden removed it while this launch waited: again
    return held


def release_placeholders(held: list[tuple[Path, int]]) -> None:
    """Remove the stand-ins no other kernel holds, still empty and read-only as made (the user may
    have written one meanwhile: then it is theirs)."""
    for path, fd in held:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            info = os.fstat(fd)
            if info.st_size == 0 and stat.S_IMODE(info.st_mode) == _MODE and _same_file(path, fd):
                os.unlink(path)
        except OSError:
            pass  # another kernel still holds it: its warden removes it
        finally:
            os.close(fd)


def _same_file(path: Path, fd: int) -> bool:
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    held = os.fstat(fd)
    return (info.st_dev, info.st_ino) == (held.st_dev, held.st_ino)
