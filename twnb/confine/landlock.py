"""Linux Landlock through its three system calls (ctypes; no wrapper package): an unprivileged process
takes a ruleset that allows only the listed file hierarchies and TCP ports, inherited by every child
and never lifted (docs/architecture.md, "Confined kernels").

A ruleset is an allow-list: an access it handles is refused unless a rule allows it on the path (or a
parent of it) or port. Rulesets stack: a second one taken later can only refuse more.
"""

from __future__ import annotations

import ctypes
import errno
import os
from pathlib import Path
from typing import NamedTuple

# x86_64 and aarch64 (asm-generic) number the Landlock calls the same way.
_CREATE_RULESET = 444
_ADD_RULE = 445
_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_RULE_NET_PORT = 2
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5

BIND_TCP = 1 << 0  # ABI 4
CONNECT_TCP = 1 << 1  # ABI 4

SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

READ = READ_FILE | READ_DIR
# What a rule on a single file (not a folder) may allow.
FILE_ACCESS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
WRITE = (
    WRITE_FILE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SOCK
    | MAKE_FIFO
    | MAKE_SYM
    | REFER
    | TRUNCATE
)

# The oldest ABI a confined kernel accepts: TCP ports (4) and scoped signals and abstract sockets (6).
MIN_ABI = 6


class LandlockError(OSError):
    """Landlock is missing, too old, or refused a ruleset."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPortAttr(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _syscall(number: int, *args: object) -> int:
    result = int(_libc.syscall(ctypes.c_long(number), *args))
    if result < 0:
        code = ctypes.get_errno()
        raise LandlockError(code, os.strerror(code))
    return result


def abi_version() -> int:
    """The running kernel's Landlock ABI, 0 where there is none (not Linux, too old, or switched off)."""
    if os.uname().sysname != "Linux" or os.uname().machine not in ("x86_64", "aarch64"):
        return 0
    try:
        return _syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except LandlockError:
        return 0


def fs_access_of(abi: int) -> int:
    """Every file-system access that ABI `abi` handles."""
    access = (MAKE_SYM << 1) - 1
    if abi < 2:
        access &= ~REFER
    if abi >= 3:
        access |= TRUNCATE
    if abi >= 5:
        access |= IOCTL_DEV
    return access


# NamedTuples, not dataclasses: the launcher imports this module, and dataclasses (with inspect) is
# a noticeable part of a Python's start-up (bench/bench_confined.py)
class PathRule(NamedTuple):
    path: Path
    access: int


class PortRule(NamedTuple):
    port: int
    access: int


class Ruleset(NamedTuple):
    """What one Landlock layer handles and allows. Paths that do not exist are left out (a rule needs
    an open file)."""

    handled_fs: int
    handled_net: int = 0
    scoped: int = 0
    paths: tuple[PathRule, ...] = ()
    ports: tuple[PortRule, ...] = ()

    def restrict_self(self) -> None:
        """Take this ruleset for the calling thread and every process it starts (call while the process
        has one thread). Raises LandlockError when the kernel refuses."""
        attr = _RulesetAttr(self.handled_fs, self.handled_net, self.scoped)
        ruleset_fd = _syscall(
            _CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0)
        )
        try:
            for rule in self.paths:
                self._add_path(ruleset_fd, rule)
            for port in self.ports:
                net = _NetPortAttr(port.access & self.handled_net, port.port)
                _syscall(
                    _ADD_RULE,
                    ctypes.c_int(ruleset_fd),
                    ctypes.c_int(_RULE_NET_PORT),
                    ctypes.byref(net),
                    ctypes.c_uint32(0),
                )
            if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
                code = ctypes.get_errno()
                raise LandlockError(code, f"no_new_privs: {os.strerror(code)}")
            _syscall(_RESTRICT_SELF, ctypes.c_int(ruleset_fd), ctypes.c_uint32(0))
        finally:
            os.close(ruleset_fd)

    def _add_path(self, ruleset_fd: int, rule: PathRule) -> None:
        try:
            fd = os.open(rule.path, os.O_PATH | os.O_CLOEXEC)
        except OSError as error:
            if error.errno in (errno.ENOENT, errno.ENOTDIR, errno.EACCES):
                return
            raise
        try:
            access = rule.access & self.handled_fs
            if not os.path.isdir(f"/proc/self/fd/{fd}"):
                access &= FILE_ACCESS
            if access:
                beneath = _PathBeneathAttr(access, fd)
                _syscall(
                    _ADD_RULE,
                    ctypes.c_int(ruleset_fd),
                    ctypes.c_int(_RULE_PATH_BENEATH),
                    ctypes.byref(beneath),
                    ctypes.c_uint32(0),
                )
        finally:
            os.close(fd)
