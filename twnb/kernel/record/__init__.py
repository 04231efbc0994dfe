"""The record of one run: `ExecutionResult` and its parts, and the `Executor` protocol both executors
keep."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.kernel.record.executor import Executor as Executor
    from twnb.kernel.record.result import ExecutionError as ExecutionError
    from twnb.kernel.record.result import ExecutionResult as ExecutionResult
    from twnb.kernel.record.result import ExecutionStatus as ExecutionStatus
    from twnb.kernel.record.result import VariableChange as VariableChange
    from twnb.kernel.record.result import VariableChangeKind as VariableChangeKind
    from twnb.kernel.record.result import new_execution_id as new_execution_id
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
