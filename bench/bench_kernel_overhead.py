"""Overhead of LiveShellExecutor.run over a bare shell.run_cell of the same code.

Both run in one IPython InteractiveShell (inline matplotlib backend, so a figure is published as a PNG
display exactly as in a notebook) with a working directory of 200 files, so the before/after scan,
the variable delta, output capture and image saving are all included. Median of --repeat runs,
the two runners interleaved.

    python bench/bench_kernel_overhead.py [--repeat 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from IPython.core.interactiveshell import InteractiveShell

from twnb.kernel import LiveShellExecutor

CASES = {
    "trivial code": "bench_x = sum(range(100))\nbench_x",
    "matplotlib figure": ("fig, ax = plt.subplots(figsize=(4, 3))\nax.plot(range(100))\nplt.show()"),
}


def _medians_s(runs, code: str, repeat: int) -> list[float]:
    """Median time of each runner, their samples interleaved so drift (caches, figure counts) hits both."""
    samples: list[list[float]] = [[] for _ in runs]
    for _ in range(repeat):
        for run, times in zip(runs, samples, strict=True):
            started = time.perf_counter()
            run(code)
            times.append(time.perf_counter() - started)
    return [statistics.median(times) for times in samples]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="twnb-bench-overhead-"))
    for i in range(200):
        (workdir / f"existing-{i:03}.txt").write_text("x")
    os.chdir(workdir)
    shell = InteractiveShell.instance()
    shell.run_cell(
        "import matplotlib\nmatplotlib.use('module://matplotlib_inline.backend_inline')\n"
        "import matplotlib.pyplot as plt",
        store_history=False,
    )
    executor = LiveShellExecutor(shell, workdir, workdir / ".artifacts", session_dir=workdir / ".twnb")
    real_stdout = sys.stdout
    devnull = open(os.devnull, "w")  # noqa: SIM115 - the shells print; the figures go to real stdout
    for label, code in CASES.items():
        sys.stdout = devnull
        try:
            shell.run_cell(code, store_history=False)  # warm-up
            executor.run(code)
            bare, live = _medians_s(
                [lambda c: shell.run_cell(c, store_history=False), executor.run], code, args.repeat
            )
        finally:
            sys.stdout = real_stdout
        print(
            f"{label}: bare run_cell {bare * 1000:.2f} ms, LiveShellExecutor.run {live * 1000:.2f} ms, "
            f"overhead {(live - bare) * 1000:.2f} ms, ratio {live / bare:.2f}x"
        )
    devnull.close()


if __name__ == "__main__":
    main()
