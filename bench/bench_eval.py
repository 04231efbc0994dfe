"""`twnb eval`'s own overhead per case, with instant scripted replies, and how `-j 2` scales.

    python bench/bench_eval.py [--cases 6] [--repeat 3]

A one-Round case (a data file copied beside the notebook, one point judged by the evaluator and one by
eval_code) is recorded once against the loopback fake LLM server, then replayed from its cassettes, so
every model answers at once and what is left is the harness: a fresh kernel per case, `%load_ext twnb`,
the `%%taskweaver` cell (the Round itself: twnb's session, the code run), the virtual user and the
evaluator, eval_code's fresh Python, the notebook and result files. Figures:

- per case: median wall seconds of a whole run, and the same split: kernel start and shutdown alone,
  the set-up cell, the Round's cell, one eval_code run, writing results.csv and both reports for the
  runs; the harness's share is the whole minus the Round's cell;
- `-j 1` versus `-j 2` on `--cases` copies of the case: wall seconds of the batch, cases per minute and
  the speed-up (2.0 would be perfect; this machine has 2 cores, shared with whatever else runs).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from private_state import use_private_state

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

MODEL = "bench-model"
CASE = """\
version: 0.1
config_var:
  execution_service.kernel_mode: local
data_files: [numbers.csv]
task_description: Ask the agent for the sum of the column x in ./numbers.csv.
scoring_points:
  - score_point: The agent reports that the sum is 6
    weight: 1
  - score_point: The agent's last message holds 6
    weight: 1
    eval_code: assert "6" in chat_history[-1].content
"""


def _script() -> dict[str, list[str]]:
    def planner(send_to: str, message: str, stop: str) -> str:
        plan = "1. Sum x\n2. Report"
        response = {
            "plan_reasoning": "One step.",
            "init_plan": plan,
            "plan": plan,
            "current_plan_step": "1. Sum x",
            "stop": stop,
            "send_to": send_to,
            "message": message,
        }
        return json.dumps({"response": response})

    code = 'import pandas as pd\ntotal = int(pd.read_csv("numbers.csv")["x"].sum())\ntotal'
    return {
        "Planner": [
            planner("CodeInterpreter", "Sum the column x of numbers.csv.", "InProcess"),
            planner("User", "The sum of x is 6.", "Completed"),
        ],
        "CodeInterpreter": [
            json.dumps({"response": {"thought": "Sum it.", "reply_type": "python", "reply_content": code}})
        ],
        "You play the user": ["What is the sum of x in numbers.csv?", "TASK_FINISHED"],
        "You are the judge": [json.dumps({"reason": "It says 6.", "is_hit": "yes"})],
    }


def _write_case(folder: Path, name: str) -> None:
    (folder / name).mkdir(parents=True)
    (folder / name / f"{name}.yaml").write_text(CASE, encoding="utf-8")
    (folder / name / "numbers.csv").write_text("x\n1\n2\n3\n", encoding="utf-8")


def _record(work: Path) -> Path:
    """Record the case once against the fake server; the recording's output folder."""
    from fakellm.server import FakeLLMServer

    from twnb.evaluation import EvalOptions, run_evaluation

    _write_case(work / "one", "bench_case")
    with FakeLLMServer(_script(), models=(MODEL,)) as server:
        os.environ.update({"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "bench-key"})
        outcome = run_evaluation(
            EvalOptions(paths=[work / "one"], out_dir=work / "recorded", models=[MODEL], record=True),
            progress=lambda line: None,
        )
    assert [r.status for r in outcome.ran] == ["scored"], [r.failures for r in outcome.ran]
    return work / "recorded"


def _copies(work: Path, recorded: Path, count: int) -> tuple[Path, Path]:
    """`count` copies of the case, and a replay folder holding the recording for each."""
    cases, replay = work / "cases", work / "replay"
    for number in range(1, count + 1):
        name = f"case{number:02d}"
        _write_case(cases, name)
        target = replay / MODEL / name
        target.mkdir(parents=True)
        for cassette in ("conversation.cassette.yaml", "eval.cassette.yaml"):
            shutil.copyfile(recorded / MODEL / "bench_case" / cassette, target / cassette)
    return cases, replay


def _batch(cases: Path, replay: Path, out: Path, jobs: int):
    from twnb.evaluation import EvalOptions, run_evaluation

    started = time.perf_counter()
    outcome = run_evaluation(
        EvalOptions(paths=[cases], out_dir=out, replay=replay, jobs=jobs), progress=lambda line: None
    )
    wall = time.perf_counter() - started
    assert all(r.status == "scored" and r.normalized_score == 1 for r in outcome.ran), [
        (r.case, r.status, r.failures) for r in outcome.ran
    ]
    return wall, outcome


def _parts(work: Path, runs: int) -> dict[str, float]:
    """Median seconds of the harness's parts, each alone."""
    from twnb.evaluation.case_file import ScoringPoint
    from twnb.evaluation.case_notebook import CaseNotebook
    from twnb.evaluation.chat_messages import AIMessage, HumanMessage, SystemMessage
    from twnb.evaluation.eval_code import run_eval_code

    env = dict(os.environ)
    kernel, setup, code = [], [], []
    for number in range(runs):
        folder = work / f"parts{number}"
        folder.mkdir()
        started = time.perf_counter()
        with CaseNotebook(folder, "k.ipynb", env, 120) as notebook:
            ready = time.perf_counter()
            notebook.run_setup("%load_ext twnb")
            setup.append(time.perf_counter() - ready)
        kernel.append(time.perf_counter() - started - setup[-1])
        history = [
            SystemMessage("s"),
            HumanMessage("ready"),
            AIMessage("sum?"),
            HumanMessage("6"),
            AIMessage("done"),
        ]
        started = time.perf_counter()
        run_eval_code(ScoringPoint("p", 1, 'assert "6" in chat_history[-1].content'), history, folder)
        code.append(time.perf_counter() - started)
    return {
        "kernel start and shutdown": statistics.median(kernel),
        "%load_ext twnb cell": statistics.median(setup),
        "eval_code in a fresh Python": statistics.median(code),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=6, help="copies of the case in the -j comparison")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each part measured alone")
    args = parser.parse_args()
    use_private_state()  # the confined kernels' quarantine records: not in the user's state folder
    for name in [n for n in os.environ if n.startswith(("TWNB_", "OPENAI_", "AZURE_"))]:
        del os.environ[name]
    with tempfile.TemporaryDirectory(prefix="twnb-bench-eval-") as tmp:
        work = Path(tmp)
        os.environ["HOME"] = str(work)  # no user settings
        os.chdir(work)
        recorded = _record(work)
        cases, replay = _copies(work, recorded, args.cases)
        one_wall, one = _batch(cases, replay, work / "j1", 1)
        two_wall, _ = _batch(cases, replay, work / "j2", 2)
        from twnb.evaluation.batch import write_result_files

        started = time.perf_counter()
        write_result_files(work / "j1")
        reports = time.perf_counter() - started
        parts = _parts(work, args.repeat)

    per_case = statistics.median(r.seconds for r in one.ran)
    round_cell = statistics.median(r.turns[0].seconds for r in one.ran)
    print(f"python bench/bench_eval.py --cases {args.cases} --repeat {args.repeat}")
    print(f"per case (-j 1, median of {args.cases}): {per_case:.2f} s whole run")
    print(f"  the Round's %%taskweaver cell (replayed, instant replies): {round_cell:.2f} s")
    print(
        f"  the harness around it: {per_case - round_cell:.2f} s ({(per_case - round_cell) / per_case:.0%})"
    )
    for name, seconds in parts.items():
        print(f"    {name} (alone, median of {args.repeat}): {seconds:.2f} s")
    print(f"    results.csv, report.md and report.html for {args.cases} runs: {reports * 1000:.0f} ms")
    print(f"-j 1: {args.cases} cases in {one_wall:.1f} s ({args.cases / one_wall * 60:.1f} cases/min)")
    print(f"-j 2: {args.cases} cases in {two_wall:.1f} s ({args.cases / two_wall * 60:.1f} cases/min)")
    print(f"speed-up -j 2 / -j 1: {one_wall / two_wall:.2f}x (2 cores, shared)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
