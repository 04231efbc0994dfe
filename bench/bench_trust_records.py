"""`twnb trust --folder SUB`'s look through every quarantine record (`recorded_elsewhere`: what other
folders' records hold for places inside SUB) with many records in the state folder, side by side with
parsing every record (the look before twnb/config/gone_records.py), in one run; and the first look's
cost when a tenth of the records are of deleted folders, which it prunes.

    python bench/bench_trust_records.py [--records 5000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from twnb.config import recorded_elsewhere
from twnb.config.quarantine import load, quarantine_root, record_dir, save


def _record(folder: Path, entries: int) -> dict[str, object]:
    quarantined = {
        f"module_{index}.py": {"found": None, "since": "2026-12-08T00:00:00Z", "moved_to": f"m{index}.q"}
        for index in range(entries)
    }
    baseline = {f"plugins/p{index}.yaml": [f"{index:064x}", 100] for index in range(20)}
    return {
        "folder": str(folder),
        "device": os.stat(folder.parent).st_dev,
        "baseline": baseline,
        "quarantined": quarantined,
        "watch": {"files": ["AGENTS.md", "TWNB.md", "twnb.yaml"], "folders": ["plugins"]},
        "sessions": [],
        "ended": [{"kernel": [1, 2], "quarantined": [], "elsewhere": []}],
    }


def _make(root: Path, count: int, gone_every: int = 0) -> Path:
    os.environ["XDG_STATE_HOME"] = str(root / "state")
    for index in range(count):
        folder = root / "projects" / f"p{index}"
        folder.mkdir(parents=True)
        place = record_dir(folder)
        place.mkdir(parents=True)
        save(place, _record(folder, 5))
        if gone_every and index % gone_every == 0:
            folder.rmdir()
    sub = root / "projects" / "p1" / "sub"
    sub.mkdir(parents=True, exist_ok=True)
    return sub


def _parse_every_record(folder: Path) -> int:
    """The look before: every record loaded and its entries compared."""
    inside = os.path.realpath(folder)
    root = quarantine_root(os.environ)
    found = 0
    for key in sorted(os.listdir(root)):
        record = load(root / key) or {}
        holder = record.get("folder")
        entries = record.get("quarantined")
        if not isinstance(holder, str) or not isinstance(entries, dict):
            continue
        for name in entries:
            path = name if os.path.isabs(name) else os.path.join(holder, name)
            found += path == inside or path.startswith(inside + os.sep)
    return found


def _best_of(repeat: int, look: object) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        look()  # type: ignore[operator]
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-trust-"))
    try:
        sub = _make(root / "kept", args.records)
        before = _best_of(args.repeat, lambda: _parse_every_record(sub))
        now = _best_of(args.repeat, lambda: recorded_elsewhere(sub))
        print(f"{args.records} records, `twnb trust` in a sub-folder (median of {args.repeat}):")
        print(f"  every record parsed: {before:8.1f} ms")
        print(f"  gone_records look:   {now:8.1f} ms   ratio {now / before:.2f}")
        sub = _make(root / "pruned", args.records, gone_every=10)
        began = time.perf_counter()
        recorded_elsewhere(sub)
        first = (time.perf_counter() - began) * 1000
        left = len(os.listdir(quarantine_root(os.environ)))
        print(
            f"  first look with {args.records // 10} records of deleted folders: {first:.1f} ms, {left} left"
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
