"""`taskweaver.plugin.context`: what a plugin may ask of the runtime (`PluginContext`), and a context
for trying a plugin out by hand (`TestPluginContext`, `temp_context`), as TaskWeaver's plugin files
use under `if __name__ == "__main__":`."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Any, Literal

LogErrorLevel = Literal["info", "warning", "error"]
ArtifactType = Literal["chart", "image", "df", "file", "txt", "svg", "html"]


class PluginContext(ABC):
    """The runtime's side of a plugin call; twnb's implementation is
    `twnb.plugins.plugin_context.NotebookPluginContext`."""

    @property
    @abstractmethod
    def env_id(self) -> str: ...

    @property
    @abstractmethod
    def session_id(self) -> str: ...

    @property
    @abstractmethod
    def execution_id(self) -> str: ...

    @abstractmethod
    def add_artifact(
        self, name: str, file_name: str, type: ArtifactType, val: Any, desc: str | None = None
    ) -> str:
        """Save `val` as a file for the user (a DataFrame as CSV, text as it is); returns its id."""

    @abstractmethod
    def create_artifact_path(
        self, name: str, file_name: str, type: ArtifactType, desc: str
    ) -> tuple[str, str]:
        """An id and a path where the plugin writes an artifact itself."""

    @abstractmethod
    def get_session_var(self, variable_name: str, default: str | None) -> str | None: ...

    @abstractmethod
    def log(self, level: LogErrorLevel, tag: str, message: str) -> None: ...

    @abstractmethod
    def get_env(self, plugin_name: str, variable_name: str) -> str:
        """The environment variable `PLUGIN_<plugin_name>_<variable_name>`."""

    @abstractmethod
    def wrap_text_with_delimiter_temporal(self, text: str) -> str:
        """`text` marked as temporal: later prompts leave it out."""


class TestPluginContext(PluginContext):
    """A context that only records, for running a plugin by hand in a temporary folder."""

    __test__ = False  # not a pytest test class

    def __init__(self, temp_dir: str) -> None:
        self._temp_dir = temp_dir
        self._logs: list[tuple[LogErrorLevel, str, str]] = []
        self._env: dict[str, str] = {}
        self._session_var: dict[str, str] = {}
        self._artifacts: list[dict[str, str]] = []

    @property
    def env_id(self) -> str:
        return "test"

    @property
    def session_id(self) -> str:
        return "test"

    @property
    def execution_id(self) -> str:
        return "test"

    def add_artifact(
        self, name: str, file_name: str, type: ArtifactType, val: Any, desc: str | None = None
    ) -> str:
        return self.create_artifact_path(name, file_name, type, desc or "")[0]

    def create_artifact_path(
        self, name: str, file_name: str, type: ArtifactType, desc: str
    ) -> tuple[str, str]:
        artifact_id = f"test_artifact_id_{len(self._artifacts)}"
        self._artifacts.append(
            {"id": artifact_id, "name": name, "file_name": file_name, "type": type, "desc": desc}
        )
        return artifact_id, os.path.join(self._temp_dir, file_name)

    def get_session_var(self, variable_name: str, default: str | None) -> str | None:
        return self._session_var.get(variable_name, default)

    def log(self, level: LogErrorLevel, tag: str, message: str) -> None:
        self._logs.append((level, tag, message))

    def get_env(self, plugin_name: str, variable_name: str) -> str:
        return self._env[f"{plugin_name}_{variable_name}"]

    def wrap_text_with_delimiter_temporal(self, text: str) -> str:
        from twnb.memory import PromptUtil  # lazy: twnb.memory (~65 ms, 80 modules), for this call only

        return PromptUtil.wrap_text_with_delimiter(text, PromptUtil.DELIMITER_TEMPORAL)


@contextlib.contextmanager
def temp_context(workspace_dir: str | None = None) -> Iterator[TestPluginContext]:
    """A `TestPluginContext` in a fresh folder, removed afterwards."""
    if workspace_dir is None:
        folder = tempfile.mkdtemp()
    else:
        folder = os.path.join(workspace_dir, str(uuid.uuid4()))
        os.makedirs(folder)
    try:
        yield TestPluginContext(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
