"""Calls generated code makes to plugins, recorded: the callable bound under a plugin's name, and the
log of one run's calls.

A `PluginFunction` stands in the kernel's namespace for every plugin, whatever its source (a
TaskWeaver plugin's instance, a notebook function, an MCP tool). Calling it calls the plugin; while a
`CallLog` is open (the executor opens one around each run of generated code) the call is recorded:
argument types, the result's type and a short description, the files the plugin added, what it
logged, the error it raised, when and how long. Outside a run (the user calling a plugin in a cell
of their own) it just calls the plugin.

The log is process-wide, not per thread: a call from a thread the generated code started is the
run's call too.

A plugin is code the user offered the model, so it acts as trusted code for the runtime guard that
watches the generated code calling it (twnb/kernel/guard/runtime_guard.py, guard_trust.py): a plugin may
start a process or load a C library that generated code itself may not. Trust goes only to what twnb
bound before the run: a `PluginFunction` made while generated code runs (around a callable of the
code's own) calls its target as the code would, and a bound one calls the target it was bound with,
whatever is later set on it. The guard reads from the stack at each action whether the plugin's own
code is acting, not generated code the plugin was handed or that patched what it uses.
"""

from __future__ import annotations

import functools
import inspect
import time
import types
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType
from typing import Any

from twnb.base import clip, now_iso_precise
from twnb.kernel import RuntimeGuard
from twnb.memory import PluginCallRecord

__all__ = ["CallLog", "PluginFunction", "active_log", "describe_value", "open_call_log"]

RESULT_CHARS = 200


@dataclass
class CallLog:
    """The plugin calls of one run, and where the files plugins add during it go."""

    artifacts_dir: Path
    artifact_stem: str
    execution_id: str = ""
    calls: list[PluginCallRecord] = field(default_factory=list)
    # the record of the call running now, innermost last (a plugin may call another)
    running: list[PluginCallRecord] = field(default_factory=list)

    @property
    def artifacts(self) -> list[str]:
        return [path for call in self.calls for path in call["artifacts"]]

    def current(self) -> PluginCallRecord | None:
        return self.running[-1] if self.running else None


_active: CallLog | None = None


def active_log() -> CallLog | None:
    """The log of the run going on, if any."""
    return _active


@contextmanager
def open_call_log(log: CallLog) -> Iterator[CallLog]:
    """Record plugin calls into `log` until the block ends."""
    global _active
    previous, _active = _active, log
    try:
        yield log
    finally:
        _active = previous


def describe_value(value: Any) -> str:
    """A value's type, and for small plain values the value (a result, never an argument)."""
    kind = type(value).__name__
    if value is None or isinstance(value, bool | int | float):
        return f"{kind} {value!r}"
    if isinstance(value, str):
        return f"str of {len(value)} characters: {clip(value, RESULT_CHARS, one_line=True)!r}"
    if isinstance(value, tuple | list) and len(value) <= 8:
        inner = ", ".join(describe_value(item).split(":", 1)[0] for item in value)
        return f"{kind} ({inner})"
    if isinstance(value, list | tuple | dict | set | frozenset | bytes | bytearray):
        return f"{kind} of length {len(value)}"
    # Only pandas and numpy objects, which hold their shape: `len()` or the shape of a lazy frame
    # (Dask, Spark, Polars, DuckDB) may run its whole query.
    if type(value).__module__.split(".")[0] in ("pandas", "numpy"):
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple) and all(isinstance(n, int) for n in shape):
            return f"{kind} of shape {shape}"
    return kind


class PluginFunction:
    """The callable generated code calls by a plugin's name. `target` is what runs: a TaskWeaver
    plugin's instance, a notebook function, or an MCP tool's caller. `parameters` are the spec's
    argument names in order (positional arguments are named after them in the record)."""

    __name__: str
    source: str
    target: Callable[..., Any]
    parameters: tuple[str, ...]

    def __init__(
        self,
        name: str,
        source: str,
        target: Callable[..., Any],
        *,
        description: str = "",
        parameters: Sequence[str] = (),
        signature: inspect.Signature | None = None,
    ) -> None:
        if _GUARD.armed_run() is None:  # made by twnb (or the user) before generated code runs
            _BOUND[self] = (target, _called_code(target))
        fields: dict[str, Any] = {
            "__name__": name,
            "__qualname__": name,
            "__doc__": description,
            "source": source,
            "target": target,
            "parameters": tuple(parameters),
        }
        if signature is not None:
            fields["__signature__"] = signature
        for key, value in fields.items():
            object.__setattr__(self, key, value)

    def __setattr__(self, name: str, value: Any) -> None:
        # What a plugin's name calls is the plugin: code that was handed the function cannot point it
        # at something else (its calls would be recorded as the plugin's).
        raise AttributeError(f"the plugin function {self.__name__} cannot be changed")

    def __repr__(self) -> str:
        return f"<twnb plugin {self.__name__} ({self.source})>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        log = _active
        if log is None:
            return self._call(args, kwargs)
        record = PluginCallRecord(
            name=self.__name__,
            source=self.source,
            arguments=self._argument_types(args, kwargs),
            result="",
            artifacts=[],
            error=None,
            log=[],
            started_at=now_iso_precise(),
            duration_s=0.0,
        )
        log.calls.append(record)
        log.running.append(record)
        started = time.perf_counter()
        try:
            result = self._call(args, kwargs)
        except BaseException as error:
            record["error"] = clip(f"{type(error).__name__}: {error}", 500, one_line=True)
            raise
        finally:
            record["duration_s"] = round(time.perf_counter() - started, 6)
            log.running.remove(record)
        record["result"] = describe_value(result)
        return result

    def _call(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        bound = _BOUND.get(self)
        if bound is None:  # made while generated code ran: its target runs as the code's own call
            return self.target(*args, **kwargs)
        target, code = bound
        with _GUARD.trusted(code):
            return target(*args, **kwargs)

    def _argument_types(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> dict[str, str]:
        named: dict[str, str] = {}
        for index, value in enumerate(args):
            key = self.parameters[index] if index < len(self.parameters) else f"arg{index + 1}"
            named[key] = type(value).__name__
        for key, value in kwargs.items():
            named[str(key)] = type(value).__name__
        return named


def _called_code(target: Any) -> CodeType | None:
    """The code a call of `target` runs first (a function's, a method's, a callable instance's
    `__call__`): the frame the trusted entry calls must run it. None when that is not Python code."""
    for _ in range(8):
        if isinstance(target, functools.partial):
            target = target.func
        elif isinstance(target, types.MethodType):
            target = target.__func__
        else:
            break
    if isinstance(target, types.FunctionType):
        return target.__code__
    call = next((vars(cls)["__call__"] for cls in type(target).__mro__ if "__call__" in vars(cls)), None)
    if isinstance(call, types.FunctionType):
        return call.__code__
    return None


_GUARD = RuntimeGuard.installed()
# The plugin functions twnb bound before a run, with the target and the code each calls.
_BOUND: weakref.WeakKeyDictionary[PluginFunction, tuple[Callable[..., Any], CodeType | None]] = (
    weakref.WeakKeyDictionary()
)
_GUARD.trust_entry(PluginFunction._call.__code__)
