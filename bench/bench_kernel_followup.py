"""The headline: a follow-up analysis on data already in the user's kernel, versus a separate kernel.

A 1-million-row DataFrame is in the user's kernel (here: an IPython InteractiveShell in this process,
as it is in a notebook). A three-step follow-up analysis (groupby; filter + describe; a derived column
+ top-N) runs there through LiveShellExecutor. KernelExecutor, like TaskWeaver's separate kernel,
must first load the data from a file written beforehand (CSV; loading timed separately, kernel
start-up too). Prints the analysis time, the loading time and the ratio of the totals.

    python bench/bench_kernel_followup.py [--rows 1000000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from private_state import use_private_state

STEPS = [
    "by_region = sales.groupby('region')['amount'].agg(['sum', 'mean', 'count'])\nby_region",
    "large = sales[sales['units'] > 5]\nlarge['amount'].describe()",
    "sales['per_unit'] = sales['amount'] / sales['units'].clip(lower=1)\n"
    "sales.nlargest(10, 'per_unit')[['region', 'product', 'per_unit']]",
]

MAKE_DATA = """
import numpy as np
import pandas as pd
rng = np.random.default_rng(7)
sales = pd.DataFrame({{
    'region': rng.choice(['north', 'south', 'east', 'west', 'centre'], {rows}),
    'product': rng.choice([f'p{{i:02}}' for i in range(50)], {rows}),
    'amount': rng.gamma(2.0, 50.0, {rows}).round(2),
    'units': rng.integers(0, 20, {rows}),
}})
"""


def _run_steps(executor) -> float:
    started = time.perf_counter()
    for step in STEPS:
        result = executor.run(step)
        if result.status != "success":
            raise SystemExit(f"step failed: {result.error}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    use_private_state()  # the confined kernels' quarantine records: not in the user's state folder

    from IPython.core.interactiveshell import InteractiveShell

    from twnb.kernel import KernelExecutor, LiveShellExecutor

    workdir = Path(tempfile.mkdtemp(prefix="twnb-bench-followup-"))
    os.chdir(workdir)
    shell = InteractiveShell.instance()
    shell.run_cell(MAKE_DATA.format(rows=args.rows), store_history=False)
    csv_path = workdir / "data" / "sales.csv"
    csv_path.parent.mkdir()
    started = time.perf_counter()
    shell.user_ns["sales"].to_csv(csv_path, index=False)
    write_s = time.perf_counter() - started

    live = LiveShellExecutor(shell, workdir, workdir / ".twnb" / "artifacts", session_dir=workdir / ".twnb")
    real_stdout, devnull = sys.stdout, open(os.devnull, "w")  # noqa: SIM115
    sys.stdout = devnull  # the terminal shell echoes each result
    try:
        live_analysis = _run_steps(live)
    finally:
        sys.stdout = real_stdout
        devnull.close()

    started = time.perf_counter()
    with KernelExecutor(workdir, session_dir=workdir / ".twnb") as kernel:
        start_s = time.perf_counter() - started
        started = time.perf_counter()
        loaded = kernel.run(f"import pandas as pd\nsales = pd.read_csv({str(csv_path)!r})")
        load_s = time.perf_counter() - started
        if loaded.status != "success":
            raise SystemExit(f"loading failed: {loaded.error}")
        kernel_analysis = _run_steps(kernel)

    kernel_total = load_s + kernel_analysis
    size_mb = csv_path.stat().st_size / 1e6
    print(f"rows: {args.rows:,} (CSV {size_mb:.1f} MB, written in {write_s:.2f} s, not counted)")
    print(
        f"LiveShellExecutor (data already in the kernel): analysis {live_analysis:.3f} s, loading 0 s, "
        f"total {live_analysis:.3f} s"
    )
    print(
        f"KernelExecutor (separate kernel): start {start_s:.2f} s, loading {load_s:.3f} s, "
        f"analysis {kernel_analysis:.3f} s, total (load + analysis) {kernel_total:.3f} s"
    )
    print(
        f"ratio of totals (KernelExecutor / LiveShellExecutor): {kernel_total / live_analysis:.1f}x; "
        f"with kernel start-up: {(kernel_total + start_s) / live_analysis:.1f}x"
    )


if __name__ == "__main__":
    main()
