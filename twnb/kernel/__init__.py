"""The kernel layer: run code on the live notebook shell or a separate kernel and record everything.

Public API:
- `ExecutionResult` (with `ExecutionError`, `VariableChange`) and the `Executor` protocol
- `LiveShellExecutor(shell, workdir, artifacts_dir, session_dir=None, ...)`: the notebook's own kernel
- `KernelExecutor(workdir, kernel_name="python3", ...)`: a separate kernel over jupyter_client
- `summarize_namespace(namespace, ...)`: the variables, described for a prompt, secrets left out
- `execution_text_for_llm(result, ...)`: one result, bounded, for a prompt
- `KernelGuardChannel(kc, alive)`: the runtime guard in another kernel, for whatever runs cells there
- `run_cell_guarded(shell, code)`: a cell of code read from elsewhere, run as generated code is
- `RuntimeGuard`: the process's runtime guard (`RuntimeGuard.installed()`); `trusted(code)` in a
  registered entry point (`trust_entry`) lets a plugin generated code calls act as trusted code
- `estimate_in_place(code, namespace, budget_mb)`: before code runs, the objects it may change in
  place, their sizes, and which fit the undo budget (`InPlaceEstimate`, `InPlaceTarget`)
- `UndoLog(budget_mb, folder, namespace)`: each run's undo snapshot (what it replaced, copies of what
  it may change in place and of the files it overwrote) and `undo(...)`, for `%taskweaver undo`
- `call_reads_database(method, statement)`, `sql_only_reads(statement)`, `statement_of(call)`: which
  calls on a database connection only read (`DATABASE_MODULES`, `QUERY_METHODS`), one rule for undo's
  estimate and risky step mode
- `UserCellLog(shell)`: the user's own cells (source, count, error, variables) between two takes

Importing this package is cheap: jupyter_client, IPython, pandas are imported where used.
"""

from twnb.kernel.capture.ansi import strip_ansi
from twnb.kernel.capture.execution_text import execution_text_for_llm
from twnb.kernel.capture.file_scan import ScanLimits
from twnb.kernel.guard.exit_guard import ExitRefused
from twnb.kernel.guard.guard_refusal import GuardRefusal
from twnb.kernel.guard.runtime_guard import RuntimeGuard
from twnb.kernel.guard.settings_refusal import refuse_setting_change, written_by_generated_code
from twnb.kernel.guard.shell_guard import run_cell_guarded
from twnb.kernel.live.live_shell import LiveShellExecutor
from twnb.kernel.namespace.data_libraries import BIG_DATA_LIBRARIES
from twnb.kernel.namespace.namespace_summary import summarize_namespace
from twnb.kernel.namespace.user_cells import UserCell, UserCellLog, UserCells, UserCellSource, is_twnb_command
from twnb.kernel.record.executor import Executor
from twnb.kernel.record.result import (
    ExecutionError,
    ExecutionResult,
    ExecutionStatus,
    VariableChange,
    new_execution_id,
)
from twnb.kernel.separate.attached_kernel import AttachedKernelManager
from twnb.kernel.separate.guard_channel import KernelGuardChannel
from twnb.kernel.separate.kernel_client import KernelExecutor, KernelStartError
from twnb.kernel.separate.kernel_files import KernelPlace, bring_back, probe_place, read_file
from twnb.kernel.separate.quiet_requests import evaluate, execute_quietly
from twnb.kernel.separate.this_python import this_python_kernel_manager
from twnb.kernel.undo.database_reads import (
    DATABASE_MODULES,
    QUERY_METHODS,
    call_reads_database,
    sql_only_reads,
    statement_of,
)
from twnb.kernel.undo.in_place_estimate import MB, InPlaceEstimate, InPlaceTarget, estimate_in_place
from twnb.kernel.undo.undo_log import UNDONE_FOLDER, RunSnapshot, UndoLog, UndoReport

__all__ = [
    "BIG_DATA_LIBRARIES",
    "DATABASE_MODULES",
    "MB",
    "QUERY_METHODS",
    "UNDONE_FOLDER",
    "AttachedKernelManager",
    "ExecutionError",
    "ExecutionResult",
    "ExecutionStatus",
    "Executor",
    "ExitRefused",
    "GuardRefusal",
    "InPlaceEstimate",
    "InPlaceTarget",
    "KernelExecutor",
    "KernelGuardChannel",
    "KernelPlace",
    "KernelStartError",
    "LiveShellExecutor",
    "RunSnapshot",
    "RuntimeGuard",
    "ScanLimits",
    "UndoLog",
    "UndoReport",
    "UserCell",
    "UserCellLog",
    "UserCellSource",
    "UserCells",
    "VariableChange",
    "bring_back",
    "call_reads_database",
    "estimate_in_place",
    "evaluate",
    "execute_quietly",
    "execution_text_for_llm",
    "is_twnb_command",
    "new_execution_id",
    "probe_place",
    "read_file",
    "refuse_setting_change",
    "run_cell_guarded",
    "sql_only_reads",
    "statement_of",
    "strip_ansi",
    "summarize_namespace",
    "this_python_kernel_manager",
    "written_by_generated_code",
]
