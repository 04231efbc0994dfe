"""The confined kernel's side of the record of refused program starts: a second seccomp filter that
turns every `execve`/`execveat` into a user notification, and its listener handed to the supervisor
outside the kernel (exec_supervisor.py) over the socket the launcher left open for it.

Taken in inside.py after Landlock's second layer and before ipykernel runs any code: the launcher's
own exec into inside.py has gone by then, and nothing after it may start a program, so every
notification is a refusal to record. The kernel keeps no copy of the listener (a thread of its own
could otherwise answer its own notifications); with no listener left (the supervisor gone) the
system fails each exec with ENOSYS, and Landlock's layer 2 refuses it anyway.
"""

from __future__ import annotations

import ctypes
import errno
import os
import socket
import sys

from twnb.confine import seccomp

HANDOFF_ENV = "TWNB_CONFINE_EXEC_HANDOFF"  # the descriptor number of the kernel's end of the socket

_SYS_SECCOMP = 317
_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3
_RET_USER_NOTIF = 0x7FC00000
_EXECVE = 59
_EXECVEAT = 322
_SECCOMP = _SYS_SECCOMP
_PRCTL = 157
_PR_SET_SECCOMP = 22


def program() -> list[tuple[int, int, int, int]]:
    """execve and execveat (x86_64) to the listener; a filter of the kernel's own refused (seccomp(),
    prctl(PR_SET_SECCOMP)): a newer filter answering execve itself (an errno, or a listener of its
    own) would take precedence, and the start, though refused by Landlock, would go unrecorded;
    everything else allowed as far as this filter goes (the first one still refuses what it refuses,
    and kills other architectures). Jumps are relative: the last three are allow, refuse, notify."""
    return [
        (seccomp.LD_W_ABS, 0, 0, seccomp.OFFSET_ARCH),  # 0
        (seccomp.JEQ_K, 0, 7, seccomp.AUDIT_ARCH_X86_64),  # 1: else allow
        (seccomp.LD_W_ABS, 0, 0, seccomp.OFFSET_NR),  # 2
        (seccomp.JEQ_K, 7, 0, _EXECVE),  # 3: notify
        (seccomp.JEQ_K, 6, 0, _EXECVEAT),  # 4: notify
        (seccomp.JEQ_K, 4, 0, _SECCOMP),  # 5: refuse
        (seccomp.JEQ_K, 0, 2, _PRCTL),  # 6: else allow
        (seccomp.LD_W_ABS, 0, 0, seccomp.OFFSET_ARG0),  # 7
        (seccomp.JEQ_K, 1, 0, _PR_SET_SECCOMP),  # 8: refuse, else allow
        (seccomp.RET_K, 0, 0, seccomp.RET_ALLOW),  # 9
        (seccomp.RET_K, 0, 0, seccomp.RET_ERRNO | errno.EPERM),  # 10
        (seccomp.RET_K, 0, 0, _RET_USER_NOTIF),  # 11
    ]


def install_listener() -> int:
    """Take the filter for this (still single) thread and everything it starts; the listener's
    descriptor (close-on-exec). Needs no_new_privs (Landlock set it)."""
    prog = seccomp.filter_program(program())
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    fd = int(
        libc.syscall(
            ctypes.c_long(_SYS_SECCOMP),
            ctypes.c_long(_SECCOMP_SET_MODE_FILTER),
            ctypes.c_long(_SECCOMP_FILTER_FLAG_NEW_LISTENER),
            ctypes.byref(prog),
        )
    )
    if fd < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"seccomp listener refused: {errno.errorcode.get(code, code)}")
    return fd


def hand_over(handoff_fd: int) -> None:
    """Install the filter and send its listener to the supervisor over `handoff_fd`; close both here."""
    try:
        listener = install_listener()
        try:
            with socket.socket(fileno=handoff_fd) as channel:
                handoff_fd = -1  # the socket object closes it
                socket.send_fds(channel, [b"L"], [listener])
        finally:
            os.close(listener)
    finally:
        if handoff_fd >= 0:
            os.close(handoff_fd)


def hand_over_from_environ() -> bool:
    """`hand_over` to the descriptor the launcher named in the environment (taken out of it); False
    when none was named (no supervisor: not x86_64) or the hand-over failed, said in one line."""
    value = os.environ.pop(HANDOFF_ENV, None)
    if value is None:
        return False
    try:
        hand_over(int(value))
    except (OSError, ValueError) as error:
        # Landlock's layer 2 refuses every start all the same: the kernel starts, unrecorded
        print(f"twnb-confined: program starts are refused but not recorded ({error})", file=sys.stderr)
        return False
    return True
