"""A dotted path judged from the module it really reaches: `pathlib.os.system` is `os.system`.

A chain of attributes through modules (`shutil.os.system`, `os.sys.modules`, `pd.io.common.os`)
reaches the module its last module attribute holds, whatever it was spelled through. The real
modules are read when they are loaded (their `__dict__`, never importing and never calling a module
`__getattr__`); a module that is not loaded is known by the names `ChainRules.module_names` gives.
A builtin found under another name (`somemodule.run` bound to `exec`) is that builtin, and an
importer re-exported under another name is that importer (`ChainRules.importers`).
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from types import BuiltinFunctionType, ModuleType


@dataclass(frozen=True)
class ChainRules:
    """Which modules a chain may re-root at: `reachable` (top-level names of modules judged from
    themselves), `module_names` (an attribute name -> the module it stands for when not loaded),
    `importers` (dotted names of functions that import by a string, found by identity)."""

    reachable: frozenset[str] = frozenset()
    module_names: Mapping[str, str] = field(default_factory=dict)
    importers: Collection[str] = ()


@dataclass(frozen=True)
class Resolved:
    """A dotted path judged from the module it really reaches: `path` as written through aliases,
    `canonical` from that module (`pathlib.os.system` -> `os.system`), `reached` the module a chain
    re-rooted at (None if it did not), `is_module` whether the whole path is a module."""

    path: str
    canonical: str
    reached: str | None
    is_module: bool


def builtin_name(obj: object) -> str | None:
    """`exec` for the builtin exec wherever it is found (`somemodule.run` bound to it)."""
    if isinstance(obj, BuiltinFunctionType):
        name = getattr(obj, "__name__", "")
        if getattr(builtins, name, None) is obj:
            return name
    return None


def importer_name(obj: object, importers: Collection[str]) -> str | None:
    """The name of the importer `obj` is (one of `importers`), found by identity: a re-export under
    another name is the same function."""
    if obj is None or not callable(obj) or isinstance(obj, type | ModuleType):
        return None
    for name in importers:
        module, _, attribute = name.rpartition(".")
        owner = sys.modules.get(module) if module else builtins
        if owner is not None and vars(owner).get(attribute) is obj:
            return name
    return None


def resolve_path(path: str, known_module: bool, rules: ChainRules) -> Resolved:
    """Judge `path` (dotted, through aliases) from the module it reaches (see the module docstring).
    `known_module`: the whole path is a module (an `import` bound it)."""
    parts = path.split(".")
    current: list[str] = [parts[0]]
    reached: str | None = None
    obj: object = sys.modules.get(parts[0])
    is_module = known_module
    for segment in parts[1:]:
        found = vars(obj).get(segment) if isinstance(obj, ModuleType) else None
        builtin = builtin_name(found)
        importer = None if builtin is not None else importer_name(found, rules.importers)
        if builtin is not None:
            current, reached = [builtin], None
        elif importer is not None:
            current, reached = importer.split("."), None
        elif isinstance(found, ModuleType) and found.__name__.split(".")[0] in rules.reachable:
            if found.__name__ != ".".join([*current, segment]):
                reached = found.__name__
                current = reached.split(".")
            else:
                current.append(segment)
        elif found is None and segment in rules.module_names:
            reached = rules.module_names[segment]
            current = [reached]
        else:
            current.append(segment)
        obj = found
        is_module = known_module or isinstance(found, ModuleType) or (found is None and reached == segment)
    return Resolved(path, ".".join(current), reached, is_module)
