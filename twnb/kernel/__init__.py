"""The kernel layer: run code on the live notebook shell or a separate kernel and record everything.

Public API:
- `ExecutionResult` (with `ExecutionError`, `VariableChange`) and the `Executor` protocol
- `LiveShellExecutor(shell, workdir, artifacts_dir, session_dir=None, output=NotebookOutput(...), ...)`:
  the notebook's own kernel; `bookkeeping=LiveBookkeeping(undo_log=..., refused_starts=...)`
- `KernelExecutor(workdir, kernel_name=None, kernel=KernelSetup(...), ...)`: a separate kernel over
  jupyter_client
- both take `rules=RunRules(...)` (time limit, guard, protected places) and `limits=RecordLimits(...)`;
  `AWAIT_ON_A_THREAD`: the code the live shell's advice for top-level `await` may give, when verified
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

The code lives in rooms, each a package with its own front door, each importing only the rooms below
it (docs/architecture.md's layer table): `guard` (the runtime guard, the time limit), `record` (the
result), `capture` (outputs, files, the result built from them), `namespace` (variables, the summary,
the user's cells), `undo`, `separate` (a kernel over jupyter_client) and `live` (the notebook's shell).

Importing this package is cheap: it imports no room; a name loads its room's module when first used
(tests/kernel/test_kernel_import_cost.py), and jupyter_client, IPython, pandas load where used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.kernel.capture import RecordLimits as RecordLimits
    from twnb.kernel.capture import RunRules as RunRules
    from twnb.kernel.capture import ScanLimits as ScanLimits
    from twnb.kernel.capture import execution_text_for_llm as execution_text_for_llm
    from twnb.kernel.capture import strip_ansi as strip_ansi
    from twnb.kernel.guard import ExitRefused as ExitRefused
    from twnb.kernel.guard import GuardRefusal as GuardRefusal
    from twnb.kernel.guard import RuntimeGuard as RuntimeGuard
    from twnb.kernel.guard import refuse_setting_change as refuse_setting_change
    from twnb.kernel.guard import run_cell_guarded as run_cell_guarded
    from twnb.kernel.guard import written_by_generated_code as written_by_generated_code
    from twnb.kernel.live import AWAIT_ON_A_THREAD as AWAIT_ON_A_THREAD
    from twnb.kernel.live import LiveBookkeeping as LiveBookkeeping
    from twnb.kernel.live import LiveShellExecutor as LiveShellExecutor
    from twnb.kernel.live import NotebookOutput as NotebookOutput
    from twnb.kernel.namespace import BIG_DATA_LIBRARIES as BIG_DATA_LIBRARIES
    from twnb.kernel.namespace import UserCell as UserCell
    from twnb.kernel.namespace import UserCellLog as UserCellLog
    from twnb.kernel.namespace import UserCells as UserCells
    from twnb.kernel.namespace import UserCellSource as UserCellSource
    from twnb.kernel.namespace import is_twnb_command as is_twnb_command
    from twnb.kernel.namespace import summarize_namespace as summarize_namespace
    from twnb.kernel.record import ExecutionError as ExecutionError
    from twnb.kernel.record import ExecutionResult as ExecutionResult
    from twnb.kernel.record import ExecutionStatus as ExecutionStatus
    from twnb.kernel.record import Executor as Executor
    from twnb.kernel.record import VariableChange as VariableChange
    from twnb.kernel.record import new_execution_id as new_execution_id
    from twnb.kernel.separate import AsyncUnixSocketKernelManager as AsyncUnixSocketKernelManager
    from twnb.kernel.separate import AttachedKernelManager as AttachedKernelManager
    from twnb.kernel.separate import KernelExecutor as KernelExecutor
    from twnb.kernel.separate import KernelGuardChannel as KernelGuardChannel
    from twnb.kernel.separate import KernelPlace as KernelPlace
    from twnb.kernel.separate import KernelSetup as KernelSetup
    from twnb.kernel.separate import KernelStartError as KernelStartError
    from twnb.kernel.separate import UnixSocketKernelManager as UnixSocketKernelManager
    from twnb.kernel.separate import bring_back as bring_back
    from twnb.kernel.separate import evaluate as evaluate
    from twnb.kernel.separate import execute_quietly as execute_quietly
    from twnb.kernel.separate import probe_place as probe_place
    from twnb.kernel.separate import read_file as read_file
    from twnb.kernel.separate import start_notebook_kernel as start_notebook_kernel
    from twnb.kernel.separate import this_python_kernel_manager as this_python_kernel_manager
    from twnb.kernel.undo import DATABASE_MODULES as DATABASE_MODULES
    from twnb.kernel.undo import MB as MB
    from twnb.kernel.undo import QUERY_METHODS as QUERY_METHODS
    from twnb.kernel.undo import UNDONE_FOLDER as UNDONE_FOLDER
    from twnb.kernel.undo import InPlaceEstimate as InPlaceEstimate
    from twnb.kernel.undo import InPlaceTarget as InPlaceTarget
    from twnb.kernel.undo import RunSnapshot as RunSnapshot
    from twnb.kernel.undo import UndoLog as UndoLog
    from twnb.kernel.undo import UndoReport as UndoReport
    from twnb.kernel.undo import call_reads_database as call_reads_database
    from twnb.kernel.undo import estimate_in_place as estimate_in_place
    from twnb.kernel.undo import sql_only_reads as sql_only_reads
    from twnb.kernel.undo import statement_of as statement_of
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
