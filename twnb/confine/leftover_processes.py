"""The warden's last word to what a confined kernel left running: once the kernel's own process has
ended, every other process of its user namespace is asked to stop (SIGTERM), given a short grace,
then killed (SIGKILL), and the count is said.

A child the kernel started (a forked worker, a daemonised multiprocessing process, a `setsid` child)
would otherwise keep running the notebook's code after its kernel is gone, which a user does not
expect of a confined kernel, keep the warden from its end-of-kernel work (the quarantine and the
planted files wait until no process of the kernel is left) and make every batch run wait for it.

The processes are found and signalled through pidfds whose identity was checked
(config's `namespace_members`): a pid given again to a process outside the namespace is never
signalled. Each round looks at /proc again, so a process that forks in a loop is followed: its
newest child is found by the next round; a process killed while it forks makes no child (the fork
fails on the pending SIGKILL).
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass, field

from twnb.config import namespace_members

# The grace between SIGTERM and SIGKILL: long enough for a process that handles SIGTERM to flush a
# file or remove its temporary files (a Python process's atexit runs in milliseconds), short enough
# that a batch run (`twnb eval -j`, one kernel per case) and a kernel restart are not held up by a
# process that ignores SIGTERM, and the end-of-kernel work comes promptly.
TERM_GRACE_S = 1.0
# How long SIGKILL rounds go on: a process that forks in a loop may have a new child each round.
KILL_ROUNDS_S = 5.0
# A look that finds nothing may have missed a process that forks in a loop between two of its pids:
# the namespace counts as empty after this many empty looks in a row, ROUND_PAUSE_S apart.
EMPTY_LOOKS = 5
ROUND_PAUSE_S = 0.01


@dataclass
class Leftovers:
    """What the end did: the pids it signalled (each a distinct process: pidfds, not pids, were
    signalled; a pid given again is counted again) and whether some are still there."""

    ended: set[tuple[int, int]] = field(default_factory=set)
    remaining: int = 0

    def line(self) -> str | None:
        """The launcher's stderr line (the kernel's log), None when nothing was left running."""
        if not self.ended and not self.remaining:
            return None
        said = f"twnb-confined: the kernel has ended; ended {_processes(len(self.ended))} it left running"
        if self.remaining:
            said += f"; {_processes(self.remaining)} could not be ended yet (the end waits for them)"
        return said


def _processes(count: int) -> str:
    return f"{count} process" if count == 1 else f"{count} processes"


def _signal_round(namespace: str, signum: int, leftovers: Leftovers) -> int:
    """Send `signum` to each live process of the namespace; how many there were."""
    count = 0
    for member in namespace_members(namespace):
        try:
            signal.pidfd_send_signal(member.pidfd, signum)
            count += 1
            leftovers.ended.add((member.pid, member.start))
        except ProcessLookupError:  # ended meanwhile
            pass
        finally:
            os.close(member.pidfd)
    return count


def end_leftovers(
    namespace: str | None, grace_s: float = TERM_GRACE_S, kill_s: float = KILL_ROUNDS_S
) -> Leftovers:
    """End every process of the kernel's user namespace (the kernel's own has ended): SIGTERM, up to
    `grace_s` for them to go, then SIGKILL rounds for up to `kill_s` until a round finds none."""
    leftovers = Leftovers()
    if namespace is None:
        return leftovers
    try:
        deadline = time.monotonic() + grace_s
        while _signal_round(namespace, signal.SIGTERM, leftovers) and time.monotonic() < deadline:
            time.sleep(ROUND_PAUSE_S)
        deadline = time.monotonic() + kill_s
        empty = 0
        while empty < EMPTY_LOOKS and time.monotonic() < deadline:
            if _signal_round(namespace, signal.SIGKILL, leftovers):
                empty = 0  # at once again: what it forked meanwhile is being born
            else:
                empty += 1
                time.sleep(ROUND_PAUSE_S)
        if empty < EMPTY_LOOKS:
            leftovers.remaining = _count(namespace)
    except OSError:  # no /proc: nothing found, and the end's own wait decides
        pass
    return leftovers


def _count(namespace: str) -> int:
    count = 0
    for member in namespace_members(namespace):
        os.close(member.pidfd)
        count += 1
    return count
