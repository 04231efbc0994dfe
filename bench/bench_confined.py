"""The confined kernel's cost, side by side with a plain kernel of this Python, in one run:

- the pandas analysis of bench_runtime_guard.py, run in a confined and a plain kernel taking turns,
  timed inside each kernel (CPU and wall time; target: ratio <= 1.03);
- kernel start-up, from start to the first answered request (target: confined <= plain + 150 ms), for
  both ways a confined kernel starts: from the `twnb-confined` kernelspec (Jupyter starts it: the
  launcher resolves the settings itself) and as twnb's own kernels start it (KernelExecutor, the batch
  commands: the starter resolves the settings, timed here too, and passes them in), wall time and
  the CPU each way used (the kernel process's, and the starter's resolving), side by side with the
  ratios: the CPU column is the one a machine loaded by other work does not stretch;
- a streamed model call through the key proxy against the same call made directly, to the loopback
  fake server (tests/fakellm), the proxy in a process of its own as the launcher runs it
  (target: <= +5 ms per call).

    python bench/bench_confined.py [--repeat 9] [--starts 5] [--calls 40] [--starts-only]
"""

from __future__ import annotations

import argparse
import ast
import importlib
import os
import resource
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_runtime_guard import CASES, SETUP
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import KernelManager
from private_state import use_private_state

from twnb.confine import confined_kernel_spec, confined_launch
from twnb.confine.key_proxy import KeyProxyServer
from twnb.confine.upstream import Upstream

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))


PLAIN, KERNELSPEC, STARTER = "plain", "confined (kernelspec)", "confined (twnb's own)"


class _Specs(KernelSpecManager):
    def __init__(self, mode: str, argv: list[str] | None = None) -> None:
        super().__init__()
        self.mode = mode
        self.argv = argv

    def find_kernel_specs(self) -> dict[str, str]:
        return {"bench": ""}

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        from ipykernel.kernelspec import get_kernel_dict

        spec = confined_kernel_spec() if self.mode != PLAIN else get_kernel_dict()
        if self.argv is not None:
            spec["argv"] = self.argv
        return KernelSpec(resource_dir="", **spec)


class _Kernel:
    def __init__(self, confined: str | bool, folder: str) -> None:
        mode = confined if isinstance(confined, str) else (KERNELSPEC if confined else PLAIN)
        started = time.perf_counter()
        env = {**os.environ, "MPLBACKEND": "Agg"}
        argv = None
        self.starter_cpu_s = 0.0  # what starting it costs this process besides jupyter_client's work
        if mode == STARTER:  # as KernelExecutor starts it: the settings resolved here, then passed in
            cpu_before = time.process_time()
            launch = confined_launch(Path(folder), env)
            env, argv = launch.environment(env), launch.argv
            self.starter_cpu_s = time.process_time() - cpu_before
        self.km = KernelManager(kernel_name="bench", kernel_spec_manager=_Specs(mode, argv))
        self.km.start_kernel(cwd=folder, env=env)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=120)
        self.value("1")
        self.start_s = time.perf_counter() - started

    def value(self, expression: str, code: str = "") -> Any:
        reply = self.kc.execute_interactive(code, user_expressions={"v": expression}, timeout=600)
        content = reply["content"]
        assert content["status"] == "ok", content
        return ast.literal_eval(content["user_expressions"]["v"]["data"]["text/plain"])

    def time_case(self, code: str) -> tuple[float, float]:
        timed = (
            "import time as __t\n__c, __w = __t.process_time(), __t.perf_counter()\n"
            f"exec({code!r})\n__times = (__t.process_time() - __c, __t.perf_counter() - __w)"
        )
        result: tuple[float, float] = self.value("__times", timed)
        return result

    def shutdown(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _starts(count: int, folder: str) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each way's start-up (wall) and the CPU its kernel process used from start to end (reaped at
    shutdown: launcher, first stage and ipykernel, one process exec'd twice) plus the starter's own
    (resolving the settings), which a loaded machine does not stretch as it stretches the wall time."""
    times: dict[str, list[float]] = {PLAIN: [], KERNELSPEC: [], STARTER: []}
    cpu: dict[str, list[float]] = {mode: [] for mode in times}
    for _ in range(count):
        for mode in times:  # taking turns: a load that comes and goes weighs on each alike
            before = _children_cpu_s()
            kernel = _Kernel(mode, folder)
            times[mode].append(kernel.start_s)
            kernel.shutdown()
            cpu[mode].append(_children_cpu_s() - before + kernel.starter_cpu_s)
    return times, cpu


def _analysis(repeat: int, folder: str) -> dict[bool, list[tuple[float, float]]]:
    kernels = {confined: _Kernel(confined, tempfile.mkdtemp(dir=folder)) for confined in (False, True)}
    try:
        for kernel in kernels.values():
            kernel.value("1", SETUP)
            kernel.time_case(CASES["pandas analysis"])  # warm: imports, caches
        runs: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
        for _ in range(repeat):
            for confined, kernel in kernels.items():
                runs[confined].append(kernel.time_case(CASES["pandas analysis"]))
        return runs
    finally:
        for kernel in kernels.values():
            kernel.shutdown()


def _llm_calls(calls: int) -> dict[str, list[float]]:
    from openai import OpenAI

    server = importlib.import_module("fakellm.server").FakeLLMServer()
    server.start()
    proxy = KeyProxyServer(Upstream(server.base_url, "sk-bench-key-0123456789abcdef"))
    child = os.fork()
    if child == 0:  # the proxy runs in a process of its own, as the launcher forks it
        try:
            proxy.serve_forever()
        finally:
            os._exit(0)
    proxy.socket.close()
    try:
        clients = {
            "direct": OpenAI(api_key="sk-bench-key-0123456789abcdef", base_url=server.base_url),
            "proxy": OpenAI(api_key="placeholder", base_url=proxy.proxy_url()),
        }
        server.load({"*": ["one two three four five six seven eight nine ten"] * (calls * 2 + 4)})
        times: dict[str, list[float]] = {name: [] for name in clients}
        for turn in range(calls + 2):
            for name, client in clients.items():
                started = time.perf_counter()
                stream = client.chat.completions.create(
                    model="fake-model", messages=[{"role": "user", "content": "hi"}], stream=True
                )
                text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
                assert text.startswith("one two"), text
                if turn >= 2:  # the first calls open the connections
                    times[name].append(time.perf_counter() - started)
        return times
    finally:
        os.kill(child, signal.SIGTERM)
        os.waitpid(child, 0)
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--starts-only", action="store_true", help="measure kernel start-up alone")
    args = parser.parse_args()
    use_private_state()  # the confined kernels' quarantine records: not in the user's state folder
    med = statistics.median
    with tempfile.TemporaryDirectory(prefix="bench-confined-") as folder:
        if not args.starts_only:
            _print_analysis(_analysis(args.repeat, folder), args.repeat)
        starts, cpu = _starts(args.starts, folder)
        _print_starts(starts, cpu, args.starts)
    if args.starts_only:
        return
    calls = _llm_calls(args.calls)
    direct, proxied = med(calls["direct"]), med(calls["proxy"])
    print(
        f"streamed model call ({args.calls} each), median ms  direct {direct * 1000:.2f}  proxy "
        f"{proxied * 1000:.2f}   +{(proxied - direct) * 1000:.2f} ms (target <= +5 ms)"
    )


def _print_starts(starts: dict[str, list[float]], cpu: dict[str, list[float]], count: int) -> None:
    med = statistics.median
    plain, plain_cpu = med(starts[PLAIN]), med(cpu[PLAIN])
    print(f"kernel start-up ({count} each, taking turns), median   wall s   ratio    kernel's CPU s   ratio")
    print(f"  {PLAIN:45} {plain:7.3f}            {plain_cpu:7.3f}")
    for mode in (KERNELSPEC, STARTER):
        wall, used = med(starts[mode]), med(cpu[mode])
        extra_wall, extra_cpu = (wall - plain) * 1000, (used - plain_cpu) * 1000
        print(
            f"  {mode:45} {wall:7.3f}   {wall / plain:5.2f}    {used:7.3f}          {used / plain_cpu:5.2f}"
            f"   wall {extra_wall:+.0f} ms (target <= +150 ms), CPU {extra_cpu:+.0f} ms"
        )


def _print_analysis(runs: dict[bool, list[tuple[float, float]]], repeat: int) -> None:
    med = statistics.median
    cpu = [med(t[0] for t in runs[c]) for c in (False, True)]
    wall = [med(t[1] for t in runs[c]) for c in (False, True)]
    print(f"pandas analysis ({repeat} turns), median   plain    confined   ratio (target <= 1.03)")
    print(f"  CPU  s                                   {cpu[0]:7.3f}  {cpu[1]:9.3f}   {cpu[1] / cpu[0]:.3f}")
    print(f"  wall s{' ' * 35}{wall[0]:7.3f}  {wall[1]:9.3f}   {wall[1] / wall[0]:.3f}")


if __name__ == "__main__":
    main()
