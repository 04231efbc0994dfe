"""What README's "Confined kernels" promises libraries that start workers: in a confined kernel no new
Python starts (a `spawn` worker never runs), forking and threads work, Dask computes with its threaded
scheduler, and a Dask cluster the user started outside is reached through `confine_connect`.

Real confined kernels (tests/support/confined_kernel.py), a real Dask scheduler and worker.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.confined_kernel import ConfinedKernel, kernel_env, make_places, needs_landlock
from support.loopback_wait import wait_until_listening

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_a_spawned_worker_never_runs(confined: ConfinedKernel) -> None:
    """`spawn` starts a new Python: the worker's target (touching a file the kernel may write) never runs,
    and the worker ends with a failure (multiprocessing does not read why its exec failed)."""
    marker = confined.places.notebook / "spawned.txt"
    said = confined.run(
        "import multiprocessing as mp, pathlib\n"
        f"worker = mp.get_context('spawn').Process(target=pathlib.Path({str(marker)!r}).touch)\n"
        "worker.start(); worker.join(); print('exit', worker.exitcode)"
    )
    assert not marker.exists()
    assert said.split()[:1] == ["exit"] and said.split()[1] != "0", said


def test_a_forked_process_runs_and_answers_through_a_pipe(confined: ConfinedKernel) -> None:
    said = confined.run(
        "import multiprocessing as mp\n"
        "fork = mp.get_context('fork')\n"
        "def total(pipe): pipe.send(sum(range(10))); pipe.close()\n"
        "reader, writer = fork.Pipe(duplex=False)\n"
        "child = fork.Process(target=total, args=(writer,)); child.start()\n"
        "print('child sent', reader.recv()); child.join(); print('exit', child.exitcode)"
    )
    assert said.split() == ["child", "sent", "45", "exit", "0"], said


def test_a_thread_pool_runs(confined: ConfinedKernel) -> None:
    said = confined.run(
        "from concurrent.futures import ThreadPoolExecutor\n"
        "with ThreadPoolExecutor(2) as pool: print(list(pool.map(abs, [-1, -2, -3])))"
    )
    assert said.strip() == "[1, 2, 3]", said


def test_a_multiprocessing_lock_is_refused_naming_dev_shm_not_a_connection(
    confined: ConfinedKernel,
) -> None:
    reply = confined.error("import multiprocessing; multiprocessing.Lock()")
    said = "".join(reply["traceback"])
    assert "/dev/shm" in said and "confine_connect" not in said, said


def test_dask_computes_with_its_threaded_scheduler(confined: ConfinedKernel) -> None:
    said = confined.run(
        "import dask, dask.bag, dask.dataframe, pandas\n"
        "frame = dask.dataframe.from_pandas(pandas.DataFrame({'x': range(10)}), npartitions=2)\n"
        "print(frame.x.sum().compute())\n"
        "with dask.config.set(scheduler='threads'):\n"
        "    print(dask.bag.from_sequence([-1, -2, -3]).map(abs).sum().compute())"
    )
    assert said.split() == ["45", "6"], said


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def outside_cluster() -> Iterator[int]:
    """A Dask scheduler and one worker the user started outside the confinement; the scheduler's port."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--port", str(port), "--no-dashboard"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-dashboard"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_until_listening(port, scheduler, "the Dask scheduler")
    try:
        yield port
    finally:
        for process in (worker, scheduler):
            process.terminate()
            process.wait(20)


@needs_landlock
def test_a_dask_cluster_started_outside_is_reached_through_confine_connect(
    tmp_path: Path, outside_cluster: int
) -> None:
    places = make_places(tmp_path)
    env = kernel_env(places, TWNB_CONFINE_CONNECT=f"127.0.0.1:{outside_cluster}")
    kernel = ConfinedKernel(places, env)
    try:
        said = kernel.run(
            "from distributed import Client\n"
            f"with Client('tcp://127.0.0.1:{outside_cluster}', timeout=60) as client:\n"
            "    print(client.submit(abs, -5).result())"
        )
    finally:
        kernel.shutdown()
    assert said.strip() == "5", said
