"""The `Executor` protocol: what the session and the roles rely on from whatever runs generated code.

Two executors exist: `LiveShellExecutor` (the notebook's own kernel) and `KernelExecutor` (a separate
kernel over jupyter_client). Anything else that runs Python and reports an `ExecutionResult` can stand
in for them; mypy checks that it says all of this.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Protocol, runtime_checkable

from twnb.kernel.record.result import ExecutionResult


@runtime_checkable
class Executor(Protocol):
    """Runs Python code and reports what happened."""

    @property
    def workdir(self) -> Path:
        """The code's working directory: artifact paths shown to the LLM are relative to it."""
        ...

    def run(
        self,
        code: str,
        *,
        timeout: float | None = None,
        execution_id: str | None = None,
        artifact_name: str | None = None,
        own_artifacts: Collection[str] | None = None,
    ) -> ExecutionResult:
        """Run `code` within `timeout` seconds (None: the executor's default). `execution_id` names
        the run (the session passes the id of the Post whose code it is); None makes a fresh one.
        Files saved for the user (the figures the code displays) are named after `artifact_name`;
        with `own_artifacts` (a replay: the files its conversation made so far) a file of that name
        that anything else left is replaced instead of avoided."""
        ...

    def namespace_summary(self) -> str:
        """The variables the code can see, described for a prompt, secrets left out ("" if unknown)."""
        ...
