"""The user's variables described for a prompt: what data is there, never what is secret.

Each object is described from cheap metadata (shape, columns, dtypes) under a time budget; a lazy
frame (Dask, Spark, a Polars LazyFrame, DuckDB, Ibis) by the schema its library keeps beside the query
(lazy_frames.py), or by its type alone when the library is not one twnb knows, because touching
anything else could start a computation. Private names, modules, imported callables and IPython's own
names are left out; a name that sounds secret or a value shaped like a key shows as "[hidden]".
"""

from __future__ import annotations

import inspect
import reprlib
import time
import types
from collections.abc import Callable, Iterable
from typing import Any

from twnb.kernel.capture import HIDDEN, SecretScreen, looks_secret_name, mentions_secret_name
from twnb.kernel.guard import Watchdog
from twnb.kernel.namespace.data_libraries import data_libraries_text
from twnb.kernel.namespace.lazy_frames import LAZY_NOTE, columns_text, describe_by_schema, top_module
from twnb.kernel.namespace.variables import IPYTHON_NAMES

LAZY_MODULES = ("dask", "pyspark", "ibis", "vaex", "ray", "modin", "duckdb", "_duckdb", "sqlalchemy")
FRAME_MODULES = ("pandas", "polars", "cudf", "pyarrow", "geopandas")
ARRAY_MODULES = ("numpy", "torch", "tensorflow", "jax", "jaxlib", "cupy", "xarray", "scipy")
_HEADER = "Variables in the kernel:"


def _short_repr() -> reprlib.Repr:
    short = reprlib.Repr()
    short.maxstring = 80
    short.maxother = 80
    short.maxlist = short.maxtuple = short.maxset = short.maxfrozenset = short.maxdict = 6
    short.maxlevel = 2
    return short


def _qualified_type(value: Any) -> str:
    cls = type(value)
    module = getattr(cls, "__module__", "") or ""
    return cls.__name__ if module == "builtins" else f"{module.split('.')[0]}.{cls.__name__}"


def _is_lazy(value: Any) -> bool:
    return top_module(value) in LAZY_MODULES or "Lazy" in type(value).__name__


def _is_frame(value: Any) -> bool:
    return top_module(value) in FRAME_MODULES and hasattr(value, "columns") and hasattr(value, "dtypes")


def _shape(value: Any) -> tuple[int, ...] | None:
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple) and all(isinstance(n, int) for n in shape):
        return shape
    return None


def _describe_frame(name: str, value: Any, screen: SecretScreen) -> str:
    shape = _shape(value)
    columns = list(value.columns)
    size = f"shape {shape}" if shape else f"{len(columns)} columns"
    pairs = zip(columns, list(value.dtypes), strict=False)
    return f"- {name}: {type(value).__name__}, {size}; columns: {columns_text(pairs, screen)}"


def _describe(name: str, value: Any, short: reprlib.Repr, screen: SecretScreen) -> str | None:
    """One line about `value`, or None when it is not the user's data (a module, an imported callable)."""
    if isinstance(value, types.ModuleType):
        return None
    by_schema = describe_by_schema(value, screen)
    if by_schema is not None:
        return f"- {name}: {by_schema}"
    if _is_lazy(value):
        return f"- {name}: {_qualified_type(value)} ({LAZY_NOTE}, described by type only)"
    if _is_frame(value):
        return _describe_frame(name, value, screen)
    top = top_module(value)
    if top in FRAME_MODULES + ARRAY_MODULES and _shape(value) is not None:
        dtype = getattr(value, "dtype", None)
        series_name = getattr(value, "name", None) if top in FRAME_MODULES else None
        label = f" named {series_name!r}" if isinstance(series_name, str) else ""
        return f"- {name}: {type(value).__name__}{label}, shape {_shape(value)}" + (
            f", dtype {dtype}" if dtype is not None else ""
        )
    if callable(value):
        if getattr(value, "__module__", None) != "__main__":
            return None  # imported or IPython's own: the code's imports already say so
        if isinstance(value, type):
            return f"- {name}: class {value.__name__}"
        try:
            signature = str(inspect.signature(value))
        except (TypeError, ValueError):
            signature = "(...)"
        return f"- {name}: function {getattr(value, '__name__', name)}{signature}"
    if type(value) is int and value.bit_length() > 256:
        text = f"<an integer of {value.bit_length()} bits>"  # its repr may be refused (digit limit)
    else:
        text = short.repr(value)
    if _looks_secret(value, text, screen):
        text = HIDDEN
    sized = isinstance(value, list | tuple | dict | set | frozenset | str | bytes)
    size = f", len {len(value)}" if sized else ""
    return f"- {name}: {_qualified_type(value)}{size} = {text}"


def _looks_secret(value: Any, text: str, screen: SecretScreen) -> bool:
    """A value is hidden when its shown text looks like a key, or mentions a secret-sounding name
    (`{'password': 'hunter2'}`: the value beside such a name is the secret, whatever its shape)."""
    if screen.looks_secret_value(text) or mentions_secret_name(text):
        return True
    if isinstance(value, str) and len(value) > len(text):
        # The repr was cut in the middle; a key straddling the cut must not show by halves.
        return screen.looks_secret_value(value[:2048] + "\n" + value[-2048:])
    return False


class _TimedOut(Exception):
    """The watchdog stopped a description at its time budget."""


def _describe_within(
    name: str, value: Any, short: reprlib.Repr, budget_s: float, screen: SecretScreen
) -> str | None:
    try:
        if type(value) in (int, float, bool, str, type(None)):
            return _describe(name, value, short, screen)  # cheap and cannot hang: no watchdog thread
        return _within(budget_s, lambda: _describe(name, value, short, screen))
    except _TimedOut:
        return f"- {name}: {_fallback_type(value)} (not described: took longer than {budget_s:g} s)"
    except Exception as exc:  # a broken __repr__ or property must not break the prompt
        return f"- {name}: {_fallback_type(value)} (not described: {type(exc).__name__})"


def _within(budget_s: float, work: Callable[[], str | None]) -> str | None:
    """`work()`, stopped after `budget_s` (_TimedOut then); the user's own Ctrl-C still interrupts."""
    watchdog = Watchdog(budget_s)
    try:
        with watchdog:
            return work()
    except KeyboardInterrupt:
        if not watchdog.fired:
            raise
        raise _TimedOut from None


def _libraries_within(budget_s: float) -> str:
    try:
        return _within(budget_s, data_libraries_text) or ""
    except _TimedOut:  # an unreachable scheduler, say
        return f"(The data libraries were not listed: that took longer than {budget_s:g} s.)"
    except Exception as exc:  # a half-broken install: say so, briefly
        return f"(The data libraries could not be listed: {type(exc).__name__}.)"


def _fallback_type(value: Any) -> str:
    try:
        return _qualified_type(value)
    except Exception:  # a type whose own attributes raise: its bare name will do
        return str(type.__dict__["__name__"].__get__(type(value)))


# The lines of plain immutable values, by (name, type, value), for the environment's secrets they were
# screened against: a notebook piles up such variables, and describing them again at each of a Round's
# three summaries made a Round's cost grow with the notebook's age. Mutable values are described
# afresh each time (their content may change). Keyed by the secrets' tuple, not the screen, which
# hashes in Python: one lookup per variable per summary. Beside them, each name's last plain value and
# its line: the same object again (most variables, at most summaries) is found by name and identity,
# without building and hashing a key.
_SCALAR_LINES: dict[tuple[Any, ...], str] = {}
_LINES_BY_NAME: dict[str, tuple[Any, str]] = {}
_SCALAR_LINES_SECRETS: list[tuple[str, ...]] = [()]
_SCALAR_LINES_MAX = 4096
_SCALAR_STR_MAX = 4096


def _scalar_lines(screen: SecretScreen) -> dict[tuple[Any, ...], str]:
    """The remembered lines, forgotten when the environment's secrets are not those they were screened
    against (a key set since must hide a value shown before)."""
    if _SCALAR_LINES_SECRETS[0] != screen.environment_values:
        _SCALAR_LINES.clear()
        _LINES_BY_NAME.clear()
        _SCALAR_LINES_SECRETS[0] = screen.environment_values
    return _SCALAR_LINES


def _scalar_key(name: str, value: Any) -> tuple[Any, ...] | None:
    kind = type(value)
    if kind is float:
        return (name, kind, value.hex())  # hex tells -0.0 from 0.0 and is equal for NaNs
    if kind in (int, bool, type(None)) or (kind is str and len(value) <= _SCALAR_STR_MAX):
        return (name, kind, value)
    return None


def _remember(lines: dict[tuple[Any, ...], str], key: tuple[Any, ...] | None, line: str) -> None:
    if key is None:
        return
    if len(lines) >= _SCALAR_LINES_MAX:
        lines.clear()
        _LINES_BY_NAME.clear()
    lines[key] = line


def summarize_namespace(
    namespace: dict[str, Any],
    *,
    max_chars: int = 4000,
    per_object_budget_s: float = 0.2,
    total_budget_s: float = 2.0,
    hidden_names: Iterable[str] = (),
    describe_libraries: bool = True,
) -> str:
    """Text describing the user's variables, at most `max_chars` long ("" when there are none), then
    the libraries for big data this kernel has once the user imported one (data_libraries.py)."""
    skipped = set(IPYTHON_NAMES) | set(hidden_names)
    short = _short_repr()
    screen = SecretScreen.from_environment()  # once per call: reading os.environ per variable was the cost
    libraries = _libraries_within(per_object_budget_s) if describe_libraries else ""
    libraries = screen.redact(libraries)[: max_chars // 4]
    lines: list[str] = []
    used = len(_HEADER) + 1 + (len(libraries) + 2 if libraries else 0)
    left_out = 0
    deadline = time.monotonic() + total_budget_s
    names = [n for n in list(namespace) if not n.startswith("_") and n not in skipped]
    # Newest first, so when the limit cuts the list it cuts the oldest names, not what the last step
    # made (a dict keeps insertion order); the lines are put back in namespace order below.
    names.reverse()
    cut: str | None = None
    remembered = _scalar_lines(screen)
    # Looked up once: this loop runs for every variable at each of a Round's summaries.
    by_name, now, room = _LINES_BY_NAME, time.monotonic, max_chars - 60
    for position, name in enumerate(names):
        value = namespace.get(name)
        if now() > deadline:
            left_out = len(names) - position
            cut = f"[... {left_out} older names not described: time budget of {total_budget_s:g} s]"
            break
        last = by_name.get(name)
        line: str | None
        if last is not None and last[0] is value:
            line = last[1]  # the same plain (immutable) object as before: the same line
        else:
            key = _scalar_key(name, value)
            line = remembered.get(key) if key is not None else None
            if line is None:
                if looks_secret_name(name):
                    line = f"- {name}: {HIDDEN}"
                else:
                    line = _describe_within(name, value, short, per_object_budget_s, screen)
                if line is None:
                    continue
                line = screen.redact(line)
                _remember(remembered, key, line)
            if key is not None:
                by_name[name] = (value, line)
        if used + len(line) + 1 > room:
            left_out = len(names) - position
            cut = f"[... {left_out} older names not shown: summary limit of {max_chars} characters]"
            break
        lines.append(line)
        used += len(line) + 1
    lines.reverse()
    if cut is not None:
        lines.insert(0, cut)
    parts = ["\n".join([_HEADER, *lines])] if lines else []
    if libraries:
        parts.append(libraries)
    return "\n\n".join(parts)[:max_chars]
