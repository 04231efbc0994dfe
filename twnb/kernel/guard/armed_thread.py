"""Whether the calling thread runs generated code, asked from outside the guard without installing it.

The runtime guard arms each thread that runs generated code (runtime_guard.py); what such a thread
does is the code's doing, never the user's: a cell the code begins (`get_ipython().run_cell(...)`,
`%%capture`, or the shell's cell events triggered by hand) is not one of the user's own cells
(kernel/namespace/user_cells.py). Without a guard in the process no code has run under it, and
asking imports nothing.
"""

from __future__ import annotations

import sys

_PROCESS_ATTRIBUTE = "_twnb_runtime_guard"  # runtime_guard.py's


def generated_code_running() -> bool:
    """Whether the calling thread is armed: it runs generated code (or a thread that code started)."""
    guard = getattr(sys, _PROCESS_ATTRIBUTE, None)
    return guard is not None and guard.armed_run() is not None
