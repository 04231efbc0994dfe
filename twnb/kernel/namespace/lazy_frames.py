"""Lazy frames described by their schema, never computed.

A Dask, Polars-lazy, Spark, DuckDB or Ibis frame holds a query, not data: its row count, its values
and its repr all run that query, which may take hours or fill the memory the user moved to a cluster
to escape. What the model needs to write code is the schema, and every one of these libraries keeps
the schema beside the query: Dask's `_meta` (an empty pandas frame), Polars' `collect_schema()`,
Spark's `schema` (resolved by the analyser, never `count()`), DuckDB's `columns`/`types`, Ibis'
`schema()`. xarray Datasets are described the same way (dims, variables, chunks), never by values,
and a Dask Client or cluster by its workers.

The type is recognised by its module and name, so describing never imports a library the user has
not imported. Everything here runs under the namespace summary's per-object time budget.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from twnb.base import clip
from twnb.kernel.capture import HIDDEN, SecretScreen
from twnb.kernel.namespace.data_libraries import client_resources, count

MAX_COLUMNS = 30
MAX_LABEL_CHARS = 60  # a column name or a dtype (a Spark struct type's text can run to pages)
LAZY_NOTE = "lazy: not computed"


def _clip(text: str) -> str:
    return clip(text, MAX_LABEL_CHARS)


def columns_text(pairs: Iterable[tuple[Any, Any]], screen: SecretScreen) -> str:
    """`name (dtype), ...` for at most MAX_COLUMNS columns, a key-shaped column name hidden."""
    shown: list[str] = []
    total = 0
    for column, dtype in pairs:
        total += 1
        if total <= MAX_COLUMNS:
            label = HIDDEN if screen.looks_secret_value(str(column)) else _clip(str(column))
            shown.append(f"{label} ({_clip(str(dtype))})")
    more = f", ... and {total - MAX_COLUMNS} more" if total > MAX_COLUMNS else ""
    return ", ".join(shown) + more


def top_module(value: Any) -> str:
    return (getattr(type(value), "__module__", "") or "").split(".")[0]


def _dask(value: Any, screen: SecretScreen) -> str | None:
    kind = type(value).__name__
    if kind not in ("DataFrame", "Series", "Index", "Array"):
        return None  # Bag, Delayed, Scalar: their type says enough
    meta = getattr(value, "_meta", None)  # the empty pandas object every Dask collection carries
    if kind == "DataFrame" and meta is not None:
        index = meta.index.name
        parts = [count(value.npartitions, "partition")]
        if index is not None:
            parts.append(f"index {_clip(str(index))!r}")
        columns = columns_text(zip(meta.columns, meta.dtypes, strict=False), screen)
        return f"dask.DataFrame ({LAZY_NOTE}), {', '.join(parts)}; columns: {columns}"
    if kind in ("Series", "Index") and meta is not None:
        named = f" named {_clip(str(meta.name))!r}" if meta.name is not None else ""
        partitions = count(value.npartitions, "partition")
        return f"dask.{kind}{named} ({LAZY_NOTE}), dtype {meta.dtype}, {partitions}"
    if kind == "Array":
        # Shape and chunks are known without computing (nan where a size depends on the data).
        return (
            f"dask.Array ({LAZY_NOTE}), shape {value.shape}, dtype {value.dtype}, "
            f"chunk size {value.chunksize}, {count(value.npartitions, 'chunk')}"
        )
    return None


def _polars(value: Any, screen: SecretScreen) -> str | None:
    if type(value).__name__ != "LazyFrame":
        return None
    schema = value.collect_schema()  # resolves the plan's schema (a scan reads file footers), no rows
    return f"polars.LazyFrame ({LAZY_NOTE}); columns: {columns_text(schema.items(), screen)}"


def _spark(value: Any, screen: SecretScreen) -> str | None:
    if type(value).__name__ != "DataFrame" or "schema" not in dir(type(value)):
        return None  # pandas-on-Spark frames and the rest: their type says enough
    fields = value.schema.fields  # the analysed plan's schema; count() or collect() would run it
    pairs = ((f.name, f.dataType.simpleString()) for f in fields)
    return f"pyspark.DataFrame ({LAZY_NOTE}); columns: {columns_text(pairs, screen)}"


def _duckdb(value: Any, screen: SecretScreen) -> str | None:
    if type(value).__name__ != "DuckDBPyRelation":
        return None
    pairs = zip(value.columns, value.types, strict=False)  # bound when the relation was made
    return f"duckdb.DuckDBPyRelation ({LAZY_NOTE}); columns: {columns_text(pairs, screen)}"


def _ibis(value: Any, screen: SecretScreen) -> str | None:
    if type(value).__name__ != "Table":
        return None
    schema = value.schema()
    return f"ibis.Table ({LAZY_NOTE}); columns: {columns_text(schema.items(), screen)}"


def _xarray(value: Any, screen: SecretScreen) -> str | None:
    if type(value).__name__ != "Dataset":
        return None
    dims = ", ".join(f"{_clip(str(d))}={n}" for d, n in list(value.sizes.items())[:MAX_COLUMNS])
    pairs = []
    for name, variable in value.data_vars.items():
        pairs.append((name, f"{', '.join(map(str, variable.dims))}; {variable.dtype}"))
    text = f"xarray.Dataset, dims {dims}; variables: {columns_text(pairs, screen)}"
    chunks = value.chunksizes  # a mapping dim -> chunk sizes; empty when the data is in memory
    if chunks:
        largest = [(d, max(sizes)) for d, sizes in list(chunks.items())[:MAX_COLUMNS]]
        per_dim = ", ".join(f"{_clip(str(d))}={size}" for d, size in largest)
        text += f"; chunked ({LAZY_NOTE}): largest chunk {per_dim}"
    return text


def _distributed(value: Any, screen: SecretScreen) -> str | None:
    """A Dask Client or cluster by what it runs on: its repr carries addresses that change every run."""
    kind = type(value).__name__
    if kind == "Client":
        return f"distributed.Client (connected: {client_resources(value)})"
    if kind.endswith("Cluster") and isinstance(getattr(value, "workers", None), dict):
        return f"distributed.{kind} ({len(value.workers)} workers)"
    return None


_DESCRIBERS = {
    "dask": _dask,
    "distributed": _distributed,
    "polars": _polars,
    "pyspark": _spark,
    "duckdb": _duckdb,
    "_duckdb": _duckdb,  # where DuckDB's compiled types live
    "ibis": _ibis,
    "xarray": _xarray,
}


def describe_by_schema(value: Any, screen: SecretScreen) -> str | None:
    """The schema of a lazy frame (or an xarray Dataset) as one line's text after `name: `, or None
    when `value` is not one this module knows (the caller then describes it by type only)."""
    describer = _DESCRIBERS.get(top_module(value))
    return describer(value, screen) if describer is not None else None
