"""A small seccomp filter for what Landlock does not cover, assembled here as classic BPF and taken
with prctl (no libseccomp: its Python binding is not on PyPI as a maintained wheel, and a dozen
instructions do not need it).

Refused with EPERM: tracing and reading other processes (ptrace, process_vm_readv/writev, kcmp,
pidfd_getfd), kernel keyrings, mounting and namespaces (mount, the new mount API, unshare, setns, clone
with a namespace flag; clone3 answers ENOSYS so the C library falls back to clone), bpf,
perf_event_open, userfaultfd, io_uring, file handles, modules and kexec; sockets other than TCP over
IPv4/IPv6 and netlink (UDP only when `udp` is on: name look-ups need it). x86_64 only; elsewhere
`install` returns False and the confinement says so.
"""

from __future__ import annotations

import ctypes
import errno
import os
import socket

AUDIT_ARCH_X86_64 = 0xC000003E
_X32_BIT = 0x40000000
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
_RET_KILL_PROCESS = 0x80000000

LD_W_ABS = 0x20
JEQ_K = 0x15
_JSET_K = 0x45
_AND_K = 0x54
RET_K = 0x06

OFFSET_NR = 0
OFFSET_ARCH = 4
OFFSET_ARG0 = 16
_OFFSET_ARG1 = 24

REFUSED_SYSCALLS: dict[str, int] = {
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "pidfd_getfd": 438,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "chroot": 161,
    "unshare": 272,
    "setns": 308,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "bpf": 321,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "kexec_load": 246,
    "kexec_file_load": 320,
}
_SOCKET = 41
_CLONE = 56
_CLONE3 = 435
_NAMESPACE_FLAGS = 0x7E020000  # CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
_SOCK_TYPE_MASK = 0xF


class _SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_SockFilter))]


def supported() -> bool:
    return os.uname().sysname == "Linux" and os.uname().machine == "x86_64"


def program(*, udp: bool) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) instructions. Jumps are relative; the last three instructions are
    the shared answers: refuse (EPERM), no such call (ENOSYS), allow."""
    body: list[tuple[int, int | str, int | str, int]] = [
        (LD_W_ABS, 0, 0, OFFSET_ARCH),
        (JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        (RET_K, 0, 0, _RET_KILL_PROCESS),
        (LD_W_ABS, 0, 0, OFFSET_NR),
        (_JSET_K, "deny", 0, _X32_BIT),
    ]
    for number in REFUSED_SYSCALLS.values():
        body.append((JEQ_K, "deny", 0, number))
    body.append((JEQ_K, "nosys", 0, _CLONE3))
    body += [
        (JEQ_K, 0, 2, _CLONE),
        (LD_W_ABS, 0, 0, OFFSET_ARG0),
        (_JSET_K, "deny", "allow", _NAMESPACE_FLAGS),
        (JEQ_K, 0, "allow", _SOCKET),
        (LD_W_ABS, 0, 0, OFFSET_ARG0),
        (JEQ_K, "allow", 0, socket.AF_NETLINK),
        (JEQ_K, 1, 0, socket.AF_INET),
        (JEQ_K, 0, "deny", socket.AF_INET6),
        (LD_W_ABS, 0, 0, _OFFSET_ARG1),
        (_AND_K, 0, 0, _SOCK_TYPE_MASK),
        (JEQ_K, "allow", 0, socket.SOCK_STREAM),
        (JEQ_K, "allow" if udp else "deny", "deny", socket.SOCK_DGRAM),
    ]
    answers = {"deny": RET_ERRNO | errno.EPERM, "nosys": RET_ERRNO | errno.ENOSYS, "allow": RET_ALLOW}
    at = {name: len(body) + i for i, name in enumerate(answers)}

    def offset(target: int | str, index: int) -> int:
        return target if isinstance(target, int) else at[target] - index - 1

    code = [(c, offset(jt, i), offset(jf, i), int(k)) for i, (c, jt, jf, k) in enumerate(body)]
    return code + [(RET_K, 0, 0, value) for value in answers.values()]


def filter_program(instructions: list[tuple[int, int, int, int]]) -> ctypes.Structure:
    """The `struct sock_fprog` of `instructions` (ctypes keeps the array alive through its pointer)."""
    filters = (_SockFilter * len(instructions))(*(_SockFilter(*ins) for ins in instructions))
    return _SockFprog(len(instructions), filters)


def install(*, udp: bool) -> bool:
    """Take the filter for this thread and every process it starts; False where it is not supported
    (not x86_64). Needs no_new_privs (the Landlock ruleset sets it first)."""
    if not supported():
        return False
    prog = filter_program(program(udp=udp))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"seccomp filter refused: {errno.errorcode.get(code, code)}")
    return True
