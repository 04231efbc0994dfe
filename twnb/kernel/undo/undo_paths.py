"""Where undo may write: only a regular file reached without a symlink, inside the notebook's folder.

Undo acts after the Round, on paths the Round recorded; by then the code (or a later cell) may have
swapped a symlink in for the file or for a folder above it, or hard-linked the name to another file.
Following either would make undo write old content, or move a file, somewhere the user never chose.
So each path is checked as the file system sees it at that moment (its real path, each component
looked at without following links, its link count), and the write itself opens the file with
O_NOFOLLOW.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def unsafe_reason(path: str | os.PathLike[str], folder: Path, *, must_exist: bool = True) -> str | None:
    """Why undo must not write, move or restore `path` (None: it may): it, or a folder above it, is a
    symlink; it resolves outside `folder`; it is not a regular file; it has another name (a hard link)."""
    absolute = os.path.abspath(path)
    real = os.path.realpath(absolute)
    root = os.path.realpath(folder)
    if real != absolute and not _same_below(absolute, real, folder):
        return "it, or a folder above it, is now a symlink"
    if os.path.commonpath([real, root]) != root:
        return "it is outside the notebook's folder"
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return "it no longer exists" if must_exist else None
    except OSError as error:
        return f"it cannot be read ({error.strerror})"
    if not stat.S_ISREG(info.st_mode):
        return "it is no longer a regular file"
    if info.st_nlink > 1:
        return "it now has another name (a hard link)"
    return None


def _same_below(absolute: str, real: str, folder: Path) -> bool:
    """The path differs from its real path only by links above the notebook's folder (a home folder
    that is itself a symlink): below it, no component is a link."""
    root_abs, root_real = os.path.abspath(folder), os.path.realpath(folder)
    if os.path.commonpath([absolute, root_abs]) != root_abs:
        return False
    relative = os.path.relpath(absolute, root_abs)
    return os.path.join(root_real, relative) == real


def write_back(copy_path: str, path: str) -> None:
    """Write the kept copy over `path` without following a symlink at its last component (OSError
    otherwise); its mode and times are put back, as shutil.copy2 does."""
    kept = os.stat(copy_path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(path, flags, stat.S_IMODE(kept.st_mode))
    with os.fdopen(descriptor, "wb") as target, open(copy_path, "rb") as source:
        while chunk := source.read(1 << 20):
            target.write(chunk)
        target.flush()
        os.fchmod(target.fileno(), stat.S_IMODE(kept.st_mode))
        os.utime(target.fileno(), ns=(kept.st_atime_ns, kept.st_mtime_ns))
