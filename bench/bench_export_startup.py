"""`twnb export NOTEBOOK.ipynb -o CONVERSATION.yaml` from a fresh process: what its start-up costs.

    python bench/bench_export_startup.py [--repeat 9] [--against DIR]

Reading a notebook back needs JSON and YAML, not nbformat's validator (whose import of jsonschema and
rfc3987_syntax took 1.3 s of a 2.1 s command), the kernel layer or the LLM client. A small exported
notebook (2 Rounds) is read back to YAML by `python -m twnb.cli export` in fresh subprocesses, taking
turns with `python -c pass` (the interpreter's own start, the floor) and with
`python -c "import nbformat.validator"` (what the validator alone costs here): median wall and CPU
seconds of each. With `--against DIR` (another checkout's twnb: `git archive REV twnb | tar -x -C DIR`)
that twnb's command takes turns too, and the ratio of the two is printed. Target: <= 0.5 s wall.
The modules the command imported are listed as a check (none of nbformat, jsonschema, jupyter_client).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

HEAVY = ("nbformat", "jsonschema", "rfc3987_syntax", "jupyter_client", "twnb.kernel", "twnb.llm")


def timed(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of `command` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, env=env, cwd=cwd, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--against", type=Path, help="another checkout's folder holding its twnb/")
    args = parser.parse_args()
    from bench_export import conversation

    from twnb.replay import export_notebook

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        export_notebook(conversation(2), folder / "x.ipynb", source_dir=folder)
        export = ["-m", "twnb.cli", "export", "x.ipynb", "-o", "x.yaml", "--force"]
        runs: dict[str, tuple[list[str], dict[str, str]]] = {
            "python -c pass": ([sys.executable, "-c", "pass"], dict(os.environ)),
            "import nbformat.validator": (
                [sys.executable, "-c", "import nbformat.validator"],
                dict(os.environ),
            ),
            "twnb export (this checkout)": (
                [sys.executable, *export],
                {**os.environ, "PYTHONPATH": str(ROOT)},
            ),
        }
        if args.against is not None:
            runs["twnb export (--against)"] = (
                [sys.executable, *export],
                {**os.environ, "PYTHONPATH": str(args.against.resolve())},
            )
        for command, env in runs.values():  # bytecode caches written, as an installed twnb has them
            timed(command, env, folder)
        figures: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
        for _ in range(args.repeat):
            for name, (command, env) in runs.items():
                figures[name].append(timed(command, env, folder))
        check = (
            "import sys, runpy; sys.argv = ['twnb', 'export', 'x.ipynb', '-o', 'x.yaml', '--force']\n"
            "from twnb.cli import main\nmain(sys.argv[1:])\n"
            f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules) or 'none')"
        )
        loaded = subprocess.run(
            [sys.executable, "-c", check],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            cwd=folder,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.splitlines()[-1]
    print(f"median of {args.repeat} fresh processes each, taking turns:")
    medians = {}
    for name, values in figures.items():
        wall = statistics.median(v[0] for v in values)
        cpu = statistics.median(v[1] for v in values)
        medians[name] = (wall, cpu)
        print(f"  {name:30s} wall {wall:6.3f} s   CPU {cpu:6.3f} s")
    if args.against is not None:
        ours, theirs = medians["twnb export (this checkout)"], medians["twnb export (--against)"]
        print(f"  this / --against: wall {ours[0] / theirs[0]:.2f}, CPU {ours[1] / theirs[1]:.2f}")
    print(f"  heavy modules the export imported: {loaded}")


if __name__ == "__main__":
    main()
