"""`PluginExecutor`: an Executor that runs generated code with the plugins bound, and records their
calls in the result (`ExecutionResult.plugin_calls`; the files plugins added join its artifacts)."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from twnb.kernel import ExecutionResult, Executor, new_execution_id
from twnb.plugins.catalog import PluginCatalog

__all__ = ["PluginExecutor"]


class PluginExecutor:
    """Wraps `inner` (the LiveShellExecutor); `artifacts_dir` is where plugins' files go."""

    def __init__(self, inner: Executor, catalog: PluginCatalog, artifacts_dir: Path) -> None:
        self.inner = inner
        self.catalog = catalog
        self.artifacts_dir = Path(artifacts_dir)

    @property
    def workdir(self) -> Path:
        return self.inner.workdir

    def namespace_summary(self) -> str:
        return self.inner.namespace_summary()

    def run(
        self,
        code: str,
        *,
        timeout: float | None = None,
        execution_id: str | None = None,
        artifact_name: str | None = None,
        own_artifacts: Collection[str] | None = None,
    ) -> ExecutionResult:
        execution_id = execution_id or new_execution_id()
        stem = artifact_name or execution_id
        with self.catalog.calls_recorded(self.artifacts_dir, stem, execution_id) as log:
            result = self.inner.run(
                code,
                timeout=timeout,
                execution_id=execution_id,
                artifact_name=artifact_name,
                own_artifacts=own_artifacts,
            )
        result.plugin_calls = list(log.calls)
        result.artifacts.extend(path for path in log.artifacts if path not in result.artifacts)
        return result

    def __getattr__(self, name: str) -> object:
        # What else callers use of the live executor (its shell, its artifacts folder, ...).
        return getattr(self.inner, name)
