"""`taskweaver.plugin.base`: `Plugin`, the class a TaskWeaver plugin derives from.

The runtime makes one instance per plugin, `cls(name, ctx, config)`: `ctx` is the execution context
(artifacts, logs, environment) and `config` the spec's `configurations`. Calling the instance runs
the plugin.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from twnb.plugins.taskweaver_api.plugin.context import LogErrorLevel, PluginContext


class Plugin(ABC):
    def __init__(self, name: str, ctx: PluginContext, config: dict[str, Any]) -> None:
        super().__init__()
        self.name: str = name
        self.ctx: PluginContext = ctx
        self.config: dict[str, Any] = config

    @abstractmethod
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run the plugin."""

    def log(self, level: LogErrorLevel, message: str) -> None:
        self.ctx.log(level, f"Plugin-{self.name}", message)

    def get_env(self, variable_name: str) -> str:
        return self.ctx.get_env(self.name, variable_name)
