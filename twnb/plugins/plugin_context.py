"""`self.ctx` of a TaskWeaver plugin loaded by twnb: its execution context, as TaskWeaver's runtime gives
it (`ExecutorPluginContext`), on the notebook's own kernel.

- `add_artifact(name, file_name, type, val, desc)` writes `val` into the artifacts folder (a DataFrame
  as CSV without its index, text or bytes as they are), named after the Round like the figures twnb
  saves (`round-2-plot-sales-anomalies.csv`; `-2`, `-3` when taken), and the file becomes one of the
  Round's artifacts. `create_artifact_path` reserves such a name for a file the plugin writes itself.
- `log(level, tag, message)` goes into the call's record.
- `get_env(plugin, variable)` reads the environment variable `PLUGIN_<plugin>_<variable>`, as
  TaskWeaver's runtime does.
- `get_session_var(name, default)`: twnb has no session variables; always `default`.
- `wrap_text_with_delimiter_temporal(text)` marks text temporal (later prompts leave it out).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from twnb.memory import PromptUtil
from twnb.plugins.calls import active_log
from twnb.plugins.taskweaver_api.plugin.context import ArtifactType, LogErrorLevel, PluginContext

__all__ = ["NotebookPluginContext"]

ENV_ID = "twnb"
TEXT_TYPES = ("chart", "file", "txt", "svg", "html", "image")


class NotebookPluginContext(PluginContext):
    """One plugin's context: `session_id` names the twnb session, `artifacts_dir` is where files go
    when no run is recorded (the user calling the plugin in a cell of their own)."""

    def __init__(self, plugin_name: str, session_id: str, artifacts_dir: Path) -> None:
        self.plugin_name = plugin_name
        self._session_id = session_id
        self.artifacts_dir = Path(artifacts_dir)
        self.log_lines: list[str] = []  # what was logged outside a recorded run

    @property
    def env_id(self) -> str:
        return ENV_ID

    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def execution_id(self) -> str:
        log = active_log()
        return log.execution_id if log is not None else ""

    def add_artifact(
        self, name: str, file_name: str, type: ArtifactType, val: Any, desc: str | None = None
    ) -> str:
        artifact_id, path = self.create_artifact_path(name, file_name, type, desc or "")
        if type == "df":
            to_csv = getattr(val, "to_csv", None)
            if to_csv is None:
                raise TypeError(f"add_artifact type 'df' needs a DataFrame, got {type_name(val)}")
            to_csv(path, index=False)
        elif type in TEXT_TYPES:
            if isinstance(val, bytes | bytearray):
                Path(path).write_bytes(bytes(val))
            else:
                Path(path).write_text(str(val), encoding="utf-8")
        else:
            raise ValueError(
                f"add_artifact: unknown artifact type {type!r} (one of df, {', '.join(TEXT_TYPES)})"
            )
        return artifact_id

    def create_artifact_path(
        self, name: str, file_name: str, type: ArtifactType, desc: str
    ) -> tuple[str, str]:
        log = active_log()
        folder = log.artifacts_dir if log is not None else self.artifacts_dir
        stem = log.artifact_stem if log is not None else f"plugin-{self.plugin_name}"
        path = _reserve(folder, stem, Path(file_name).name or "artifact")
        record = log.current() if log is not None else None
        if record is not None:
            record["artifacts"].append(str(path))
        return path.stem, str(path)

    def get_session_var(self, variable_name: str, default: str | None = None) -> str | None:
        return default

    def log(self, level: LogErrorLevel, tag: str, message: str) -> None:
        line = f"{level} {tag}: {message}"
        log = active_log()
        record = log.current() if log is not None else None
        if record is not None:
            record["log"].append(line)
        else:
            self.log_lines.append(line)

    def get_env(self, plugin_name: str, variable_name: str) -> str:
        name = f"PLUGIN_{plugin_name}_{variable_name}"
        if name not in os.environ:
            raise KeyError(f"Environment variable {name} is required to be specified in environment")
        return os.environ[name]

    def wrap_text_with_delimiter_temporal(self, text: str) -> str:
        return PromptUtil.wrap_text_with_delimiter(text, PromptUtil.DELIMITER_TEMPORAL)


def type_name(value: Any) -> str:
    return type(value).__name__


def _reserve(folder: Path, stem: str, file_name: str) -> Path:
    """A new file `folder/stem-file_name` (`-2`, `-3`, ... before the suffix when taken), created
    empty so no other writer takes the name."""
    folder.mkdir(parents=True, exist_ok=True)
    base = Path(f"{stem}-{file_name}")
    number = 1
    while True:
        name = base.name if number == 1 else f"{base.stem}-{number}{base.suffix}"
        path = folder / name
        try:
            with path.open("xb"):
                return path
        except FileExistsError:
            number += 1
