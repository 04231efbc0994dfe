"""Which protected files of a confined kernel lost their mount while it ran, said once each.

The launcher makes the trust base read-only and hides the secrets by mounts in the kernel's private
namespace (mounts.py). A file renamed over from another namespace (Jupyter and most editors save by
writing a new file and renaming it over) takes its mounts in this namespace with it: from then on
the kernel can write that `twnb.yaml` or `AGENTS.md`, or read that `.env`, until it ends. No remount
closes that (docs/architecture.md, "Residual gaps"); what twnb can do is say it.

The launcher records, after its mounts, each protected place with the id of the mount made for it
(`protected_value`), and the kernel's first stage takes that record out of the environment before
any other code runs (`take_from_environ`). A place has lost its mount when that id is no longer in
`/proc/self/mountinfo`: the first field of each line, read whole and never through the protected
paths, so no symlink the kernel plants there is followed, and the kernel cannot put a mount back
(seccomp and Landlock refuse it mount calls). About 0.15 ms for 20 mounts.

Imported by the launcher at every confined kernel's start: the standard library's json and os only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from typing import NamedTuple

PROTECTED_MOUNTS_ENV = "TWNB_PROTECTED_MOUNTS"
MOUNTINFO = "/proc/self/mountinfo"


class ProtectedMount(NamedTuple):  # not a dataclass: the launcher would import dataclasses for it
    name: str  # as the user knows it: relative to the notebook's folder when inside it
    hidden: bool  # hidden (a secret such as `.env`), else read-only (the trust base)
    mount_id: int


class LostMountsCheck(NamedTuple):
    lost: tuple[str, ...]  # every protected place that has lost its mount so far
    new_lines: tuple[str, ...]  # one line for each not said before


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash in paths as octal escapes."""
    for escaped, plain in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(escaped, plain)
    return field


def mount_points(mountinfo: str) -> dict[str, int]:
    """Each mount point and the id of the topmost mount there (mountinfo lists a mount after the one
    it covers)."""
    points: dict[str, int] = {}
    for line in mountinfo.splitlines():
        fields = line.split(" ")
        if len(fields) > 4:
            points[_unescape(fields[4])] = int(fields[0])
    return points


def mount_ids(mountinfo: str) -> set[int]:
    return {int(line.split(" ", 1)[0]) for line in mountinfo.splitlines() if line}


def read_mountinfo() -> str:
    with open(MOUNTINFO, encoding="utf-8", errors="surrogateescape") as file:
        return file.read()


def protected_mounts(
    places: Iterable[tuple[str, bool]], notebook_dir: str, mountinfo: str
) -> list[ProtectedMount]:
    """The mounts made for `places` (path, hidden), read from `mountinfo` right after they were made.
    A mount over a symlink is on its target: looked up there. A place with no mount is left out."""
    points = mount_points(mountinfo)
    found: list[ProtectedMount] = []
    for path, hidden in places:
        mount_id = points.get(os.path.realpath(path))
        if mount_id is None:
            continue
        relative = os.path.relpath(path, notebook_dir)
        name = path if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative
        found.append(ProtectedMount(name, hidden, mount_id))
    return found


def protected_value(mounts: Iterable[ProtectedMount]) -> str:
    return json.dumps([list(mount) for mount in mounts])


def parse_protected(value: str) -> list[ProtectedMount]:
    """The launcher's record back; anything malformed reads as nothing protected to watch."""
    try:
        return [
            ProtectedMount(str(name), bool(hidden), int(mount_id))
            for name, hidden, mount_id in json.loads(value)
        ]
    except (ValueError, TypeError):
        return []


def lost_line(mount: ProtectedMount) -> str:
    can = "read it, and any key in it" if mount.hidden else "write it"
    return (
        f"`{mount.name}` was saved from outside while this confined kernel ran, which took away the mount "
        f"that protected it: the kernel can now {can}; restart the kernel to protect it again"
    )


class LostMounts:
    """The protected places of this kernel and which have been said lost (once each)."""

    def __init__(self, mounts: Iterable[ProtectedMount], read: Callable[[], str] = read_mountinfo) -> None:
        self.mounts = tuple(mounts)
        self._read = read
        self._said: set[str] = set()

    def check(self) -> LostMountsCheck:
        if not self.mounts:
            return LostMountsCheck((), ())
        try:
            present = mount_ids(self._read())
        except (OSError, ValueError):  # no /proc: nothing can be told
            return LostMountsCheck((), ())
        lost = [mount for mount in self.mounts if mount.mount_id not in present]
        new = [mount for mount in lost if mount.name not in self._said]
        self._said.update(mount.name for mount in new)
        return LostMountsCheck(tuple(m.name for m in lost), tuple(lost_line(m) for m in new))


_this_kernel: LostMounts | None = None


def take_from_environ() -> None:
    """In the kernel's first stage, before any other code: the launcher's record, out of the
    environment, where libraries and the Round's code would see it. A notice, not a boundary: code in
    this process could silence it, as it could any of twnb's own state."""
    global _this_kernel
    value = os.environ.pop(PROTECTED_MOUNTS_ENV, None)
    if value is not None:
        _this_kernel = LostMounts(parse_protected(value))


def check_lost_mounts() -> LostMountsCheck:
    """This kernel's protected places that lost their mount (nothing outside a confined kernel)."""
    if _this_kernel is None:
        return LostMountsCheck((), ())
    return _this_kernel.check()
