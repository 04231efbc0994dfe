"""Before a piece of code runs: which of the user's objects it may change in place, how big each is,
and which of them the undo budget can copy.

`estimate_in_place(code, namespace, budget_mb)` reads the code (mutation_scan.py) and judges each use
against the live object it names: a method call changes a list when it is `append`, a DataFrame only
with `inplace=True` or one of its few mutators (`insert`, `pop`, `update`), a database connection or
cursor unless the call only reads (a query, a fetch: database_reads.py), an object of an unknown
class whenever the method is not plainly a reading one; immutable objects, modules, functions and
classes are never changed in place. Sizes are what a copy would cost (a DataFrame's blocks, an array's
buffer, a container and what it holds), measured without computing anything lazy: a lazy frame, or an
object that cannot be copied, is reported with its size unknown and never fits.

The budget is spent in the order the code names the objects; an object that does not fit what is left
is over budget (`InPlaceEstimate.over_budget`) and its change cannot be undone. `undo_log.py`
takes the copies; step mode's risk grading asks `exceeds_budget`.
"""

from __future__ import annotations

import ast
import sys
import types
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from twnb.kernel.undo.database_reads import QUERY_METHODS, call_reads_database, is_database_object
from twnb.kernel.undo.mutation_scan import MutationUse, scan_mutations

MB = 1024 * 1024


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


LIST_MUTATORS = _words(
    "append extend insert remove pop clear sort reverse __setitem__ __delitem__ __iadd__ __imul__"
)
DICT_MUTATORS = _words("update setdefault pop popitem clear __setitem__ __delitem__")
SET_MUTATORS = _words(
    "add discard remove pop clear update difference_update intersection_update "
    "symmetric_difference_update __ior__ __iand__ __isub__ __ixor__"
)
DEQUE_MUTATORS = LIST_MUTATORS | {"appendleft", "extendleft", "popleft", "rotate"}
BUILTIN_MUTATORS = LIST_MUTATORS | DICT_MUTATORS | SET_MUTATORS | DEQUE_MUTATORS
PANDAS_MUTATORS = _words("insert pop update __setitem__ __delitem__ set_flags")
ARRAY_MUTATORS = _words("sort fill resize put itemset partition setfield __setitem__")
# Methods of an object of an unknown class that read it (anything else may change it).
READING_METHODS = _words(
    "copy keys values items get count index predict predict_proba transform score describe head tail "
    "summary show plot format join split strip startswith endswith lower upper replace encode decode "
    "render savefig read sum mean median min max std var round groupby agg unique nunique value_counts "
    "isna notna astype tolist reshape any all argmax argmin"
)
READING_PREFIXES = ("get_", "is_", "has_", "to_", "as_", "__repr__", "__str__")

IMMUTABLE = (int, float, complex, bool, str, bytes, frozenset, range, type(None), type(Ellipsis))
_UNCHANGEABLE = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)
_LAZY_MODULES = ("dask", "pyspark", "ibis", "vaex", "ray", "modin", "duckdb", "polars")
_SIZE_SAMPLE = 1000  # items measured of a long container; the rest are taken to be alike


@dataclass(frozen=True)
class InPlaceTarget:
    """An object the code reaches by `name` and may change in place. `size_bytes` is what a copy would
    take (None: unknown without computing, or it cannot be copied: it never fits a budget); `why` the
    first construct of the code that may change it (`line` its line)."""

    name: str
    type: str
    size_bytes: int | None
    why: str
    line: int
    # A DataFrame the code changes only by storing or deleting whole columns by name: just those of
    # its columns are copied (and `size_bytes` is theirs); () for a copy of the whole object.
    columns: tuple[str, ...] = ()

    @property
    def size_text(self) -> str:
        return "size unknown" if self.size_bytes is None else size_text(self.size_bytes)


@dataclass(frozen=True)
class InPlaceEstimate:
    """What one piece of code may change in place, split by the undo budget: `copied` fit it (in
    the order the code names them), `over_budget` did not (their changes cannot be undone)."""

    copied: tuple[InPlaceTarget, ...]
    over_budget: tuple[InPlaceTarget, ...]
    budget_bytes: int

    @property
    def targets(self) -> tuple[InPlaceTarget, ...]:
        return self.copied + self.over_budget

    @property
    def exceeds_budget(self) -> bool:
        """Some object the code may change in place cannot be copied within the budget."""
        return bool(self.over_budget)

    @property
    def copied_bytes(self) -> int:
        return sum(t.size_bytes or 0 for t in self.copied)

    def over_budget_lines(self) -> list[str]:
        """One line per object whose change cannot be undone, as the Round and undo say it."""
        return [over_budget_line(t) for t in self.over_budget]


def over_budget_line(target: InPlaceTarget) -> str:
    return f"`{target.name}` ({target.size_text}) changed in place cannot be undone"


def estimate_in_place(
    code: str,
    namespace: Mapping[str, Any],
    budget_mb: float,
    *,
    hidden: Collection[str] = (),
) -> InPlaceEstimate:
    """The objects of `namespace` that `code` may change in place, sized and split by `budget_mb`
    megabytes. Names in `hidden` (IPython's own) and private names are never reported. Code that does
    not parse (even after IPython's transformations) may change anything: nothing is reported, and
    the run will fail before it starts anyway."""
    tree = _parse(code)
    budget = int(budget_mb * MB)
    if tree is None:
        return InPlaceEstimate((), (), budget)
    copied: list[InPlaceTarget] = []
    over: list[InPlaceTarget] = []
    left = budget
    for name, uses in scan_mutations(tree).items():
        if name.startswith("_") or name in hidden or name not in namespace:
            continue
        value = namespace[name]
        changing = [u for u in uses if may_change(value, u)]
        if not changing:
            continue
        use = changing[0]
        columns = _columns_only(value, changing)
        size = columns_size(value, columns) if columns else copy_size(value)
        target = InPlaceTarget(name, type(value).__name__, size, use.text, use.line, columns)
        if size is not None and size <= left:
            copied.append(target)
            left -= size
        else:
            over.append(target)
    return InPlaceEstimate(tuple(copied), tuple(over), budget)


def _columns_only(value: Any, uses: list[MutationUse]) -> tuple[str, ...]:
    """The columns of a DataFrame the code changes only by storing or deleting whole columns by name,
    else (): then the whole frame is copied."""
    if _module(value) != "pandas" or type(value).__name__ != "DataFrame":
        return ()
    if not all(u.kind == "store" and u.columns for u in uses):
        return ()
    try:
        if not value.columns.is_unique or not all(isinstance(c, str) for c in value.columns):
            return ()
    except Exception:
        return ()
    return tuple(dict.fromkeys(c for u in uses for c in u.columns))


def columns_size(frame: Any, columns: tuple[str, ...]) -> int | None:
    """Bytes the copies of those of `columns` the frame has take (a new column costs nothing)."""
    try:
        present = [c for c in columns if c in frame.columns]
        return int(sum(int(frame[c].memory_usage(index=False, deep=False)) for c in present))
    except Exception:
        return None


def _parse(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except SyntaxError:
        pass
    try:
        from IPython.core.inputtransformer2 import TransformerManager  # lazy: IPython (~45 ms), for magics

        transformed: str = TransformerManager().transform_cell(code)
        return ast.parse(transformed)
    except Exception:
        return None


def _module(value: Any) -> str:
    return (getattr(type(value), "__module__", "") or "").split(".")[0]


def may_change(value: Any, use: MutationUse) -> bool:
    """Whether `use` can change `value` where it lives."""
    if isinstance(value, (*IMMUTABLE, *_UNCHANGEABLE)):
        return False
    if use.kind in ("store", "argument"):
        return True
    if use.kind == "augmented":
        return not isinstance(value, tuple)  # a tuple is rebound, and kept by reference
    method = use.method
    module = _module(value)
    if module == "pandas":
        # What a frame's columns, rows and indexers give is pandas too: the same rule reaches them.
        return use.inplace or method in PANDAS_MUTATORS
    if module == "numpy":
        return method in ARRAY_MUTATORS or (method == "byteswap" and use.inplace)
    if is_database_object(value) and not use.through:
        # A query, a fetch, a cursor read (database_reads.py); another statement, or `to_table`, may
        # change the database it holds.
        if call_reads_database(method, use.statement):
            return False
        return method in QUERY_METHODS or method.startswith("to_") or _unknown_method_may_change(method)
    if use.through or isinstance(value, tuple):
        # Something the container holds, of a type not known from here.
        return method in BUILTIN_MUTATORS or _unknown_method_may_change(method)
    if isinstance(value, list | bytearray):
        return method in LIST_MUTATORS
    if isinstance(value, dict):
        return method in DICT_MUTATORS
    if isinstance(value, set):
        return method in SET_MUTATORS
    if type(value).__name__ == "deque":
        return method in DEQUE_MUTATORS
    return _unknown_method_may_change(method)


def _unknown_method_may_change(method: str) -> bool:
    return not (method in READING_METHODS or method.startswith(READING_PREFIXES))


def copy_size(value: Any) -> int | None:
    """Bytes a copy of `value` would take (None: unknown without computing, or not copyable)."""
    module = _module(value)
    type_name = type(value).__name__
    if module in _LAZY_MODULES or "Lazy" in type_name:
        return None
    try:
        if module == "pandas" and hasattr(value, "memory_usage"):
            # deep=False: a deep copy copies the blocks, not the Python objects an object column holds.
            usage = value.memory_usage(index=True, deep=False)
            return int(usage.sum() if hasattr(usage, "sum") else usage)
        nbytes = getattr(value, "nbytes", None)
        if module in ("numpy", "xarray", "torch", "cupy") and isinstance(nbytes, int):
            return nbytes
        return _deep_size(value)
    except Exception:
        return None


def _deep_size(value: Any) -> int:
    """A container's size with what it holds, walking at most `_SIZE_SAMPLE` items of each container
    and scaling by its length; objects reached twice are counted once."""
    seen: set[int] = set()
    total = 0
    stack: list[tuple[Any, float]] = [(value, 1.0)]
    walked = 0
    while stack and walked < 200_000:
        obj, weight = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        walked += 1
        if isinstance(obj, IMMUTABLE) and obj is not value:
            continue  # a deep copy shares what cannot change
        if obj is not value and _module(obj) in ("pandas", "numpy"):
            total += int((copy_size(obj) or 0) * weight)
            continue
        total += int(sys.getsizeof(obj) * weight)
        if isinstance(obj, dict):
            children: list[Any] = [*obj.keys(), *obj.values()]
        elif isinstance(obj, list | tuple | set | frozenset | bytearray) or type(obj).__name__ == "deque":
            children = list(obj) if not isinstance(obj, bytearray) else []
        elif hasattr(obj, "__dict__") and not isinstance(obj, _UNCHANGEABLE):
            children = [obj.__dict__]
        else:
            children = []
        if len(children) > _SIZE_SAMPLE:
            step = len(children) / _SIZE_SAMPLE
            scale = weight * step
            children = [children[int(i * step)] for i in range(_SIZE_SAMPLE)]
        else:
            scale = weight
        stack.extend((child, scale) for child in children)
    return total


def size_text(size: int) -> str:
    for unit, factor in (("GB", 1024**3), ("MB", MB), ("KB", 1024)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}"
    return f"{size} B"
