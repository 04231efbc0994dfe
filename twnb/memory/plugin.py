"""A plugin entry: a plugin's YAML spec (TaskWeaver's plugin-YAML schema), kept as plain data.

The same schema serves a plugin folder's `NAME.yaml` and a conversation's `plugins:` section.
TaskWeaver stores a `PluginSpec` object in `to_dict()`, which `yaml.safe_dump` cannot write; here the
entry is written back in the plugin-YAML schema it was read from (name, enabled, required,
plugin_only, description, parameters, returns, configurations), unknown keys (`examples`, say) kept
after those. `spec` gives TaskWeaver's view of it (`PluginSpec`, `PluginParameter`) and
`format_prompt()` the Python stub TaskWeaver's CodeInterpreter is shown.

One difference from TaskWeaver's stub, on purpose: TaskWeaver writes `Any` for every *required*
argument (its condition is inverted, so the types it was given are lost exactly where they matter);
here a required argument shows its type and an optional one `Optional[type]`.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from twnb.memory.reading import Location, dict_value, list_value, require_key, require_mapping, text_value
from twnb.memory.yaml_io import load_yaml_file

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


def _normalize_type(name: str) -> str:
    """TaskWeaver's spelling of a spec type in a Python stub: string -> str, integer -> int."""
    return {"string": "str", "integer": "int"}.get(name.strip().lower(), name.strip())


def _comment(text: str) -> str:
    """Text as the body of `#` comment lines (each line of it gets its own `# `)."""
    return text.strip().replace("\n", "\n# ")


@dataclass
class PluginParameter:
    """One argument or return value of a plugin, as TaskWeaver's `PluginParameter`."""

    name: str = ""
    type: str = "Any"
    required: bool = False
    description: str | None = None

    @staticmethod
    def from_dict(content: Mapping[str, Any]) -> PluginParameter:
        description = content.get("description")
        return PluginParameter(
            name=str(content["name"]),
            type=str(content.get("type", "Any")),
            required=bool(content.get("required", False)),
            description=None if description is None else str(description),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "required": self.required,
            "description": self.description,
        }

    def format_prompt(self, indent: int = 0) -> str:
        pad = " " * indent
        return "\n".join(
            f"{pad}{line}"
            for line in (
                f"- name: {self.name}",
                f"  type: {self.type}",
                f"  required: {self.required}",
                f"  description: {self.description}",
            )
        )


# JSON schema types of the spec types a plugin-only function call may take (TaskWeaver's mapping).
_FUNCTION_CALLING_TYPES = {
    "string": "string",
    "str": "string",
    "text": "string",
    "integer": "integer",
    "int": "integer",
    "float": "number",
    "double": "number",
    "number": "number",
    "boolean": "boolean",
    "bool": "boolean",
    "null": "null",
    "none": "null",
}


@dataclass
class PluginSpec:
    """TaskWeaver's view of a plugin's spec: what its prompt stub is made of."""

    name: str = ""
    description: str = ""
    examples: str = ""
    args: list[PluginParameter] = field(default_factory=list)
    returns: list[PluginParameter] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "parameters": [p.to_dict() for p in self.args],
            "returns": [p.to_dict() for p in self.returns],
        }

    def plugin_description(self) -> str:
        """One line for the Planner: `- name: description Arguments required: a: T, b: T`."""
        line = f"- {self.name}: {self.description.strip()}"
        required = [f"{arg.name}: {arg.type}" for arg in self.args if arg.required]
        if required:
            line += f" Arguments required: {', '.join(required)}\n"
        return line

    def format_prompt(self) -> str:
        """The Python stub TaskWeaver's CodeInterpreter is shown: the description and examples as
        comments, each argument with its description, the returns (see the module docstring for the
        one difference)."""

        def argument(arg: PluginParameter) -> str:
            kind = _normalize_type(arg.type)
            shown = kind if arg.required or kind == "Any" else f"Optional[{kind}]"
            if arg.description is None or not arg.description.strip():
                return f"\n{arg.name}: {shown}"
            return f"\n# {_comment(arg.description)}\n{arg.name}: {shown}"

        head = f"# {_comment(self.description)}\n"
        if self.examples.strip():
            head += f"# Examples:\n# {_comment(self.examples)}\n"
        if len(self.returns) > 1:
            parts = []
            for value in self.returns:
                about = f"\n# {value.name}: {_comment(value.description)}" if value.description else ""
                parts.append(f"{about}\n{_normalize_type(value.type)}")
            returns = f"Tuple[{','.join(parts)}]"
        elif len(self.returns) == 1:
            value = self.returns[0]
            returns = _normalize_type(value.type)
            if value.description:
                head += f"# Returns {value.name}: {_comment(value.description)}\n"
        else:
            returns = "None"
        params = ",".join(argument(arg) for arg in self.args)
        return f"{head}def {self.name}({params}) -> {returns}:...\n"


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

    @property
    def spec(self) -> PluginSpec:
        """TaskWeaver's `PluginSpec` view (made afresh: change the entry, not this)."""
        examples = self.other.get("examples")
        return PluginSpec(
            name=self.name,
            description=self.description,
            examples=examples if isinstance(examples, str) else "",
            args=[PluginParameter.from_dict(p) for p in self.parameters],
            returns=[PluginParameter.from_dict(p) for p in self.returns],
        )

    def format_prompt(self) -> str:
        return self.spec.format_prompt()

    def format_function_calling(self) -> dict[str, Any]:
        """The OpenAI tool definition of a plugin-only plugin (TaskWeaver's; its argument types
        must be text, numbers, booleans or null). Raises ValueError for another type."""
        properties: dict[str, Any] = {}
        for arg in self.spec.args:
            kind = _FUNCTION_CALLING_TYPES.get(arg.type.strip().lower())
            if kind is None:
                raise ValueError(
                    f"plugin {self.name}: argument {arg.name} has type {arg.type!r}; a function call takes "
                    "str, int, float, bool or null"
                )
            properties[arg.name] = {"type": kind, "description": arg.description}
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {
                    "type": "object",
                    "properties": properties,
                    "required": [arg.name for arg in self.spec.args if arg.required],
                },
            },
        }

    @staticmethod
    def from_yaml_file(path: str | os.PathLike[str]) -> PluginEntry:
        """A plugin's YAML spec file (ValueError naming the file and what is wrong)."""
        return PluginEntry.from_yaml_content(load_yaml_file(path), Location(str(path)))

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
