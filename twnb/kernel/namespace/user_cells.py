"""The user's own cells as this kernel ran them: what the next Round builds on.

People run their own cells between Rounds (load a file, fix a column), and a Round's code then reads
what those cells made; a replay without them reproduces nothing. IPython's `pre_run_cell` and
`post_run_cell` events give each cell's source, its execution count and whether it raised; the same
cheap variable signatures generated code gets (variables.py), without reading shapes and dtypes, give
the names it created, rebound or deleted (a change in place is not told). One scan serves each cell:
the namespace the last recorded cell left is the next one's start, unless anything else ran at the top
level in between (a Round, a silent request: IPython's `pre_execute` counts every execution); what
changes without running code (a widget callback, a thread) counts as the next cell's.

Recorded: cells run with `store_history` (what a frontend, nbclient or papermill sends). Not recorded:
silent executions, nested `run_cell` calls (generated code and twnb's own re-runs use
`store_history=False`), what `is_command` says is not analysis (twnb's own magics), and any cell begun
while generated code runs (a thread the runtime guard has armed: `get_ipython().run_cell(...,
store_history=True)` or the cell events triggered by the code are the code's, never the user's). A
cell's end is paired with its start by IPython's `ExecutionInfo` (the result carries it), so an end
the code makes up ends no cell of the user's. Bounded: a
source longer than `max_source_chars` is clipped and marked (it can no longer run); at most
`max_variables` changes per cell; at most `max_cells` cells and `max_chars` of source wait for the next
Round, the oldest dropped first and counted. Recording never disturbs the cell: any failure in it is
swallowed (a cell it could not sign is recorded without variables).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from twnb.kernel.guard import generated_code_running
from twnb.kernel.namespace.variables import IPYTHON_NAMES, namespace_signatures, variable_delta
from twnb.kernel.record import VariableChange

if TYPE_CHECKING:
    from IPython.core.interactiveshell import ExecutionInfo, InteractiveShell
    from IPython.core.interactiveshell import ExecutionResult as CellResult

MAX_CELLS = 100
MAX_SOURCE_CHARS = 20_000
MAX_CHARS = 200_000
MAX_VARIABLES = 50
MAX_ERROR_CHARS = 500


@dataclass
class UserCell:
    """One cell the user ran: `error` is "NameError: name 'x' is not defined" when it raised."""

    source: str
    execution_count: int | None
    error: str | None = None
    variables: list[VariableChange] = field(default_factory=list)
    clipped: bool = False  # the source was longer than the bound: kept for reading, not for running

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "source": self.source,
            "execution_count": self.execution_count,
            "error": self.error,
            "variables": [change.to_dict() for change in self.variables],  # only the facts it has
        }
        if self.clipped:
            data["clipped"] = True
        return data


@dataclass
class UserCells:
    """What `UserCellLog.take` hands over: the cells in order, and how many older ones were dropped."""

    cells: list[UserCell] = field(default_factory=list)
    omitted: int = 0


class UserCellSource(Protocol):
    """What a session takes the user's cells from, at the start of each Round."""

    def take(self) -> UserCells:
        """The cells run since the previous take (then forgotten here)."""
        ...


# twnb's own commands configure or inspect twnb; they are not part of the analysis a replay repeats.
_TWNB_LINE = re.compile(
    r"%(taskweaver\b|(load_ext|reload_ext|unload_ext)\s+twnb\s*$|config\s+TaskWeaverMagics\b)"
)


def is_twnb_command(source: str) -> bool:
    """A `%%taskweaver` cell, or a cell of nothing but twnb's line magics (`%taskweaver ...`, `%load_ext
    twnb`, `%config TaskWeaverMagics...`) and comments."""
    lines = [line.strip() for line in source.splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    if not lines:
        return False
    if lines[0].startswith("%%taskweaver"):
        return True
    return all(_TWNB_LINE.match(line) for line in lines)


@dataclass
class _Running:
    source: str
    before: dict[str, Any] | None


class UserCellLog:
    """Records the user's cells from `shell`'s events until `close()`; `take()` hands them over."""

    def __init__(
        self,
        shell: InteractiveShell,
        *,
        is_command: Callable[[str], bool] = is_twnb_command,
        max_cells: int = MAX_CELLS,
        max_source_chars: int = MAX_SOURCE_CHARS,
        max_chars: int = MAX_CHARS,
        max_variables: int = MAX_VARIABLES,
    ) -> None:
        self.shell = shell
        self.is_command = is_command
        self.max_cells = max_cells
        self.max_source_chars = max_source_chars
        self.max_chars = max_chars
        self.max_variables = max_variables
        self._cells: list[UserCell] = []
        self._chars = 0
        self._omitted = 0
        # One entry per cell being run (its ExecutionInfo, and its record or None for one not recorded):
        # nested run_cell calls pair up.
        self._running: list[tuple[object, _Running | None]] = []
        self._memo: dict[str, Any] = {}
        # The namespace as the last recorded cell left it, and how many executions had begun then: the
        # next cell's "before" when nothing else ran since (a Round, a silent request), so one scan
        # serves each cell.
        self._left: dict[str, Any] | None = None
        self._left_at = -1
        self._executions = 0

    def start(self) -> UserCellLog:
        """Listen to the shell's cell events (a frontend may instead call `before_cell` and
        `after_cell` from its own listeners). The cell running now, if any, is not recorded."""
        self.start_afresh()
        for event, callback in self._listeners():
            self.shell.events.register(event, callback)
        return self

    def _listeners(self) -> tuple[tuple[str, Callable[..., None]], ...]:
        return (
            ("pre_execute", self.before_execution),
            ("pre_run_cell", self.before_cell),
            ("post_run_cell", self.after_cell),
        )

    def start_afresh(self) -> None:
        """Forget the cells in flight: listening (again) starts inside a cell whose start was not seen."""
        self._running.clear()
        self._left = None

    def close(self) -> None:
        for event, callback in self._listeners():
            with contextlib.suppress(ValueError):  # not registered (closed twice)
                self.shell.events.unregister(event, callback)

    def take(self) -> UserCells:
        """The cells recorded since the last take, and how many were dropped to keep the bounds."""
        taken = UserCells(self._cells, self._omitted)
        self._cells, self._chars, self._omitted = [], 0, 0
        return taken

    # -- IPython's events ---------------------------------------------------------------------------

    def before_execution(self) -> None:
        """Every execution, silent ones too (which run no cell events): counted, so a cell knows whether
        anything ran since the last recorded one."""
        self._executions += 1

    def before_cell(self, info: ExecutionInfo) -> None:
        try:
            source = getattr(info, "raw_cell", "") or ""
            recorded = (
                getattr(info, "store_history", False)
                and not getattr(info, "silent", False)
                and bool(source.strip())
                and not self.is_command(source)
                and not generated_code_running()
            )
            # This cell's own execution was counted just before: any other since the last recorded cell
            # (a Round, a silent request) may have changed names, so the namespace is scanned afresh.
            untouched = self._left is not None and self._executions == self._left_at + 1
            before = (self._left if untouched else self._signatures()) if recorded else None
            self._running.append((info, _Running(source, before) if recorded else None))
        except Exception:
            self._running.append((info, None))

    def after_cell(self, result: CellResult) -> None:
        running = self._ended(result)
        if running is None:
            return
        with contextlib.suppress(Exception):  # a record lost is better than a user's cell disturbed
            self._add(self._cell(running, result))

    def _ended(self, result: CellResult) -> _Running | None:
        """The record of the cell `result` ends: the one begun with the ExecutionInfo it carries (cells
        begun after it that never ended are dropped); nothing for a result no cell began here (one
        made up by code, or the cell that started this log, `%load_ext twnb`). A result without an info
        (None, when IPython had none to give) ends the last cell begun, unless generated code runs (the
        code made it up: the cells it began are dropped when the cell around them ends)."""
        info = getattr(result, "info", None)
        if info is None:
            return self._running.pop()[1] if self._running and not generated_code_running() else None
        for index in range(len(self._running) - 1, -1, -1):
            if self._running[index][0] is info:
                running = self._running[index][1]
                del self._running[index:]
                return running
        return None

    # -- recording ----------------------------------------------------------------------------------

    def _signatures(self) -> dict[str, Any] | None:
        try:
            hidden = set(IPYTHON_NAMES) | set(getattr(self.shell, "user_ns_hidden", {}) or {})
            # What a cell made is its names created, rebound or deleted: shapes and dtypes, which cost
            # the most to read, are left to generated code's own delta.
            return namespace_signatures(self.shell.user_ns, hidden, self._memo, shapes=False)
        except Exception:
            return None

    def _cell(self, running: _Running, result: CellResult) -> UserCell:
        error = None
        if result is not None:
            raised = result.error_before_exec or result.error_in_exec
            if raised is not None:
                error = f"{type(raised).__name__}: {raised}"[:MAX_ERROR_CHARS]
        after = self._signatures() if running.before is not None else None
        self._left, self._left_at = after, self._executions
        changes = variable_delta(running.before, after) if running.before is not None and after else []
        source, clipped = running.source, len(running.source) > self.max_source_chars
        if clipped:
            source = source[: self.max_source_chars]
        count = getattr(result, "execution_count", None)
        return UserCell(
            source=source,
            execution_count=count if isinstance(count, int) else None,
            error=error,
            variables=changes[: self.max_variables],
            clipped=clipped,
        )

    def _add(self, cell: UserCell) -> None:
        self._cells.append(cell)
        self._chars += len(cell.source)
        while len(self._cells) > self.max_cells or (self._chars > self.max_chars and len(self._cells) > 1):
            dropped = self._cells.pop(0)
            self._chars -= len(dropped.source)
            self._omitted += 1
