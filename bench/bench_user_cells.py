"""What recording the user's own cells costs each cell, and the first cell after `%load_ext twnb`.

    python bench/bench_user_cells.py [--cells 200]

Each figure in a fresh subprocess holding a real InteractiveShell (as a kernel does), with and without
`%load_ext twnb`, taking turns: the first cell after the load (the recorder is imported there, not at
the load), and the median of `--cells` cells run as a frontend runs them (`store_history=True`) in a
namespace of 100 plain variables, and of 1,000 plus 100 pandas DataFrames; each beside its figure
without twnb and the difference in ms (what a cell pays to be recorded: two looks at the namespace at
most, one when nothing else ran since the previous cell).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_RUN = """
import statistics, sys, time
sys.path.insert(0, {root!r})
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
if {load}:
    ip.run_line_magic("load_ext", "twnb")
started = time.perf_counter()
ip.run_cell("x = 1", store_history=True)
first = time.perf_counter() - started
import pandas as pd
ip.user_ns.update({{f"v{{i}}": i for i in range({plain})}})
ip.user_ns.update({{f"df{{i}}": pd.DataFrame({{"a": [1, 2]}}) for i in range({frames})}})
times = []
for _ in range({cells}):
    started = time.perf_counter()
    ip.run_cell("y = x + 1", store_history=True)
    times.append(time.perf_counter() - started)
print(first * 1000, statistics.median(times) * 1000)
"""


def measure(load: bool, plain: int, frames: int, cells: int) -> tuple[float, float]:
    code = _RUN.format(root=str(ROOT), load=load, plain=plain, frames=frames, cells=cells)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    first, median = (float(value) for value in done.stdout.split())
    return first, median


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cells", type=int, default=200)
    args = parser.parse_args()
    for plain, frames in ((100, 0), (1000, 100)):
        without = measure(False, plain, frames, args.cells)
        with_twnb = measure(True, plain, frames, args.cells)
        print(
            f"{plain:5d} variables, {frames:3d} DataFrames: a cell {without[1]:.3f} ms without twnb, "
            f"{with_twnb[1]:.3f} ms recorded (+{with_twnb[1] - without[1]:.3f} ms); first cell after the "
            f"load {with_twnb[0]:.1f} ms (without twnb {without[0]:.1f} ms)"
        )


if __name__ == "__main__":
    main()
