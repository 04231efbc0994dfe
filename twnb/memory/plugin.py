"""A plugin entry of a conversation's `plugins:` section, kept as plain data.

TaskWeaver stores a `PluginSpec` object in `to_dict()`, which `yaml.safe_dump` cannot write; here the
entry is written back in the plugin-YAML schema it was read from (name, enabled, required,
plugin_only, description, parameters, returns, configurations), unknown keys kept after those.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from twnb.memory.reading import Location, dict_value, list_value, require_key, require_mapping, text_value

_KNOWN_KEYS = (
    "name",
    "enabled",
    "required",
    "plugin_only",
    "description",
    "parameters",
    "returns",
    "configurations",
    "code",
)


def _flag(content: Mapping[str, Any], key: str, default: bool, where: Location, what: str) -> bool:
    value = content.get(key, default)
    if not isinstance(value, bool):
        raise where.error(f"key '{key}' of {what} must be true or false, got {value!r}", key=key)
    return value


def _parameter_list(value: Any, key: str, where: Location, what: str) -> list[dict[str, Any]]:
    items = list_value(value, key, where)
    for index, item in enumerate(items):
        item = require_mapping(item, where, f"{key}[{index}] of {what}")
        require_key(item, "name", where, f"{key}[{index}] of {what}")
    return copy.deepcopy([dict(item) for item in items])


@dataclass
class PluginEntry:
    name: str
    description: str = ""
    parameters: list[dict[str, Any]] = field(default_factory=list)
    returns: list[dict[str, Any]] = field(default_factory=list)
    enabled: bool = True
    required: bool = False
    plugin_only: bool = False
    configurations: dict[str, Any] = field(default_factory=dict)
    code: str | None = None
    other: dict[str, Any] = field(default_factory=dict)

    @property
    def impl(self) -> str:
        """TaskWeaver's name for the implementation module: `code`, else the plugin's name."""
        return self.code if self.code is not None else self.name

    @property
    def config(self) -> dict[str, Any]:
        return self.configurations

    @staticmethod
    def from_yaml_content(
        content: Mapping[str, Any], where: Location | None = None, index: int = 0
    ) -> PluginEntry:
        where = where or Location()
        what = f"plugin {index}"
        content = require_mapping(content, where, what)
        name = text_value(require_key(content, "name", where, what), "name", where)
        what = f"plugin {index} ({name})"
        code = content.get("code")
        return PluginEntry(
            name=name,
            description=text_value(content.get("description"), "description", where),
            parameters=_parameter_list(content.get("parameters"), "parameters", where, what),
            returns=_parameter_list(content.get("returns"), "returns", where, what),
            enabled=_flag(content, "enabled", True, where, what),
            required=_flag(content, "required", False, where, what),
            plugin_only=_flag(content, "plugin_only", False, where, what),
            configurations=copy.deepcopy(dict_value(content.get("configurations"), "configurations", where)),
            code=None if code is None else text_value(code, "code", where),
            other=copy.deepcopy({k: v for k, v in content.items() if k not in _KNOWN_KEYS}),
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "enabled": self.enabled,
            "required": self.required,
            "plugin_only": self.plugin_only,
            "description": self.description,
            "parameters": copy.deepcopy(self.parameters),
            "returns": copy.deepcopy(self.returns),
            "configurations": copy.deepcopy(self.configurations),
        }
        if self.code is not None:
            data["code"] = self.code
        data.update(copy.deepcopy(self.other))
        return data
