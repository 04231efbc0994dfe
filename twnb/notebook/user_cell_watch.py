"""Watching the user's own cells from `%load_ext twnb` on, so each Round records what it built on.

The cells that matter most (loading the data) usually run before the first Round, when no session
exists yet: the watch starts with the extension and lives with the notebook's session across
`%reload_ext`. `%load_ext` only registers two listeners on the shell's cell events; the recorder (the
session layer's `UserCellLog`) is imported at the first cell, so loading the extension stays cheap.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from IPython.core.interactiveshell import ExecutionInfo, InteractiveShell
    from IPython.core.interactiveshell import ExecutionResult as CellResult

    from twnb.session import UserCellLog, UserCells

# lazy: %load_ext twnb imports this module; twnb.session (76 modules, ~100 ms) loads with the first
# cell recorded


class UserCellWatch:
    """The user's cells since the previous `take()` (the session takes them when a Round starts)."""

    def __init__(self, shell: InteractiveShell) -> None:
        self.shell = shell
        self.log: UserCellLog | None = None
        self._listening = False

    def start(self) -> None:
        events = getattr(self.shell, "events", None)
        if self._listening or events is None:
            return
        for event, listener in self._listeners():
            events.register(event, listener)
        self._listening = True
        if self.log is not None:
            self.log.start_afresh()  # the cell running now (the load) is not recorded

    def stop(self) -> None:
        if not self._listening:
            return
        for event, listener in self._listeners():
            with contextlib.suppress(ValueError):
                self.shell.events.unregister(event, listener)
        self._listening = False

    def take(self) -> UserCells:
        from twnb.session import UserCells

        return self.log.take() if self.log is not None else UserCells()

    def _listeners(self) -> tuple[tuple[str, Callable[..., None]], ...]:
        return (
            ("pre_execute", self._execution),
            ("pre_run_cell", self._before),
            ("post_run_cell", self._after),
        )

    def _execution(self) -> None:
        if self.log is not None:
            self.log.before_execution()

    def _before(self, info: ExecutionInfo) -> None:
        if self.log is None:
            try:
                from twnb.session import UserCellLog

                self.log = UserCellLog(self.shell)
            except Exception:  # twnb half-installed must not break the user's cells
                return
        self.log.before_cell(info)

    def _after(self, result: CellResult) -> None:
        if self.log is not None:
            self.log.after_cell(result)
