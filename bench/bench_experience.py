"""Experience retrieval per Round over a folder of 1,000 experiences (BM25, offline): what a Round pays
to list the folder, stat each file, and rank every experience for its request. The first Round also
reads and indexes every file; later Rounds read only what changed.

Target: <= 20 ms per Round (lexical), printed beside the measured time: wall-clock, and the process's
CPU time (user + system, which the stat calls are), the figure that holds on a machine busy with other
work.

    python bench/bench_experience.py [--count 1000] [--rounds 50]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from twnb.session.experience import ExperienceStore

TARGET_MS = 20.0
TOPICS = (
    "dates day-first parse order_date sales csv",
    "revenue excludes returned orders status",
    "plot with plotly express not matplotlib figure",
    "margin percentage one decimal region category",
    "join categories on sku product table",
    "currency EUR never convert amounts",
    "check the file exists before reading it",
    "write results into out folder never data",
)


def fill(folder: Path, count: int) -> None:
    store = ExperienceStore(folder)
    rng = random.Random(7)
    for n in range(count):
        words = " ".join(rng.choice(TOPICS) for _ in range(4))
        store.remember_text(f"Experience {n}: {words}. When the user asks about this, do it their way.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        fill(folder, args.count)
        store = ExperienceStore(folder)
        started = time.perf_counter()
        store.retrieve("Load the sales csv and parse the dates")
        first_ms = (time.perf_counter() - started) * 1000
        times, cpu_times = [], []
        for n in range(args.rounds):
            request = f"Round {n}: plot revenue by region with plotly, excluding returned orders"
            started, cpu_started = time.perf_counter(), time.process_time()
            found = store.retrieve(request)
            times.append((time.perf_counter() - started) * 1000)
            cpu_times.append((time.process_time() - cpu_started) * 1000)
        per_round, cpu = statistics.median(times), statistics.fmean(cpu_times)
        print(f"{args.count} experiences, {args.rounds} Rounds; {len(found)} retrieved for the last request")
        print(f"first Round (reads and indexes every file): {first_ms:.1f} ms")
        print(
            f"per Round after it: median {per_round:.2f} ms, max {max(times):.2f} ms | "
            f"target <= {TARGET_MS:g} ms (ratio {per_round / TARGET_MS:.2f})"
        )
        print(
            f"per Round after it, CPU time: mean {cpu:.2f} ms | target <= {TARGET_MS:g} ms "
            f"(ratio {cpu / TARGET_MS:.2f})"
        )


if __name__ == "__main__":
    main()
