"""The supervisor of the confined kernel's program starts: a process the launcher forks before anything
is confined (outside Landlock's domain and the kernel's user namespace), which receives the listener
of the kernel's exec filter (exec_notify.py) and answers every `execve`/`execveat` the kernel or any
process it starts tries with EACCES, never letting one continue: Landlock's layer 2 stays the line,
the supervisor only records. Each refusal is one JSON line `{"time", "program", "pid"}` appended to
each record file (`program` null and `unread` saying why when the path could not be read): the one
whoever started the kernel named (`--refused-record PATH`, in a folder the kernel may not write: the
launcher checks) and the one the kernel itself reads but cannot write (the launcher's, named in
`RECORD_ENV`: twnb inside puts it in a Round's record), written before the answer, so it is there by
the time the kernel's call returns. Without a record file named by the starter, also a line on the
kernel's stderr (Jupyter's log).

The program is read from the calling process's memory (/proc/PID/mem), kept only when the
notification is still valid afterwards (SECCOMP_IOCTL_NOTIF_ID_VALID: the caller could have been
replaced meanwhile). A start is recorded even when its path cannot be read (the path in secret or
unmapped memory, Yama's ptrace_scope 2 or 3, the caller killed meanwhile): code can hide which program
it tried, never that it tried one. Making itself non-dumpable hides nothing: the supervisor, in the
user namespace that owns the kernel's, has CAP_SYS_PTRACE over it. The supervisor ends when the
filter has no process left (the listener hangs up).

The launcher's imports are paid at every kernel start: only ctypes, json, os, select, socket and
struct, already loaded by then.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import select
import signal
import socket
import struct
import time
from typing import IO

RECORD_OPTION = "--refused-record"
# The kernel's environment names here the record it may read, not write (launcher.py, refused_record.py)
RECORD_ENV = "TWNB_REFUSED_STARTS"
PROCESS_NAME = b"twnb-exec-sup"  # /proc/PID/comm: how a person (or a test) tells it apart

# struct seccomp_notif: id, pid, flags, then struct seccomp_data: nr, arch, ip, args[6]
_NOTIF = struct.Struct("=QIIiIQ6Q")
_RESP = struct.Struct("=QqiI")  # struct seccomp_notif_resp: id, val, error, flags
_IOC_READ_WRITE = 3
_IOC_WRITE = 1


def _ioc(direction: int, number: int, size: int) -> int:
    return (direction << 30) | (size << 16) | (ord("!") << 8) | number


NOTIF_RECV = _ioc(_IOC_READ_WRITE, 0, _NOTIF.size)
NOTIF_SEND = _ioc(_IOC_READ_WRITE, 1, _RESP.size)
NOTIF_ID_VALID = _ioc(_IOC_WRITE, 2, 8)
_EXECVEAT = 322
_AT_FDCWD = -100
_AT_EMPTY_PATH = 0x1000
_PATH_MAX = 4096
_PR_SET_NAME = 15
_MAX_LINES = 100_000  # about 10 MB of record


def start_supervisor(records: list[IO[bytes]], *, log: bool = False) -> int:
    """Fork the supervisor, writing to each of `records` (and a line to stderr with `log`); the
    kernel's end of the socket that carries the listener over, inheritable across the kernel's exec
    (exec_notify.HANDOFF_ENV)."""
    kernel_end, own_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.fork() == 0:
        try:
            kernel_end.close()
            os.setpgid(0, 0)  # out of the kernel's process group: Jupyter interrupts and kills the group
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            files = [record.fileno() for record in records]
            _close_all_but({own_end.fileno(), *files})
            ctypes.CDLL(None).prctl(_PR_SET_NAME, PROCESS_NAME, 0, 0, 0)
            serve(own_end, files, log=log)
        finally:
            os._exit(0)
    own_end.close()
    for record in records:
        record.close()
    fd = kernel_end.detach()
    os.set_inheritable(fd, True)
    return fd


def _close_all_but(keep: set[int]) -> None:
    """Close every descriptor above stderr but `keep`: the launcher's others (the held kernel ports, the
    settings' stand-ins) would otherwise live as long as this process."""
    start = 3
    for fd in sorted(fd for fd in keep if fd >= 3):
        os.closerange(start, fd)
        start = fd + 1
    os.closerange(start, os.sysconf("SC_OPEN_MAX"))


def serve(channel: socket.socket, files: list[int], *, log: bool = False) -> None:
    """Receive the listener over `channel`, then answer its notifications until it hangs up."""
    try:
        _, fds, _, _ = socket.recv_fds(channel, 1, 1)
    except OSError:
        return
    finally:
        channel.close()
    if not fds:
        return  # the kernel ended before it handed the listener over
    listener = fds[0]
    libc = ctypes.CDLL(None, use_errno=True)
    record = _Record(files, log)
    poller = select.poll()
    poller.register(listener, select.POLLIN)
    while True:
        try:
            events = poller.poll()
        except InterruptedError:
            continue
        for _, event in events:
            if event & select.POLLIN:
                _answer_one(libc, listener, record)
            elif event & (select.POLLHUP | select.POLLERR | select.POLLNVAL):
                return  # no process has the filter any more


def _answer_one(libc: ctypes.CDLL, listener: int, record: _Record) -> None:
    buffer = ctypes.create_string_buffer(_NOTIF.size)  # zeroed, as the system requires
    if libc.ioctl(listener, ctypes.c_ulong(NOTIF_RECV), buffer) != 0:
        return  # ENOENT: the caller died meanwhile
    ident, pid, _, nr, _, _, *args = _NOTIF.unpack(buffer.raw)
    program, unread = _program(pid, nr, args)
    valid = libc.ioctl(listener, ctypes.c_ulong(NOTIF_ID_VALID), ctypes.byref(ctypes.c_uint64(ident))) == 0
    if not valid:  # what was read may be a process's that took the caller's place: not the caller's
        program, unread = None, UNREAD_ENDED
    record.write(program, pid, unread)
    answer = ctypes.create_string_buffer(_RESP.pack(ident, 0, -errno.EACCES, 0), _RESP.size)
    libc.ioctl(listener, ctypes.c_ulong(NOTIF_SEND), answer)


class _Record:
    """Where each refusal goes: a JSON line in each record file, and a line on stderr for a person
    with `log`. The same process trying the same program again is written once (a loop would fill the
    disk), on stderr once for a whole search along PATH; past `_MAX_LINES` nothing more is written."""

    def __init__(self, files: list[int], log: bool) -> None:
        self.files = files
        self.log = log
        self.last: tuple[int, str | None, str | None] | None = None
        self.last_logged: tuple[int, str] | None = None
        self.lines = 0

    def write(self, program: str | None, pid: int, unread: str | None = None) -> None:
        """One refusal: `program` the path tried, or None with `unread` saying why it is not known."""
        if self.lines >= _MAX_LINES:
            return
        if self.files and (pid, program, unread) != self.last:
            self.last = (pid, program, unread)
            self.lines += 1
            item: dict[str, object] = {"time": time.time(), "program": program, "pid": pid}
            if program is None:
                item["unread"] = unread
            line = json.dumps(item) + "\n"
            for file in self.files:
                _write(file, line)
        shown = unread_program(unread) if program is None else program
        if self.log and (pid, os.path.basename(shown)) != self.last_logged:
            self.last_logged = (pid, os.path.basename(shown))
            self.lines += 1
            shown = shown if shown.isprintable() else ascii(shown)
            _write(2, f"twnb-confined: running {shown} was refused (process {pid})\n")


def unread_program(unread: str | None) -> str:
    """How a refused start whose path could not be read is named (the record, the notes, the log)."""
    return f"a program whose name could not be read ({unread or 'no reason recorded'})"


def _write(fd: int, line: str) -> None:
    try:  # noqa: SIM105 (contextlib is not loaded in the launcher)
        os.write(fd, line.encode())
    except OSError:
        pass  # the record is lost, the refusal is not


def _program(pid: int, nr: int, args: list[int]) -> tuple[str | None, str | None]:
    """The path the caller asked to run, made absolute, or None and why it could not be read."""
    try:
        return _path(pid, nr, args), None
    except OSError as error:
        return None, _unread_reason(error)
    except ValueError:
        return None, UNREAD_NO_PATH


UNREAD_DENIED = "the system refuses reading its memory: Yama's ptrace_scope 2 or 3, or a security module"
UNREAD_HIDDEN = "its path is in memory no other process can read: secret (memfd_secret) or unmapped"
UNREAD_ENDED = "the process ended before it was read"
UNREAD_NO_PATH = "no path ends within PATH_MAX"


def _unread_reason(error: OSError) -> str:
    if error.errno in (errno.EACCES, errno.EPERM):
        return UNREAD_DENIED
    if error.errno in (errno.EIO, errno.EFAULT):
        return UNREAD_HIDDEN
    if error.errno in (errno.ESRCH, errno.ENOENT):
        return UNREAD_ENDED
    return f"{error.strerror or error}"


def _path(pid: int, nr: int, args: list[int]) -> str:
    """The path the caller asked to run, made absolute (OSError, ValueError: it cannot be read)."""
    if nr == _EXECVEAT:
        dirfd, path = ctypes.c_int32(args[0]).value, _read_string(pid, args[1])
        if path == "" and args[4] & _AT_EMPTY_PATH:
            return os.readlink(f"/proc/{pid}/fd/{dirfd}")
    else:
        dirfd, path = _AT_FDCWD, _read_string(pid, args[0])
    if path.startswith("/"):
        return path
    base = f"/proc/{pid}/cwd" if dirfd == _AT_FDCWD else f"/proc/{pid}/fd/{dirfd}"
    return os.path.join(os.readlink(base), path)


def _read_string(pid: int, address: int) -> str:
    """A NUL-ended string of the process's memory, read page by page (the next may not be mapped)."""
    fd = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
    try:
        data = b""
        while len(data) < _PATH_MAX:
            at = address + len(data)
            piece = os.pread(fd, 4096 - at % 4096, at)
            if not piece:
                break
            end = piece.find(b"\0")
            if end >= 0:
                return (data + piece[:end]).decode("utf-8", "surrogateescape")
            data += piece
    finally:
        os.close(fd)
    raise ValueError("no path")
