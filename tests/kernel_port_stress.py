"""Start many kernels at once in several processes and count the starts that fail, by cause.

Not a test (too slow for the suite): the proof behind the choice of transport for the kernels twnb and
its tests start. Over TCP, jupyter_client picks each of a kernel's five ports by binding port 0 and
closing the socket; the kernel binds them a second or so later. In between, another process (a second
pytest-xdist worker starting its own kernel, a loopback server, an outgoing connection) can be handed
the same port, and the kernel fails at start on ZMQ's "Address already in use" (and may hang rather
than exit). Over `ipc` the channels are UNIX sockets at paths no one else picks. `confined`: the
confined kernel, which keeps TCP, started by tests/support/confined_kernel.py, which retries that one
failure.

    export PYTHONPATH=$PWD:$PWD/tests  # from the repository's root: its twnb and tests/support
    python tests/kernel_port_stress.py --transport tcp --processes 2 --kernels 15 --concurrent 3
    python tests/kernel_port_stress.py --transport ipc --processes 2 --kernels 15 --concurrent 3

`--port-range LOW HIGH` runs it in a private network namespace (`unshare -rn`, so no other process on
the machine is affected) whose ephemeral ports are only LOW..HIGH: the same race, met more often.
Prints one line per process and a total: starts, ready, failed on "Address already in use", other.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

IN_USE = "Address already in use"


async def _start_one(transport: str, folder: Path, index: int) -> str:
    from jupyter_client.manager import AsyncKernelManager

    from twnb.kernel import AsyncUnixSocketKernelManager
    from twnb.kernel.separate.this_python import KERNEL_NAME, ThisPythonKernelSpecs

    stderr_path = folder / f"kernel-{index}.stderr"
    manager = AsyncUnixSocketKernelManager if transport == "ipc" else AsyncKernelManager
    km = manager(kernel_name=KERNEL_NAME, kernel_spec_manager=ThisPythonKernelSpecs())
    try:
        with stderr_path.open("w") as stderr:
            await km.start_kernel(cwd=str(folder), stderr=stderr)
        kc = km.client()
        kc.start_channels()
        try:
            # a kernel that failed to bind does not always exit: its stderr says so at once
            ready = asyncio.ensure_future(kc.wait_for_ready(timeout=60))
            while not ready.done():
                if IN_USE in stderr_path.read_text(errors="replace"):
                    ready.cancel()
                    return "in_use"
                await asyncio.wait([ready], timeout=0.2)
            await ready
        finally:
            kc.stop_channels()
        return "ready"
    except Exception as error:  # counted by cause, below
        said = stderr_path.read_text(errors="replace") + str(error)
        return "in_use" if IN_USE in said else f"other: {type(error).__name__}: {str(error)[:200]}"
    finally:
        if km.has_kernel:
            await km.shutdown_kernel(now=True)


def _start_confined(folder: Path, index: int) -> str:
    """A confined kernel (TCP: it is refused UNIX sockets) as the tests start it, which retries a start
    that lost a port: "ready" or "ready after N lost ports"."""
    from support.confined_kernel import ConfinedKernel, kernel_env, make_places

    places = make_places(folder / f"confined-{index}")
    try:
        kernel = ConfinedKernel(places, kernel_env(places))
    except RuntimeError as error:
        return "in_use" if IN_USE in str(error) else f"other: {str(error)[:300]}"
    kernel.shutdown()
    return "ready" if kernel.ports_lost == 0 else f"ready after {kernel.ports_lost} lost ports"


async def _run(transport: str, kernels: int, concurrent: int, folder: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    gate = asyncio.Semaphore(concurrent)

    async def one(index: int) -> None:
        async with gate:
            if transport == "confined":
                outcome = await asyncio.to_thread(_start_confined, folder, index)
            else:
                outcome = await _start_one(transport, folder, index)
        key = outcome if outcome in ("ready", "in_use") or outcome.startswith("ready ") else "other"
        counts[key] = counts.get(key, 0) + 1
        if key == "other":
            print(f"  pid {os.getpid()} kernel {index}: {outcome}", flush=True)

    await asyncio.gather(*(one(i) for i in range(kernels)))
    return counts


def _process(transport: str, kernels: int, concurrent: int, results: multiprocessing.Queue) -> None:
    folder = Path(tempfile.mkdtemp(prefix="kps-"))  # short: a UNIX socket's path is at most 107 bytes
    try:
        results.put((os.getpid(), asyncio.run(_run(transport, kernels, concurrent, folder))))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transport", choices=("tcp", "ipc", "confined"), required=True)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--kernels", type=int, default=40, help="kernel starts per process")
    parser.add_argument("--concurrent", type=int, default=4, help="starts under way at once per process")
    parser.add_argument("--port-range", type=int, nargs=2, metavar=("LOW", "HIGH"))
    args = parser.parse_args()
    if args.port_range and os.environ.get("KPS_IN_NAMESPACE") != "1":
        low, high = args.port_range
        inner = [sys.executable, *sys.argv]
        script = (
            f"echo '{low} {high}' > /proc/sys/net/ipv4/ip_local_port_range && ip link set lo up && "
            'exec "$@"'
        )
        env = {**os.environ, "KPS_IN_NAMESPACE": "1"}
        sys.exit(subprocess.call(["unshare", "-rn", "sh", "-c", script, "sh", *inner], env=env))
    ephemeral = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
    print(
        f"transport {args.transport}, {args.processes} processes x {args.kernels} kernels "
        f"({args.concurrent} at once), ephemeral ports {ephemeral[0]}-{ephemeral[1]}",
        flush=True,
    )
    results: multiprocessing.Queue = multiprocessing.Queue()
    workers = [
        multiprocessing.Process(
            target=_process, args=(args.transport, args.kernels, args.concurrent, results)
        )
        for _ in range(args.processes)
    ]
    for worker in workers:
        worker.start()
    total: dict[str, int] = {}
    for _ in workers:
        pid, counts = results.get()
        print(f"process {pid}: {counts}", flush=True)
        for key, value in counts.items():
            total[key] = total.get(key, 0) + value
    for worker in workers:
        worker.join()
    starts = args.processes * args.kernels
    retried = {k: v for k, v in total.items() if k.startswith("ready ")}
    print(
        f"TOTAL {args.transport}: starts {starts}, ready {total.get('ready', 0)}, "
        f"address in use {total.get('in_use', 0)}, other {total.get('other', 0)}"
        + (f", {retried}" if retried else ""),
        flush=True,
    )


if __name__ == "__main__":
    main()
