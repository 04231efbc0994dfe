"""What undo's bookkeeping adds to a run, and how long `%taskweaver undo` takes.

A 1M-row DataFrame analysis on a real InteractiveShell through `LiveShellExecutor`, as a Round runs it:
the code changes one column of `df` in place and rebinds two variables that exist already (`summary`,
`top`). Run with an `UndoLog` (the references it keeps, the copy of `df` it takes before the run
because the code may change it in place, the snapshot's bookkeeping after) and without one, taking
turns on the same shell and the same fresh data: the median wall time of the run and its peak of
traced memory (tracemalloc, which numpy and pandas report their buffers to) above what was held
before it, side by side, and their ratios. Then the time of `Session.undo` (what `%taskweaver undo`
does, its one printed line aside) for a Round whose code is this analysis, with an instant scripted
LLM: the checks for later changes, the restore, and the Round's record; and, apart, the time of the
content fingerprints of what undo would act on (the part of those checks that sees a change in place,
`lst[0] = 9`; the same fingerprints are taken once at the end of each run, so they are also what they
add to a run).

    python bench/bench_undo.py [--rows 1000000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_session import InstantStream, _planner

ANALYSIS = """\
df["price"] = df["price"] * 1.1
summary = df.groupby("region")["price"].agg(["mean", "sum", "count"])
top = df.nlargest(1000, "price")
"""


def fresh_data(rows: int) -> Any:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "region": pd.Categorical(rng.choice(["north", "south", "east", "west"], rows)),
            "units": rng.integers(1, 20, rows),
            "price": rng.random(rows) * 100,
            "cost": rng.random(rows) * 50,
            "day": rng.integers(0, 365, rows),
        }
    )


class AnalysisClient:
    """The Planner hands the analysis to the CodeInterpreter, whose code is ANALYSIS, then answers."""

    def __init__(self) -> None:
        self.calls = {"Planner": 0, "CodeInterpreter": 0}

    def stream(self, messages: list[dict], *, model: str, role: str = "", response_format: Any = None) -> Any:
        n = self.calls[role] = self.calls[role] + 1
        if role == "CodeInterpreter":
            reply = {"thought": "Analyse.", "reply_type": "python", "reply_content": ANALYSIS}
        elif n % 2:
            reply = _planner("CodeInterpreter", "Analyse the sales.", "InProcess")
        else:
            reply = _planner("User", "Done.", "Completed")
        return InstantStream(json.dumps({"response": reply}), model)


def timed_run(executor: Any, shell: Any, data: Any) -> tuple[float, float]:
    """(wall ms, peak MB of traced memory above what was held before) of one run on fresh data."""
    shell.user_ns.update(df=data.copy(), summary=None, top=None)
    gc.collect()
    tracemalloc.reset_peak()
    held = tracemalloc.get_traced_memory()[0]
    started = time.perf_counter()
    result = executor.run(ANALYSIS)
    wall = (time.perf_counter() - started) * 1000
    peak = (tracemalloc.get_traced_memory()[1] - held) / 2**20
    assert result.success, result.error
    return wall, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    from IPython.core.interactiveshell import InteractiveShell

    from twnb.config import ResolvedSettings, Settings
    from twnb.kernel import LiveBookkeeping, LiveShellExecutor, UndoLog
    from twnb.session import NotebookParts, build_session

    shell = InteractiveShell.instance()
    data = fresh_data(args.rows)
    print(f"data: {args.rows:,} rows, {data.memory_usage(index=True).sum() / 2**20:.1f} MB")
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        session_dir = workdir / ".twnb"
        log = UndoLog(1024, session_dir / "undo", shell.user_ns)
        plain = LiveShellExecutor(shell, workdir, session_dir / "artifacts", session_dir=session_dir)
        kept = LiveShellExecutor(
            shell,
            workdir,
            session_dir / "artifacts",
            session_dir=session_dir,
            bookkeeping=LiveBookkeeping(undo_log=log),
        )
        tracemalloc.start()
        timed_run(plain, shell, data)  # warm-up: imports, pandas' first group-by
        timed_run(kept, shell, data)
        log.clear()
        without: list[tuple[float, float]] = []
        with_undo: list[tuple[float, float]] = []
        for _ in range(args.repeat):
            without.append(timed_run(plain, shell, data))
            with_undo.append(timed_run(kept, shell, data))
            log.clear()  # one snapshot at a time, as the budget would keep it
        tracemalloc.stop()

        def median(runs: list[tuple[float, float]], index: int) -> float:
            return statistics.median(run[index] for run in runs)

        print(f"run of the analysis (median of {args.repeat}, taking turns):")
        print(f"{'':22}{'without undo':>14}{'with undo':>12}{'ratio':>8}")
        for label, index, unit in (("wall time", 0, "ms"), ("peak traced memory", 1, "MB")):
            a, b = median(without, index), median(with_undo, index)
            print(f"  {label:20}{a:>11.1f} {unit}{b:>9.1f} {unit}{b / a:>8.2f}")

        session = build_session(
            ResolvedSettings(Settings(model="instant"), {}, workdir),
            kept,
            client=AnalysisClient(),
            session_dir=session_dir,
            notebook=NotebookParts(undo_log=log),
        )
        session.autosave = False
        undo_times: list[float] = []
        fingerprint_times: list[float] = []
        for _ in range(args.repeat):
            shell.user_ns.update(df=data.copy(), summary=None, top=None)
            round = session.run_round("Analyse the sales.")
            assert round.state == "finished", round.extra
            ids = [post.id for post in round.post_list if log.get(post.id) is not None]
            started = time.perf_counter()
            assert log.changed_in_place_since(ids) == []
            fingerprint_times.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            outcome = session.undo()
            undo_times.append((time.perf_counter() - started) * 1000)
            assert outcome.done, outcome.line
            assert shell.user_ns["summary"] is None and "price" in shell.user_ns["df"]
        print(f"%taskweaver undo of that Round (Session.undo, median of {args.repeat}): "
              f"{statistics.median(undo_times):.1f} ms")  # fmt: skip
        print(f"  its line: {outcome.line}")
        print(f"  of which the content fingerprints of what undo would act on (taken once after the run, "
              f"once at undo): {statistics.median(fingerprint_times):.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
