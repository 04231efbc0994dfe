"""Loading a folder of TaskWeaver plugins, unchanged: `NAME.yaml` (the spec) beside the Python file it
names (`code:`, else `NAME.py`), which registers a `Plugin` subclass with `@register_plugin`.

As TaskWeaver's runtime does: the file is imported as a module of its own while the registry hook
(`register_plugin_inner` of `taskweaver.plugin.register`: twnb's implementation, or TaskWeaver's
when it is installed) collects what it registers, and the plugin is instantiated once,
`cls(name, ctx, config)`, `config` being the spec's `configurations` with the values the
`plugin_config` setting gives for it on top. What fails (a spec that does not parse, a missing file,
a missing dependency, an error in the file or in `__init__`, nothing registered) is kept as the
plugin's problem, in one line with what to do; the other plugins load.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twnb.base import clip
from twnb.memory import PluginEntry
from twnb.plugins.calls import PluginFunction
from twnb.plugins.plugin_context import NotebookPluginContext
from twnb.plugins.taskweaver_finder import IMPLEMENTATION, install_taskweaver_finder

__all__ = ["LoadedSpec", "load_plugin", "read_folder", "spec_signature"]

MODULE_PREFIX = "twnb_plugin_"


@dataclass
class LoadedSpec:
    """A spec file read: its entry, or why it could not be read (`name` is then the file's stem)."""

    name: str
    path: Path
    entry: PluginEntry | None = None
    problem: str | None = None


def read_folder(folder: Path) -> list[LoadedSpec]:
    """Every `*.yaml` spec in `folder` (not below it; hidden files skipped), sorted by file name."""
    specs = []
    for path in sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml")):
        if path.name.startswith("."):
            continue
        try:
            entry = PluginEntry.from_yaml_file(path)
        except (OSError, ValueError) as error:
            specs.append(
                LoadedSpec(path.stem, path, problem=f"its spec {path.name} is not valid: {_line(error)}")
            )
            continue
        specs.append(LoadedSpec(entry.name, path, entry=entry))
    return specs


def load_plugin(
    spec: LoadedSpec,
    *,
    session_id: str,
    artifacts_dir: Path,
    configuration: Mapping[str, Any] | None = None,
) -> PluginFunction:
    """The callable for the spec's plugin: its file imported, its class instantiated. Raises
    `PluginLoadError` saying why not."""
    entry = spec.entry
    if entry is None:
        raise PluginLoadError(spec.problem or "its spec could not be read")
    if not entry.impl.isidentifier():  # a name read from the spec file: never a path to elsewhere
        raise PluginLoadError(
            f"its code name {entry.impl!r:.60} in {spec.path.name} is not a module name (a file "
            "NAME.py beside the spec): give the name without a folder or suffix"
        )
    code = spec.path.parent / f"{entry.impl}.py"
    if not code.is_file():
        raise PluginLoadError(f"its code {code.name} is not beside {spec.path.name}")
    install_taskweaver_finder()
    classes = _import_registering(entry.name, code)
    if not classes:
        raise PluginLoadError(
            f"{code.name} registers no plugin: decorate its Plugin class with @register_plugin"
        )
    config = {**entry.configurations, **dict(configuration or {})}
    context = NotebookPluginContext(entry.name, session_id, artifacts_dir)
    _accept_context(context)
    try:
        instance = classes[-1](entry.name, context, config)
    except Exception as error:
        raise PluginLoadError(f"creating it failed: {_line(error)}") from None
    return PluginFunction(
        entry.name,
        "taskweaver",
        instance,
        description=entry.description,
        parameters=[str(p["name"]) for p in entry.parameters],
        signature=spec_signature(entry),
    )


class PluginLoadError(Exception):
    """Why a plugin could not be loaded (one line, with what to do when there is something to do)."""


def _import_registering(name: str, code: Path) -> list[type]:
    """Import `code` as a module of its own, collecting the classes it registers."""
    register = importlib.import_module("taskweaver.plugin.register")
    registered: list[type] = []
    module_name = MODULE_PREFIX + name
    spec = importlib.util.spec_from_file_location(module_name, code)
    if spec is None or spec.loader is None:
        raise PluginLoadError(f"{code.name} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    previous = getattr(register, "register_plugin_inner", None)
    previous_test = getattr(register, "register_plugin_test_inner", None)
    register.register_plugin_inner = registered.append  # type: ignore[attr-defined]
    # a plugin file's self-tests (@test_plugin) are TaskWeaver's plugin tool's business: accepted, not run
    register.register_plugin_test_inner = _ignore_test  # type: ignore[attr-defined]
    sys.modules[module_name] = module  # dataclasses and pickling look the module up by name
    try:
        spec.loader.exec_module(module)
    except ModuleNotFoundError as error:
        sys.modules.pop(module_name, None)
        missing = error.name or str(error)
        hint = (
            "" if missing.startswith("taskweaver") else f" (install it: pip install {missing.split('.')[0]})"
        )
        raise PluginLoadError(
            f"{code.name} needs the module {missing}, which is not installed{hint}"
        ) from None
    except BaseException as error:  # a plugin file may raise anything, SystemExit included
        sys.modules.pop(module_name, None)
        if isinstance(error, KeyboardInterrupt):
            raise
        raise PluginLoadError(f"importing {code.name} failed: {_line(error)}") from None
    finally:
        register.register_plugin_inner = previous  # type: ignore[attr-defined]
        register.register_plugin_test_inner = previous_test  # type: ignore[attr-defined]
    return registered


def _ignore_test(name: str, description: str, test: Callable[..., Any]) -> None:
    return None


def _accept_context(context: NotebookPluginContext) -> None:
    """With TaskWeaver installed, plugins see its `PluginContext`: make twnb's context one of them."""
    try:
        module = importlib.import_module("taskweaver.plugin.context")
    except ImportError:
        return
    if getattr(module, "__name__", "").startswith(IMPLEMENTATION):
        return
    base = getattr(module, "PluginContext", None)
    register: Callable[[type], Any] | None = getattr(base, "register", None)
    if register is not None and not isinstance(context, base):  # type: ignore[arg-type]
        register(NotebookPluginContext)


def spec_signature(entry: PluginEntry) -> inspect.Signature:
    """A signature from the spec, for `help(plugin)` and the namespace summary."""
    parameters = []
    for item in entry.parameters:
        name = str(item.get("name", "")).lstrip("*")
        if not name.isidentifier():
            continue
        default = inspect.Parameter.empty if item.get("required") else None
        parameters.append(
            inspect.Parameter(
                name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=default,
                annotation=str(item.get("type", "Any")),
            )
        )
    try:
        return inspect.Signature(parameters)
    except ValueError:  # an optional argument before a required one: keyword-only from there
        fixed, seen_default = [], False
        for parameter in parameters:
            seen_default = seen_default or parameter.default is not inspect.Parameter.empty
            kind = inspect.Parameter.KEYWORD_ONLY if seen_default else parameter.kind
            fixed.append(parameter.replace(kind=kind))
        return inspect.Signature(fixed)


def _line(error: BaseException) -> str:
    return clip(f"{type(error).__name__}: {error}", 400, one_line=True)
