"""The variable delta: which names the code created, rebound, changed in type/shape/dtype, or deleted.

A signature per name holds only cheap facts (type, shape, dtype, identity); object contents are never
hashed, so a 10 GB DataFrame costs the same as an int. `namespace_signatures` is self-contained (its
imports are inside) because `KernelExecutor` sends its source to a separate kernel and runs it there.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any

from twnb.kernel.record import VariableChange, VariableChangeKind

# Names IPython puts in every user namespace; never the user's variables.
IPYTHON_NAMES = frozenset({"In", "Out", "get_ipython", "exit", "quit", "_ih", "_oh", "_dh", "_", "__", "___"})

Signature = list[Any]  # [type name, shape or None, dtype text or None, identity, dtype signature or None]


def namespace_signatures(
    namespace: dict[str, Any],
    skip: Iterable[str] = (),
    memo: dict[str, tuple[Any, Signature]] | None = None,
    shapes: bool = True,
) -> dict[str, Signature]:
    """Cheap signature of every public, non-IPython name in `namespace` (JSON-able).

    `memo` (a dict the caller keeps between calls, else none) holds each name's plain (immutable) value
    and its signature from the previous call: the same object again is not signed again. It is
    refilled with this call's. Without `shapes`, an array's or frame's shape and dtypes are not read
    (the costly part): names created, rebound and deleted are still told apart, changes in place not.
    """
    import hashlib  # inside: this function's own source is defined in a separate kernel

    skipped = set(skip)
    eager_modules = (
        "numpy",
        "pandas",
        "torch",
        "tensorflow",
        "jax",
        "jaxlib",
        "xarray",
        "scipy",
        "polars",
        "cupy",
        "pyarrow",
    )
    lazy_modules = ("dask", "pyspark", "ibis", "vaex", "ray", "modin", "duckdb")
    scalar_types = (int, float, bool, complex, type(None))
    sized_builtins = (list, tuple, dict, set, frozenset, str, bytes, bytearray)
    signatures: dict[str, Signature] = {}
    previous = dict(memo) if memo else {}
    if memo is not None:
        memo.clear()
    for name, value in list(namespace.items()):
        if name.startswith("_") or name in skipped:
            continue
        last = previous.get(name)
        if last is not None and last[0] is value:
            signatures[name] = last[1]
            if memo is not None:
                memo[name] = last
            continue
        cls = type(value)
        type_name = cls.__name__
        if cls in scalar_types or (cls in (str, bytes) and len(value) <= 256):
            # Hex for ints: repr of a huge int raises (Python's digit limit); hex is linear and unlimited.
            text = format(value, "x") if cls is int else repr(value)
            # A short number is its own identity (hashing it cost more than the rest of its signature);
            # text is hashed, so a password in a variable never travels in a signature, and so is a
            # long number, to keep signatures small.
            if cls in scalar_types and len(text) <= 32:
                identity = "t:" + text
            else:
                identity = "v:" + hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:16]
            # Builtins: neither a lazy nor an eager library's object; only str and bytes have a size.
            size = None if cls in scalar_types else [len(value)]
            signatures[name] = [type_name, size, None, identity, None]
            if memo is not None:
                memo[name] = (value, signatures[name])
            continue
        identity = f"id:{id(value)}"
        top_module = (getattr(cls, "__module__", "") or "").split(".")[0]
        shape = dtype = dtype_sig = None
        try:
            if not shapes or top_module in lazy_modules or "Lazy" in type_name:
                pass  # touching shape or dtypes of a lazy frame may compute it
            elif top_module in eager_modules:
                raw_shape = getattr(value, "shape", None)
                if isinstance(raw_shape, tuple) and all(isinstance(n, int) for n in raw_shape):
                    shape = list(raw_shape)
                columns: Any = getattr(value, "columns", None)
                dtypes: Any = getattr(value, "dtypes", None)
                is_frame = columns is not None and dtypes is not None and not callable(dtypes)
                if is_frame and len(columns) <= 5000:
                    names = [str(t) for t in list(dtypes)]
                    counts: dict[str, int] = {}
                    for t in names:
                        counts[t] = counts.get(t, 0) + 1
                    dtype = ", ".join(f"{t}({n})" for t, n in counts.items())
                    joined = "\x00".join(f"{c}:{t}" for c, t in zip(list(columns), names, strict=False))
                    dtype_sig = hashlib.sha1(joined.encode("utf-8", "replace")).hexdigest()[:16]
                elif getattr(value, "dtype", None) is not None:
                    dtype = dtype_sig = str(value.dtype)
            elif isinstance(value, sized_builtins):
                shape = [len(value)]
        except Exception:
            shape = dtype = dtype_sig = None  # a broken attribute must not break the delta
        signatures[name] = [type_name, shape, dtype, identity, dtype_sig]
    return signatures


def namespace_signatures_source() -> str:
    """Source of `namespace_signatures`, to define it in another kernel."""
    return inspect.getsource(namespace_signatures)


def variable_delta(before: dict[str, Signature], after: dict[str, Signature]) -> list[VariableChange]:
    changes: list[VariableChange] = []
    for name, signature in after.items():
        old = before.get(name)
        if old is signature:
            continue  # the same signature object: a plain value neither scan signed again
        type_name, shape, dtype, identity, dtype_sig = signature
        if old is None:
            changes.append(VariableChange(name, "created", type_name, shape, dtype))
            continue
        old_type, old_shape, _old_dtype, old_identity, old_dtype_sig = old
        kind: VariableChangeKind
        if identity != old_identity:
            kind = "rebound"
        elif (type_name, shape, dtype_sig) != (old_type, old_shape, old_dtype_sig):
            kind = "changed"
        else:
            continue
        changes.append(VariableChange(name, kind, type_name, shape, dtype, old_type, old_shape))
    if before.keys() - after.keys():
        for name, (type_name, shape, dtype, _identity, _sig) in before.items():
            if name not in after:
                changes.append(VariableChange(name, "deleted", type_name, shape, dtype))
    return changes
