"""Code for data bigger than memory passes verification by default."""

from __future__ import annotations

import pytest

from twnb.roles.verification import verify_code

DASK_ANALYSIS = """\
import dask.dataframe as dd
from distributed import Client, LocalCluster
client = Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=False))
events = dd.read_parquet("events/*.parquet")
daily = events.groupby("day").amount.sum()
daily.compute()
"""


@pytest.mark.parametrize(
    "code",
    [
        DASK_ANALYSIS,
        "import polars as pl\npl.scan_parquet('events/*.parquet').group_by('day').agg(pl.len()).collect()",
        "import duckdb\nduckdb.sql(\"select day, count(*) from 'events/*.parquet' group by day\").df()",
        "from pyspark.sql import SparkSession\nspark = SparkSession.builder.master('local[1]').getOrCreate()",
        "import pyarrow.dataset as ds\nds.dataset('events', format='parquet').schema",
        "import ibis\nibis.duckdb.connect().read_parquet('events/*.parquet').count().execute()",
        "import xarray as xr\nimport zarr\nxr.open_zarr('store.zarr').temperature.mean().compute()",
    ],
)
def test_big_data_libraries_are_allowed_by_default(code: str) -> None:
    assert verify_code(code) == []
