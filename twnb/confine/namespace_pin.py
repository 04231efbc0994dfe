"""The warden's hold on its kernel's user namespace, so that the namespace's number names it alone.

The warden finds what an ended kernel left running, and the quarantine waits for it, by the number of
the kernel's user namespace (`user:[N]`, the inode of /proc/PID/ns/user). Linux gives that number to a
new namespace as soon as the old one is freed (the lowest free number: measured here, a namespace made
0.3 s after another ended took its number). Another confined kernel started just after this one ended
(another notebook, a batch run's next case, a restart) then counted as this one's leftovers: the warden
ended it, or waited for its end before the quarantine and the removal of the private folder.

An open descriptor of a namespace keeps it from being freed, and so its number from being given again:
the warden opens it once the launcher has entered it (while the kernel still lives in it) and holds it
until it exits, after its end-of-kernel work.
"""

from __future__ import annotations

import os

from twnb.config import has_exited


def pin_user_namespace(pid: int, pidfd: int) -> int | None:
    """A descriptor of the user namespace process `pid` is in (its caller holds it), None when it
    cannot be opened or `pidfd`'s process (`pid`'s) has exited meanwhile: the look may then have
    been at another process given the same pid."""
    try:
        held = os.open(f"/proc/{pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    if has_exited(pidfd):
        os.close(held)
        return None
    return held
