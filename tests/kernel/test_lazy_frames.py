"""Lazy frames of real libraries are described by their schema and never computed.

Each frame is built so that computing any of it leaves a mark (a line appended to a file, from a
partition function, a batch function or a SQL function); each test first checks the summary says what
the model needs, then that no mark was left, and the last check of each proves the mark works by
computing a little on purpose.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from twnb.kernel import summarize_namespace as summarize_within_default_limits
from twnb.kernel.namespace.lazy_frames import MAX_LABEL_CHARS

# What these tests specify is what a lazy frame's line says, not the time limits: a library's first
# schema in a fresh process can take longer than the 0.2 s default on a loaded machine (a polars
# LazyFrame did in one CI run, and was "not described").
summarize_namespace = functools.partial(
    summarize_within_default_limits, per_object_budget_s=10.0, total_budget_s=30.0
)

dd = pytest.importorskip("dask.dataframe")
pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")


def _mark(counter: Path) -> None:
    with counter.open("a") as file:
        file.write("computed\n")


def _marks(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


def _partition(number: int, counter: str) -> pd.DataFrame:
    _mark(Path(counter))
    return pd.DataFrame(
        {"user": [f"u{number}"], "amount": [float(number)]}, index=pd.Index([number], name="event_id")
    )


def _dask_events(counter: Path, partitions: int):
    meta = pd.DataFrame(
        {"user": pd.Series([], dtype="str"), "amount": pd.Series([], dtype="float64")},
        index=pd.Index([], dtype="int64", name="event_id"),
    )
    return dd.from_map(
        _partition, range(partitions), counter=str(counter), meta=meta, divisions=[None] * (partitions + 1)
    )


def test_a_dask_frame_shows_columns_dtypes_partitions_and_index_without_computing(tmp_path):
    counter = tmp_path / "counter"
    events = _dask_events(counter, 500)
    summary = summarize_namespace({"events": events})
    assert (
        "- events: dask.DataFrame (lazy: not computed), 500 partitions, index 'event_id'; "
        "columns: user (string), amount (float64)"
    ) in summary
    assert _marks(counter) == 0
    events.partitions[0].compute(scheduler="sync")
    assert _marks(counter) == 1


def test_a_dask_map_partitions_and_series_are_described_without_computing(tmp_path):
    counter = tmp_path / "counter"

    def doubled(frame: pd.DataFrame) -> pd.DataFrame:
        _mark(counter)
        return frame * 2

    base = dd.from_pandas(pd.DataFrame({"x": np.arange(40.0)}), npartitions=4)
    mapped = base.map_partitions(doubled, meta=base._meta)
    summary = summarize_namespace({"mapped": mapped, "x": mapped.x})
    assert "- mapped: dask.DataFrame (lazy: not computed), 4 partitions; columns: x (float64)" in summary
    assert "- x: dask.Series named 'x' (lazy: not computed), dtype float64, 4 partitions" in summary
    assert _marks(counter) == 0
    mapped.x.sum().compute(scheduler="sync")
    assert _marks(counter) == 4


def test_a_dask_array_shows_shape_and_chunks_without_computing(tmp_path):
    import dask
    import dask.array as da

    counter = tmp_path / "counter"

    def block() -> np.ndarray:
        _mark(counter)
        return np.ones((100, 10))

    blocks = [da.from_delayed(dask.delayed(block)(), shape=(100, 10), dtype="float64") for _ in range(3)]
    array = da.concatenate(blocks)
    summary = summarize_namespace({"array": array})
    assert (
        "- array: dask.Array (lazy: not computed), shape (300, 10), dtype float64, chunk size (100, 10), "
        "3 chunks"
    ) in summary
    assert _marks(counter) == 0
    array.sum().compute(scheduler="sync")
    assert _marks(counter) == 3


def test_a_polars_lazy_frame_shows_its_schema_without_running_the_plan(tmp_path):
    counter = tmp_path / "counter"

    def batch(frame):
        _mark(counter)
        return frame

    lazy = (
        pl.LazyFrame({"city": ["a", "b"], "temp": [1.5, 2.5]})
        .map_batches(batch)
        .with_columns(hot=pl.col("temp") > 2)
    )
    summary = summarize_namespace({"lazy": lazy})
    assert (
        "- lazy: polars.LazyFrame (lazy: not computed); columns: city (String), temp (Float64), hot (Boolean)"
    ) in summary
    assert _marks(counter) == 0
    lazy.collect()
    assert _marks(counter) == 1


def test_a_polars_parquet_scan_shows_the_files_schema_and_an_eager_frame_keeps_its_shape(tmp_path):
    pl.DataFrame({"id": [1, 2, 3], "name": ["x", "y", "z"]}).write_parquet(tmp_path / "part-0.parquet")
    summary = summarize_namespace(
        {
            "scan": pl.scan_parquet(tmp_path / "*.parquet"),
            "eager": pl.DataFrame({"id": [1, 2, 3]}),
        }
    )
    assert "- scan: polars.LazyFrame (lazy: not computed); columns: id (Int64), name (String)" in summary
    assert "- eager: DataFrame, shape (3, 1); columns: id (Int64)" in summary


def test_a_duckdb_relation_shows_columns_and_types_without_running_the_query(tmp_path):
    counter = tmp_path / "counter"

    def marked(value: int) -> int:
        _mark(counter)
        return value

    con = duckdb.connect()
    con.create_function("marked", marked, ["BIGINT"], "BIGINT")
    relation = con.sql("select marked(i) as n, 'x' || i as label from range(5) t(i)")
    summary = summarize_namespace({"relation": relation})
    assert (
        "- relation: duckdb.DuckDBPyRelation (lazy: not computed); columns: n (BIGINT), label (VARCHAR)"
        in summary
    )
    assert _marks(counter) == 0
    relation.fetchall()
    assert _marks(counter) == 5


def test_an_ibis_table_shows_its_schema():
    ibis = pytest.importorskip("ibis")
    # An unbound table: ibis needs no backend to know the schema of an expression built on it.
    events = ibis.table({"user": "string", "amount": "float64"}, name="events")
    expression = events.mutate(doubled=events.amount * 2)
    summary = summarize_namespace({"expression": expression})
    assert (
        "- expression: ibis.Table (lazy: not computed); columns: user (string), amount (float64), "
        "doubled (float64)"
    ) in summary


def test_a_chunked_xarray_dataset_shows_dims_variables_and_chunks_without_computing(tmp_path):
    xr = pytest.importorskip("xarray")
    import dask
    import dask.array as da

    counter = tmp_path / "counter"

    def block() -> np.ndarray:
        _mark(counter)
        return np.zeros((10, 3), dtype="float32")

    temperature = da.concatenate(
        [da.from_delayed(dask.delayed(block)(), shape=(10, 3), dtype="float32") for _ in range(4)]
    )
    dataset = xr.Dataset({"temperature": (("time", "station"), temperature)})
    summary = summarize_namespace({"dataset": dataset})
    assert (
        "- dataset: xarray.Dataset, dims time=40, station=3; "
        "variables: temperature (time, station; float32); "
        "chunked (lazy: not computed): largest chunk time=10, station=3"
    ) in summary
    assert _marks(counter) == 0
    dataset.temperature.sum().compute(scheduler="sync")
    assert _marks(counter) == 4


def test_a_lazy_frames_summary_is_bounded_however_many_columns_it_has():
    wide = pl.LazyFrame({f"column_{i}_" + "x" * 100: [1] for i in range(500)})
    line = summarize_namespace({"wide": wide}, describe_libraries=False)
    assert "... and 470 more" in line and len(line) < 30 * 80 + 200


def test_a_long_column_name_is_clipped_as_everything_else_is():
    name = "c" * 200
    line = summarize_namespace({"wide": pl.LazyFrame({name: [1]})}, describe_libraries=False)
    assert "c" * (MAX_LABEL_CHARS - 1) + "…" in line
    assert "c" * MAX_LABEL_CHARS not in line


def test_the_summary_never_imports_a_library_the_user_did_not():
    code = (
        "import sys\n"
        "from twnb.kernel import summarize_namespace\n"
        "summarize_namespace({'n': 1, 'df': __import__('pandas').DataFrame({'a': [1]})})\n"
        "libraries = ('dask', 'distributed', 'polars', 'duckdb', 'pyspark', 'ibis', 'xarray', 'zarr')\n"
        "print(sorted(m for m in libraries if m in sys.modules))\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"
