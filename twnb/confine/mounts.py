"""Read-only and emptied places inside the folders a confined kernel may read or write, through a
private mount namespace (an unprivileged user namespace mapping the user to itself).

Landlock allows whole hierarchies, so a file inside an allowed folder cannot be excepted by it: the
notebook's folder may hold `twnb.yaml`, `.env` and `plugins/`, and a notebook in the home folder
holds `~/.ssh` and the shell's start-up files. Bind mounts make the trust base read-only there and hide
the secrets (a folder under an empty read-only tmpfs, a file under /dev/null). The kernel then cannot
unmount them: seccomp refuses mount calls and Landlock refuses them to a confined process.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_MS_RDONLY = 1
_MS_NOSUID = 2
_MS_NODEV = 4
_MS_NOEXEC = 8
_MS_REMOUNT = 32
_MS_BIND = 4096
_MS_REC = 16384
_MS_PRIVATE = 1 << 18

_libc = ctypes.CDLL(None, use_errno=True)


class MountError(OSError):
    """The private mount namespace could not be made."""


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise MountError(code, f"{what}: {os.strerror(code)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    result = _libc.mount(
        None if source is None else source.encode(),
        target.encode(),
        None if fstype is None else fstype.encode(),
        ctypes.c_ulong(flags),
        None if data is None else data.encode(),
    )
    _check(result, f"mount {target}")


def enter_private_mounts() -> None:
    """Move this (single-threaded) process into a new user and mount namespace, the user mapped to
    itself, mounts no longer shared with the rest of the system."""
    uid, gid = os.getuid(), os.getgid()
    _check(_libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS), "unshare")
    Path("/proc/self/setgroups").write_text("deny")
    Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
    Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)


def make_read_only(path: Path) -> None:
    target = str(path)
    _mount(target, target, None, _MS_BIND | _MS_REC)
    _mount(None, target, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)


def private_tmpfs(path: Path, size: str) -> None:
    """A new, empty, writable tmpfs of at most `size` (tmpfs's `size=` syntax) over a folder: what is
    made there lives in this namespace alone and vanishes with it."""
    _mount("tmpfs", str(path), "tmpfs", _MS_NOSUID | _MS_NODEV, f"size={size},mode=0700")


def hide(path: Path) -> None:
    """An empty read-only folder over a folder, /dev/null over a file."""
    target = str(path)
    if path.is_dir():
        _mount(
            "tmpfs", target, "tmpfs", _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "size=4k,mode=0500"
        )
    else:
        _mount("/dev/null", target, None, _MS_BIND)
        _mount(None, target, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID)
