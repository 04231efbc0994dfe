"""The prompt names the big-data libraries this kernel has, once the user imported one of them.

Each case runs in a fresh interpreter: what is imported is the point, and pytest's own process has
imported everything by now.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("dask")
pytest.importorskip("polars")


def _summary_after(setup: str) -> str:
    code = setup + "\nfrom twnb.kernel import summarize_namespace\nprint(summarize_namespace({'n': 1}))\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_pandas_kernel_gets_no_library_lines():
    summary = _summary_after("import pandas")  # pandas imports pyarrow itself: that is no reason
    assert "Libraries for data bigger than memory" not in summary
    assert summary.strip() == "Variables in the kernel:\n- n: int = 1"


def test_importing_polars_lists_the_installed_libraries():
    summary = _summary_after("import polars")
    assert "Libraries for data bigger than memory in this kernel (verification allows them):" in summary
    installed = summary.split("- installed: ")[1].splitlines()[0].split(", ")
    assert "polars (imported)" in installed and "dask" in installed
    assert "Dask:" not in summary  # said only once dask is imported


def test_dask_without_a_client_says_it_computes_in_the_kernel():
    summary = _summary_after("import dask.dataframe")
    assert "- Dask: no distributed Client is connected; dask computes on this kernel's threads." in summary


def test_a_connected_dask_client_is_named_with_its_workers():
    pytest.importorskip("distributed")
    summary = _summary_after(
        "from distributed import Client, LocalCluster\n"
        "client = Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=False,"
        " dashboard_address=None))"
    )
    assert (
        "- Dask: a distributed Client is connected (2 workers, 2 threads); .compute() and .persist() run"
        in summary
    )


def test_a_dask_client_and_its_cluster_are_described_by_their_workers_not_their_addresses():
    pytest.importorskip("distributed")
    summary = _summary_after(
        "from distributed import Client, LocalCluster\n"
        "cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)\n"
        "client = Client(cluster)\n"
        "import twnb.kernel as k\n"
        "print(k.summarize_namespace({'cluster': cluster, 'client': client}, describe_libraries=False))\n"
    )
    assert (
        "- cluster: distributed.LocalCluster (2 workers)\n"
        "- client: distributed.Client (connected: 2 workers, 2 threads)"
    ) in summary
    assert "inproc://" not in summary
