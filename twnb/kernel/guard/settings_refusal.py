"""Refusing, while generated code runs, what only the user may do: change a twnb setting, and load a
file generated code wrote as settings, a plugin or an MCP server.

The runtime guard knows which threads run generated code (armed: runtime_guard.py) and which files it
wrote in this process; the notebook's traitlets and twnb's loaders ask here. Nothing is installed by
asking: without a guard in the process, no code has run under it.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from twnb.kernel.guard.guard_refusal import SETTINGS
from twnb.kernel.guard.trust_base import SETTINGS_HINT

if TYPE_CHECKING:
    from twnb.kernel.guard.runtime_guard import RuntimeGuard

_PROCESS_ATTRIBUTE = "_twnb_runtime_guard"  # runtime_guard.py's


def refuse_setting_change(setting: str) -> None:
    """Refuse (record in the run and raise `RuntimeGuardRefused`) when the calling thread runs
    generated code, outside a plugin; the user's own cells pass."""
    guard: RuntimeGuard | None = getattr(sys, _PROCESS_ATTRIBUTE, None)
    if guard is None:
        return
    run = guard.armed_run()
    if run is None or guard.trusted_here(sys._getframe(1)):
        return
    message = (
        f"changing the twnb setting {setting} is not allowed for generated code: settings change by the "
        "user's hand only."
    )
    guard.refuse(run, guard.refusal_here(run, SETTINGS, setting, message, SETTINGS_HINT, setting))


def written_by_generated_code(path: str) -> bool:
    """Whether generated code wrote (or moved a file to) `path` in this process."""
    guard: RuntimeGuard | None = getattr(sys, _PROCESS_ATTRIBUTE, None)
    return guard is not None and guard.wrote(path)
