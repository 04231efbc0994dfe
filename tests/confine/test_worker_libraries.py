"""What README's "Confined kernels" promises libraries that start workers: in a confined kernel no new
Python starts (`spawn` and `forkserver` workers never run, and starting one is refused with a line
naming the `fork` start method), forking works with multiprocessing's pools, queues and locks (their
semaphores live in the kernel's private /dev/shm, which no other process sees), threads work, Dask
computes with its threaded scheduler, and a Dask cluster the user started outside is reached through
`confine_connect`.

Real confined kernels (tests/support/confined_kernel.py), a real Dask scheduler and worker.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.confined_kernel import ConfinedKernel, kernel_env, make_places, needs_landlock
from support.loopback_wait import wait_until_listening

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

HOST_SHM = Path("/dev/shm")


def test_a_spawned_worker_never_runs_and_its_start_is_refused_naming_fork(confined: ConfinedKernel) -> None:
    """`spawn` starts a new Python: the worker's target (touching a file the kernel may write) never runs,
    and its start fails with the line that says to fork instead."""
    marker = confined.places.notebook / "spawned.txt"
    reply = confined.error(
        "import multiprocessing as mp, pathlib\n"
        f"worker = mp.get_context('spawn').Process(target=pathlib.Path({str(marker)!r}).touch)\n"
        "worker.start()"
    )
    said = "".join(reply["traceback"])
    assert "start a new Python" in said and 'get_context("fork")' in said, said
    assert not marker.exists()


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


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_a_pool_that_would_start_a_new_python_is_refused_naming_fork(
    confined: ConfinedKernel, method: str
) -> None:
    marker = confined.places.notebook / f"pooled-{method}.txt"
    reply = confined.error(
        f"import multiprocessing as mp, pathlib\nwith mp.get_context({method!r}).Pool(1) as pool:\n"
        f"    pool.apply(pathlib.Path({str(marker)!r}).touch)"
    )
    said = "".join(reply["traceback"])
    assert "start a new Python" in said and 'get_context("fork")' in said, said
    assert not marker.exists()


def test_a_spawn_is_refused_naming_fork_also_where_children_are_reaped_unasked(
    confined: ConfinedKernel,
) -> None:
    reply = confined.error(
        "import multiprocessing as mp, signal\n"
        "before = signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n"
        "try: mp.get_context('spawn').Lock()\n"
        "finally: signal.signal(signal.SIGCHLD, before)"
    )
    said = "".join(reply["traceback"])
    assert 'get_context("fork")' in said, said


def test_shared_memory_is_refused_naming_its_resource_tracker(confined: ConfinedKernel) -> None:
    """SharedMemory registers its segment with the resource tracker, a new Python, whatever the start
    method (Python 3.13's `track=False` skips it)."""
    reply = confined.error(
        "from multiprocessing import shared_memory\nshared_memory.SharedMemory(create=True, size=64)"
    )
    said = "".join(reply["traceback"])
    assert "resource tracker behind those and `SharedMemory`" in said, said


def test_a_fork_pool_computes_a_result(confined: ConfinedKernel) -> None:
    said = confined.run(
        "import multiprocessing as mp\n"
        "with mp.get_context('fork').Pool(2) as pool: print(pool.map(abs, [-1, -2, -3]))"
    )
    assert said.strip() == "[1, 2, 3]", said


def test_multiprocessings_thread_pool_runs(confined: ConfinedKernel) -> None:
    said = confined.run(
        "from multiprocessing.pool import ThreadPool\n"
        "with ThreadPool(2) as pool: print(pool.map(abs, [-1, -2, -3]))"
    )
    assert said.strip() == "[1, 2, 3]", said


def test_a_forked_process_answers_through_a_queue_under_a_lock(confined: ConfinedKernel) -> None:
    said = confined.run(
        "import multiprocessing as mp\n"
        "fork = mp.get_context('fork')\n"
        "def total(queue, lock):\n"
        "    with lock: queue.put(sum(range(10)))\n"
        "queue, lock = fork.Queue(), fork.Lock()\n"
        "child = fork.Process(target=total, args=(queue, lock)); child.start()\n"
        "print('child sent', queue.get(timeout=30)); child.join(); print('exit', child.exitcode)"
    )
    assert said.split() == ["child", "sent", "45", "exit", "0"], said


def test_a_fork_process_pool_executor_computes_a_result(confined: ConfinedKernel) -> None:
    said = confined.run(
        "import multiprocessing as mp\nfrom concurrent.futures import ProcessPoolExecutor\n"
        "with ProcessPoolExecutor(2, mp_context=mp.get_context('fork')) as pool:\n"
        "    print(list(pool.map(abs, [-1, -2, -3])))"
    )
    assert said.strip() == "[1, 2, 3]", said


@pytest.mark.parametrize("make", ["mp.Manager()", "mp.get_context('fork').Manager()"])
def test_a_manager_is_refused_at_once_in_one_line_naming_what_works(
    confined: ConfinedKernel, make: str
) -> None:
    """Its server process would listen on a UNIX socket, which seccomp refuses: the start is refused in
    the kernel, before any server is forked (no bare EOFError from a server that died unseen)."""
    children = "len(open(f'/proc/{os.getpid()}/task/{os.getpid()}/children').read().split())"
    reply = confined.error(f"import multiprocessing as mp, os\nbefore = {children}\nmanager = {make}")
    said = "".join(reply["traceback"])
    assert (reply["ename"], "Manager serves its objects" in said, "`fork` context's Queue" in said) == (
        "ManagerRefusedError",
        True,
        True,
    ), said
    assert confined.value(children) == confined.value("before")


# made and started by hand, as a script or a library does, instead of through `Manager()`
_BY_HAND = {
    "SyncManager": "from multiprocessing.managers import SyncManager\nmanager = SyncManager()",
    "BaseManager subclass": (
        "from multiprocessing.managers import BaseManager\n"
        "class Shared(BaseManager): pass\n"
        "Shared.register('table', dict)\n"
        "manager = Shared()"
    ),
    "on a TCP address": (
        "from multiprocessing.managers import SyncManager\n"
        "manager = SyncManager(address=('127.0.0.1', 0), authkey=b'shared')"
    ),
}


@pytest.mark.parametrize("made", list(_BY_HAND.values()), ids=list(_BY_HAND))
def test_a_manager_made_by_hand_is_refused_at_its_start_in_the_same_line(
    confined: ConfinedKernel, made: str
) -> None:
    """Not a bare EOFError from a server that died unseen: refused before any server is forked."""
    children = "len(open(f'/proc/{os.getpid()}/task/{os.getpid()}/children').read().split())"
    reply = confined.error(f"import os\n{made}\nbefore = {children}\nmanager.start()")
    said = "".join(reply["traceback"])
    assert (reply["ename"], "Manager serves its objects" in said, "`fork` context's Queue" in said) == (
        "ManagerRefusedError",
        True,
        True,
    ), said
    assert confined.value(children) == confined.value("before")


def test_a_confined_kernel_starts_without_loading_multiprocessing_managers(tmp_path: Path) -> None:
    """The Managers' start is wrapped when their module is first imported, not at the kernel's start
    (its imports cost about 6 ms)."""
    places = make_places(tmp_path)
    kernel = ConfinedKernel(places, kernel_env(places))
    try:
        loaded = kernel.value("'multiprocessing.managers' in __import__('sys').modules")
    finally:
        kernel.shutdown()
    assert loaded is False


def test_what_a_manager_would_share_works_through_a_fork_contexts_value_array_and_queue(
    confined: ConfinedKernel,
) -> None:
    said = confined.run(
        "import multiprocessing as mp\n"
        "fork = mp.get_context('fork')\n"
        "count, cells, answers = fork.Value('i', 0), fork.Array('d', 3), fork.Queue()\n"
        "def work(count, cells, answers): count.value = 7; cells[1] = 2.5; answers.put('done')\n"
        "child = fork.Process(target=work, args=(count, cells, answers)); child.start()\n"
        "print(answers.get(timeout=30)); child.join(); print(count.value, cells[:], child.exitcode)"
    )
    assert said.split() == ["done", "7", "[0.0,", "2.5,", "0.0]", "0"], said


def test_what_the_kernel_makes_in_dev_shm_is_not_in_the_hosts(confined: ConfinedKernel) -> None:
    name = f"twnb-kernel-made-{uuid.uuid4().hex}"
    made = confined.run(
        f"import os\nopen('/dev/shm/{name}', 'w').write('from the kernel')\n"
        f"print(os.path.exists('/dev/shm/{name}'))"
    )
    assert made.strip() == "True", made
    assert not (HOST_SHM / name).exists()


def test_the_hosts_dev_shm_is_not_seen_by_the_kernel(confined: ConfinedKernel) -> None:
    host_file = HOST_SHM / f"twnb-host-made-{uuid.uuid4().hex}"
    host_file.write_text("another process's shared memory")
    try:
        seen = confined.run(f"import os; print(os.path.exists({str(host_file)!r}))")
    finally:
        host_file.unlink()
    assert seen.strip() == "False", seen


def test_the_kernels_dev_shm_is_capped(confined: ConfinedKernel) -> None:
    size = confined.value("(lambda s: s.f_blocks * s.f_frsize)(__import__('os').statvfs('/dev/shm'))")
    assert size == 1 << 30


def test_dask_computes_with_its_threaded_scheduler(confined: ConfinedKernel) -> None:
    said = confined.run(
        "import dask, dask.bag, dask.dataframe, pandas\n"
        "frame = dask.dataframe.from_pandas(pandas.DataFrame({'x': range(10)}), npartitions=2)\n"
        "print(frame.x.sum().compute())\n"
        "with dask.config.set(scheduler='threads'):\n"
        "    print(dask.bag.from_sequence([-1, -2, -3]).map(abs).sum().compute())"
    )
    assert said.split() == ["45", "6"], said


@pytest.fixture
def outside_cluster(tmp_path: Path) -> Iterator[int]:
    """A Dask scheduler and one worker the user started outside the confinement; the scheduler's port.
    The scheduler binds a port of its own choosing (`--port 0`) and writes its address to its
    scheduler file: a port found free here could be taken by another process before it binds."""
    scheduler_file = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen(
        [
            sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
            "--no-dashboard", "--scheduler-file", str(scheduler_file),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    worker = None
    try:
        address = _scheduler_address(scheduler_file, scheduler)
        worker = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file", str(scheduler_file),
             "--nthreads", "1", "--no-dashboard"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        port = int(address.rsplit(":", 1)[1])
        wait_until_listening(port, scheduler, "the Dask scheduler")
        yield port
    finally:
        for process in (worker, scheduler):
            if process is not None:
                process.terminate()
                process.wait(20)


def _scheduler_address(scheduler_file: Path, scheduler: subprocess.Popen[bytes]) -> str:
    """The `tcp://127.0.0.1:PORT` the scheduler wrote once listening (read again while absent or
    half-written)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            return str(json.loads(scheduler_file.read_text())["address"])
        except (OSError, ValueError, KeyError):
            assert scheduler.poll() is None and time.monotonic() < deadline, (
                "the Dask scheduler did not start"
            )
            time.sleep(0.2)  # polling the file, not waiting a guessed time


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
