"""What lazy frames add to the namespace summary: nothing computed, about nothing in time.

Builds a namespace of 50 eager pandas frames (10,000 rows x 8 columns each), then adds a Dask frame of
10,000 partitions (each partition function appends to a counter file when it runs) and a lazy Polars
scan of a Parquet dataset written for the run (40 files, 4 million rows; its batch function appends to
the same counter). Prints the summary's time with and without the lazy frames (best of 9), their
ratio (~1 is the goal), the lazy frames' lines, and the counter (0 means no partition and no batch was
computed).

    python bench/bench_namespace_lazy.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import dask.dataframe as dd
import numpy as np
import pandas as pd
import polars as pl

from twnb.kernel.namespace.namespace_summary import summarize_namespace

REPEATS = 9
PARTITIONS = 10_000
PARQUET_FILES = 40
ROWS_PER_FILE = 100_000
EAGER_FRAMES = 50


def _mark(counter: Path) -> None:
    with counter.open("a") as file:
        file.write("computed\n")


def _partition(number: int, counter: str) -> pd.DataFrame:
    _mark(Path(counter))
    return pd.DataFrame({"user": [f"u{number}"], "amount": [float(number)]})


def dask_frame(counter: Path):
    meta = pd.DataFrame({"user": pd.Series([], dtype="str"), "amount": pd.Series([], dtype="float64")})
    return dd.from_map(
        _partition, range(PARTITIONS), counter=str(counter), meta=meta, divisions=[None] * (PARTITIONS + 1)
    )


def parquet_scan(folder: Path, counter: Path) -> pl.LazyFrame:
    rng = np.random.default_rng(0)
    for number in range(PARQUET_FILES):
        pl.DataFrame(
            {
                "day": rng.integers(0, 365, ROWS_PER_FILE),
                "store": rng.integers(0, 50, ROWS_PER_FILE),
                "amount": rng.random(ROWS_PER_FILE),
            }
        ).write_parquet(folder / f"part-{number:03d}.parquet")

    def batch(frame: pl.DataFrame) -> pl.DataFrame:
        _mark(counter)
        return frame

    return pl.scan_parquet(folder / "*.parquet").map_batches(batch)


def eager_frames() -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(1)
    return {
        f"frame_{i}": pd.DataFrame(rng.random((10_000, 8)), columns=[f"c{j}" for j in range(8)])
        for i in range(EAGER_FRAMES)
    }


def best_of(namespace: dict[str, object]) -> tuple[float, str]:
    times = []
    text = ""
    for _ in range(REPEATS):
        start = time.perf_counter()
        text = summarize_namespace(namespace, max_chars=100_000)
        times.append(time.perf_counter() - start)
    return min(times), text


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        counter = folder / "computed.txt"
        eager = eager_frames()
        lazy = {"events": dask_frame(counter), "scan": parquet_scan(folder, counter)}
        rows = PARQUET_FILES * ROWS_PER_FILE
        size_mb = sum(p.stat().st_size for p in folder.glob("*.parquet")) / 1e6

        eager_only, _ = best_of(eager)
        with_lazy, text = best_of({**eager, **lazy})
        computed = len(counter.read_text().splitlines()) if counter.exists() else 0

    print(f"namespace summary, best of {REPEATS}:")
    print(f"  {EAGER_FRAMES} eager pandas frames:                              {eager_only * 1000:7.1f} ms")
    print(
        f"  the same + Dask ({PARTITIONS:,} partitions) + Polars scan:   {with_lazy * 1000:7.1f} ms"
        f"   ({PARQUET_FILES} Parquet files, {rows:,} rows, {size_mb:.0f} MB)"
    )
    print(f"  ratio: {with_lazy / eager_only:.2f}")
    for line in text.splitlines():
        if line.startswith(("- events:", "- scan:")):
            print(f"  {line}")
    print(f"  partitions or batches computed: {computed}")


if __name__ == "__main__":
    main()
