"""The runtime guard's overhead: the same code armed, and in a process without the guard at all.

Two worker processes of this Python run the same code on the same data, taking turns: one never
installs the guard (no audit hook in the process), the other arms it around every run as the
executor does (the audit hook, thread following, the library writers, the namespace kept and put
back, the run's files listed at the end), and also runs the code unarmed (the hook installed, as in
every kernel twnb ran code in, but not armed: what the user's own cells pay). Each worker times its
own runs (no pipe in the figure), in CPU time (steadier than wall time on a shared machine) and wall
time; medians over --repeat turns, and their ratios. Two processes differ by a few percent on their
own (memory layout): armed against unarmed in one process isolates what arming costs. Cases:

- pandas analysis: a 300,000-row sales table, three group-bys, two merges, a pivot, a matplotlib figure
  saved as PNG, the result written as CSV and Parquet (target: ratio <= 1.03);
- pure-Python loop: arithmetic, a dict and string formatting, no audit event at all;
- many small files: 2,000 files written one by one, an audit event each (the hook's worst case).

    python bench/bench_runtime_guard.py [--repeat 21]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SETUP = """
import numpy as np, pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rng = np.random.default_rng(0)
n = 300_000
sales = pd.DataFrame({
    "region": rng.choice(["north", "south", "east", "west"], n),
    "product": rng.integers(0, 500, n),
    "day": pd.to_datetime("2026-01-01") + pd.to_timedelta(rng.integers(0, 365, n), unit="D"),
    "units": rng.integers(1, 20, n),
    "price": rng.random(n) * 100,
})
products = pd.DataFrame({"product": range(500), "category": [f"c{i % 12}" for i in range(500)]})
regions = pd.DataFrame({"region": ["north", "south", "east", "west"], "manager": list("ABCD")})
"""

CASES = {
    "pandas analysis": """
sales["revenue"] = sales["units"] * sales["price"]
by_region = sales.groupby("region")["revenue"].sum()
by_month = sales.groupby([sales["day"].dt.month, "region"])["revenue"].agg(["sum", "mean", "count"])
joined = sales.merge(products, on="product").merge(regions, on="region")
by_category = joined.groupby(["category", "manager"])["revenue"].sum().reset_index()
pivot = by_category.pivot(index="category", columns="manager", values="revenue")
fig, ax = plt.subplots(figsize=(6, 4))
pivot.plot(kind="bar", ax=ax)
fig.savefig("revenue.png")
plt.close(fig)
by_category.to_csv("by_category.csv", index=False)
by_month.reset_index().to_parquet("by_month.parquet")
""",
    "pure-Python loop": """
counts = {}
total = 0
for i in range(600_000):
    key = f"k{i % 97}"
    counts[key] = counts.get(key, 0) + i % 7
    total += i * 3 % 11
""",
    "many small files": """
import os
os.makedirs("small", exist_ok=True)
for i in range(2000):
    with open(f"small/f{i:04}.txt", "w") as f:
        f.write("x")
""",
}

WORKER = """
import json, os, sys, time
guarded = sys.argv[1] == "guarded"
os.chdir(sys.argv[2])
namespace = {"__name__": "__main__"}
exec(compile(SETUP, "<setup>", "exec"), namespace)
if guarded:
    from twnb.kernel.guard.guard_files import written_files
    from twnb.kernel.guard.runtime_guard import GuardedRun, RuntimeGuard
    from twnb.kernel.guard.shell_guard import ShellGuard

    class Shell:
        user_ns = namespace
        user_ns_hidden = {}

    guard = RuntimeGuard.installed()
    keeper = ShellGuard.for_shell(Shell(), guard)
compiled = {name: compile(code, f"<{name}>", "exec") for name, code in CASES.items()}
for line in sys.stdin:
    mode, name = line.split(maxsplit=1)
    name = name.strip()
    started, cpu_started = time.perf_counter(), time.process_time()
    if mode == "armed":
        run = GuardedRun(code_namespace=namespace)
        with keeper.keeping(run), guard.watching(run):
            exec(compiled[name], namespace)
        written_files(run, workdirs=(os.getcwd(),))
        assert not run.refusals, run.refusals
    else:
        exec(compiled[name], namespace)
    print(json.dumps([time.process_time() - cpu_started, time.perf_counter() - started]), flush=True)
"""


def _worker(mode: str, folder: str) -> subprocess.Popen[str]:
    source = f"SETUP = {SETUP!r}\nCASES = {CASES!r}\n" + WORKER
    return subprocess.Popen(
        [sys.executable, "-c", source, mode, folder],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _time(worker: subprocess.Popen[str], mode: str, case: str) -> tuple[float, float]:
    """(CPU s, wall s) of one run of `case` in `worker`, `mode` "armed" or "unarmed"."""
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(f"{mode} {case}\n")
    worker.stdin.flush()
    cpu, wall = json.loads(worker.stdout.readline())
    return float(cpu), float(wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args()
    # In memory where there is such a folder: the disk's own jitter (a shared machine) would swamp the
    # small-files case, which is about the hook, not the disk.
    memory = "/dev/shm" if os.path.isdir("/dev/shm") else None
    folders = [
        tempfile.mkdtemp(prefix=f"twnb-bench-guard-{mode}-", dir=memory) for mode in ("plain", "guarded")
    ]
    print(f"working folders in {memory or tempfile.gettempdir()}; {args.repeat} turns each")
    workers = [_worker(mode, folder) for mode, folder in zip(("plain", "guarded"), folders, strict=True)]
    try:
        plain, guarded = workers
        runs = [(plain, "unarmed"), (guarded, "armed"), (guarded, "unarmed")]
        for case in CASES:
            for worker, mode in runs:  # warm-up: first imports, caches
                _time(worker, mode, case)
            samples: list[list[tuple[float, float]]] = [[], [], []]
            for turn in range(args.repeat):
                for index in [(turn + k) % 3 for k in range(3)]:  # each takes its turn first
                    samples[index].append(_time(*runs[index], case))
            (none_cpu, none_wall), (armed_cpu, armed_wall), (unarmed_cpu, _) = (
                (statistics.median(t[0] for t in times), statistics.median(t[1] for t in times))
                for times in samples
            )
            ms = {
                name: f"{value * 1000:.1f}"
                for name, value in locals().items()
                if name.endswith(("_cpu", "_wall"))
            }
            print(
                f"{case}: CPU without the guard {ms['none_cpu']} ms, armed {ms['armed_cpu']} ms, "
                f"ratio {armed_cpu / none_cpu:.3f} (wall {ms['none_wall']} / {ms['armed_wall']} ms, "
                f"ratio {armed_wall / none_wall:.3f}); in one process armed / unarmed "
                f"{ms['armed_cpu']} / {ms['unarmed_cpu']} ms CPU, ratio {armed_cpu / unarmed_cpu:.3f}"
            )
    finally:
        for worker in workers:
            assert worker.stdin is not None
            worker.stdin.close()
            worker.wait(timeout=30)
        for folder in folders:
            _remove_tree(folder)


def _remove_tree(folder: str) -> None:
    for root, dirs, files in os.walk(folder, topdown=False):
        for name in files:
            os.remove(os.path.join(root, name))
        for name in dirs:
            os.rmdir(os.path.join(root, name))
    os.rmdir(folder)


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"({time.perf_counter() - started:.0f} s)")
