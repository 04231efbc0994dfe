"""The live processes of a confined kernel's user namespace, each held by a pidfd whose identity was
checked: what the warden ends when the kernel is gone, and what the quarantine waits for.

A process of the namespace is found by what it is, never by its name, parent, session or group: a
child of the kernel can `setsid`, be re-parented to init or a subreaper, change its `comm`. Every
process the kernel starts stays in its user namespace (seccomp refuses `unshare`, `setns` and a
`clone` with a namespace flag on x86_64); where a process could make a namespace of its own (no
seccomp filter), one nested in the kernel's counts too (NS_GET_PARENT up to the kernel's).

A pid is given again once its process is reaped (pid_max is often 32768: a loop of forks goes round
in seconds), so a pid read from /proc is not a process. Each candidate is opened as a pidfd first,
looked at again through /proc afterwards, and kept only if the pidfd's process is still alive then:
that look was of the pidfd's process, and a signal through the pidfd reaches it or nothing, never a
process given the same pid later (`signal.pidfd_send_signal`). A zombie (exited, not yet reaped by
its parent) runs nothing and holds nothing: not counted. A leader whose other threads still run
shows as a zombie in /proc but its pidfd is not readable: counted.

Standard library only: the quarantine imports it at a confined kernel's start.
"""

from __future__ import annotations

import os
import select
from collections.abc import Iterator
from typing import NamedTuple

NS_GET_PARENT = 0xB702  # _IO(0xb7, 0x2), linux/nsfs.h
MAX_NESTING = 33  # user namespaces nest at most 32 deep


class Member(NamedTuple):
    """A live process of the namespace: its pid and start time (together: which process it was, for
    counting) and a pidfd that names it alone."""

    pid: int
    start: int
    pidfd: int


def namespace_inode(namespace: object) -> int | None:
    """The inode of a namespace as `/proc/PID/ns/user` names it (`user:[4026532281]`)."""
    if not isinstance(namespace, str) or not namespace.endswith("]") or ":[" not in namespace:
        return None
    number = namespace[namespace.index(":[") + 2 : -1]
    return int(number) if number.isdigit() else None


def _own_inode() -> int:
    return os.stat("/proc/self/ns/user").st_ino


def _in_namespace(pid: int, inode: int, own: int) -> bool:
    """Whether process `pid` is now in the namespace `inode` or one nested in it."""
    path = f"/proc/{pid}/ns/user"
    try:
        found = os.stat(path).st_ino
    except OSError:
        return False
    if found == inode:
        return True
    if found == own:
        return False
    return _nested_in(path, inode, own)


def _nested_in(path: str, inode: int, own: int) -> bool:
    import fcntl  # lazy: fcntl (~0.3 ms) only for a process in a namespace other than ours and the kernel's

    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        for _ in range(MAX_NESTING):
            try:
                parent = fcntl.ioctl(fd, NS_GET_PARENT)
            except OSError:  # the top we may see (EPERM) or not a user namespace
                return False
            os.close(fd)
            fd = parent
            found = os.fstat(fd).st_ino
            if found == inode:
                return True
            if found == own:
                return False
        return False
    finally:
        os.close(fd)


def _start_time(pid: int) -> int:
    """The process's start time (/proc/PID/stat, field 22), 0 when it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            data = file.read()
        return int(data[data.rindex(b")") + 2 :].split()[19])
    except (OSError, ValueError, IndexError):
        return 0


def has_exited(pidfd: int) -> bool:
    """Whether the pidfd's process has exited (a pidfd polls readable then; a zombie has)."""
    poller = select.poll()  # not select.select: a descriptor past 1023 is beyond its set
    poller.register(pidfd, select.POLLIN)
    return bool(poller.poll(0))


def _newest_first() -> list[int]:
    """The pids to look at, newest first: around the last pid the system handed out (a process that
    forks in a loop lives for a few milliseconds under a new pid each time, handed out one after the
    other: looked at first, before it is gone), then every pid in /proc from the highest down."""
    try:
        with open("/proc/sys/kernel/ns_last_pid", "rb") as file:
            last = int(file.read())
    except (OSError, ValueError):
        last = 0
    recent = list(range(last + AHEAD, max(last - RECENT, 0), -1)) if last else []
    listed = sorted((int(name) for name in os.listdir("/proc") if name.isdigit()), reverse=True)
    return list(dict.fromkeys([*recent, *listed]))


AHEAD = 8  # pids handed out since ns_last_pid was read
RECENT = 32  # pids handed out just before


def namespace_members(namespace: object) -> Iterator[Member]:
    """The live processes of `namespace` (`user:[N]`), newest first, each as a Member whose pidfd the
    caller closes. Nothing when the namespace is not named. Raises OSError when /proc cannot be
    listed."""
    inode = namespace_inode(namespace)
    if inode is None:
        return
    own = _own_inode()
    me = os.getpid()
    for pid in _newest_first():
        if pid == me or not _in_namespace(pid, inode, own):
            continue
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:  # gone meanwhile
            continue
        # looked at again through the pidfd's process: the first look may have been of a process
        # whose pid was given to this one since; alive after the look, the look was of it
        if _in_namespace(pid, inode, own):
            start = _start_time(pid)
            if not has_exited(pidfd):
                yield Member(pid, start, pidfd)
                continue
        os.close(pidfd)


def namespace_has_members(namespace: object) -> bool:
    """Whether a live process is in `namespace` (True when /proc cannot be listed: cannot tell,
    taken as running, which refuses and never trusts)."""
    try:
        for member in namespace_members(namespace):
            os.close(member.pidfd)
            return True
    except OSError:
        return True
    return False
