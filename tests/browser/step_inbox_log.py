"""Step mode's inbox, logged by the browser tests' kernels into their server's log, and printed when a
test fails: which clicks reached the kernel (and on which thread), which prompt waited for what, and
what each wait dropped. A click that did nothing then names its cause: never posted (the browser sent
nothing, or the kernel never handled it), posted for another prompt (dropped), or taken.

The kernels read an IPython startup file in the test process's IPython folder (`install`; the
servers' kernels inherit IPYTHONDIR, tests/conftest.py), which in a kernel whose environment has
`ENV` (the servers' environment, `environment`) turns the `twnb.notebook.step_mode` logger to debug
level with a handler on the process's own stderr: the server's log (ipykernel's `sys.stderr` would
print into the cell). Other kernels of the test run are left alone. It leaves no name in the user's
namespace."""

from __future__ import annotations

from pathlib import Path

MARK = "step inbox:"  # what every line of the inbox's log holds (twnb/notebook/step_mode.py)
ENV = "BROWSER_TESTS_STEP_INBOX_LOG"
STARTUP = f'''\
# Written by tests/browser/step_inbox_log.py: step mode's inbox at debug level, into the server's log.
def _twnb_step_inbox_log():
    import logging
    import os
    import sys

    if not os.environ.get("{ENV}"):
        return

    handler = logging.StreamHandler(sys.__stderr__)
    handler.setFormatter(logging.Formatter("%(asctime)s kernel %(process)d %(threadName)s: %(message)s"))
    logger = logging.getLogger("twnb.notebook.step_mode")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)


_twnb_step_inbox_log()
del _twnb_step_inbox_log
'''


def environment() -> dict[str, str]:
    """What a server's environment adds for its kernels to log the inbox."""
    return {ENV: "1"}


def install(ipython_dir: Path) -> Path:
    """The startup file in `ipython_dir`'s default profile, which every kernel of the run reads."""
    path = ipython_dir / "profile_default" / "startup" / "00-twnb-step-inbox-log.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(STARTUP, encoding="utf-8")
    return path


def inbox_lines(server_log: Path, last: int = 80) -> list[str]:
    """The last `last` lines of the inbox's log in `server_log` (none when it is not there)."""
    try:
        text = server_log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [line for line in text.splitlines() if MARK in line][-last:]
