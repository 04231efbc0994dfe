"""The bigger-than-memory notebook: a Dask cluster, 16 million events written as Parquet partitions by
the workers, and two `%%taskweaver` Rounds whose code stays lazy until one final `.compute()`.

Built here, like the quickstart, so `twnb demo --notebook bigger-than-memory` and
`notebooks/bigger-than-memory.ipynb` come from one source. The data is generated when the notebook
runs (nothing of it is stored in the repository).
"""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

from twnb.demo.demo_notebook import ASSETS, DemoNotebook, round_notebook

CASSETTE = ASSETS / "bigger_than_memory.cassette.yaml"
SCRIPTED_REPLIES = ASSETS / "bigger_than_memory_replies.yaml"
CONVERSATION_FILE = "bigger-than-memory-conversation.yaml"

REQUESTS = (
    "`events/` holds a year of sales events as Parquet, more than pandas should load at once. Using "
    "Dask on the connected cluster, how many events and how much revenue does each region have?",
    "Which days had unusually high revenue in a region? Flag each day whose revenue is more than 4 "
    "standard deviations above its region's daily mean.",
)

_INTRO = """\
# twnb with Dask: data bigger than memory

The data is a year of sales events, written below as Parquet partitions by the workers of a Dask
cluster: 16 million rows, about half a gigabyte as pandas frames (raise `PARTITIONS` for more; the
analysis does not change). The agent sees the lazy frames it works with by their **schema**: columns,
dtypes, partitions, never computed to describe them. It is told that Dask is here and a cluster is
connected, so its code stays lazy until one final `.compute()` that returns a small result.

> **Scripted replies.** As saved in the repository (and run by `twnb demo --notebook
> bigger-than-memory`), the LLM replies are **scripted**, replayed from a bundled cassette under the
> model name `twnb-scripted-demo`. The code in them really runs here, on the cluster.
"""

_CLUSTER_NOTE = """\
A cluster of two small workers inside this kernel; on a real cluster only this line changes
(`Client("tcp://scheduler:8786")`, or a Dask Gateway, Kubernetes or YARN cluster object):
"""

_CLUSTER_CELL = """\
from distributed import Client, LocalCluster

client = Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None))"""

_DATA_NOTE = """\
The dataset, generated lazily: each partition is made by a worker when it writes its Parquet file, so
the whole never sits in memory at once.
"""

_DATA_CELL = """\
import dask.dataframe as dd
import numpy as np
import pandas as pd

PARTITIONS = 32  # x 500,000 events
ROWS = 500_000
REGIONS = ["north", "south", "east", "west", "central"]


def make_events(part):
    \"\"\"One partition of synthetic sales events, with three planted surges.\"\"\"
    rng = np.random.default_rng(part)
    codes = rng.integers(0, len(REGIONS), ROWS)
    day = rng.integers(0, 365, ROWS)
    amount = rng.gamma(2.0, 12.5, ROWS).round(2)
    amount[(codes == 0) & ((day == 100) | (day == 250))] *= 3  # north
    amount[(codes == 2) & (day == 180)] *= 3  # east
    return pd.DataFrame({
        "event_id": part * ROWS + np.arange(ROWS),
        "day": day,
        "region": pd.Categorical.from_codes(codes, categories=REGIONS),
        "user_id": rng.integers(0, 1_000_000, ROWS),
        "amount": amount,
    })


dd.from_map(make_events, range(PARTITIONS)).to_parquet("events", write_index=False)"""

_OUTRO = """\
The conversation, saved as TaskWeaver-compatible YAML, and the list of Rounds:
"""


def build_bigger_than_memory_notebook() -> nbformat.NotebookNode:
    """The bigger-than-memory notebook, unexecuted."""
    opening = [
        new_markdown_cell(_INTRO),
        new_code_cell("%load_ext twnb"),
        new_markdown_cell(_CLUSTER_NOTE),
        new_code_cell(_CLUSTER_CELL),
        new_markdown_cell(_DATA_NOTE),
        new_code_cell(_DATA_CELL),
    ]
    return round_notebook(opening, REQUESTS, _OUTRO, CONVERSATION_FILE, closing=("client.close()",))


BIGGER_THAN_MEMORY = DemoNotebook(
    name="bigger-than-memory",
    notebook_file="bigger-than-memory.ipynb",
    build=build_bigger_than_memory_notebook,
    cassette=CASSETTE,
    scripted_replies=SCRIPTED_REPLIES,
    conversation_file=CONVERSATION_FILE,
    requires=("dask.dataframe", "distributed", "pyarrow"),
    install_hint='pip install "dask[dataframe]" distributed pyarrow',
)
