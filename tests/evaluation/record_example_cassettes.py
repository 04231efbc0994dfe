"""Re-record the example cases' cassettes (twnb/evaluation/examples/recorded/) from the hand-written
scripted replies.

    python -m tests.evaluation.record_example_cassettes   # from the repository's root

Serves twnb/evaluation/examples/scripted_replies.yaml from the loopback fake LLM server, runs
`twnb eval` on the example cases live against it with --record, checks every case scored in full and
every reply was used, and copies each run's two cassettes into the package. Run it after changing the
prompts (the agent's, the virtual user's or the evaluator's), the example cases or the scripted
replies: the cassettes hold the prompts too, and a replay warns when they drift.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from tests.fakellm.server import FakeLLMServer
from twnb.evaluation.batch import EvalOptions, model_folder, run_evaluation
from twnb.evaluation.case_file import find_cases
from twnb.evaluation.command import EXAMPLE_CASES, EXAMPLE_MODEL, EXAMPLE_RECORDINGS, SCRIPTED_REPLIES
from twnb.evaluation.model_access import AGENT_CASSETTE, JUDGE_CASSETTE

# How the fake server tells the calls apart: a text each role's system prompt holds (and no other's).
SERVER_KEYS = {
    "Planner": "Planner",
    "CodeInterpreter": "CodeInterpreter",
    "VirtualUser": "You play the user",
    "Evaluator": "You are the judge",
}


def fake_server_script(
    replies: dict[str, dict[str, list[Any]]], case_order: list[str]
) -> dict[str, list[str]]:
    """One list per role, the cases' replies one after the other in the order the cases run."""
    script: dict[str, list[str]] = {key: [] for key in SERVER_KEYS.values()}
    for case in case_order:
        for role, items in (replies.get(case) or {}).items():
            for item in items:
                if role in ("Planner", "CodeInterpreter"):
                    text = json.dumps({"response": item}, ensure_ascii=False)
                elif role == "Evaluator":
                    text = json.dumps(item, ensure_ascii=False)
                else:
                    text = str(item)
                script[SERVER_KEYS[role]].append(text)
    return script


def main() -> int:
    replies = yaml.safe_load(SCRIPTED_REPLIES.read_text(encoding="utf-8"))
    cases, broken = find_cases([EXAMPLE_CASES])
    if broken:
        print(f"unreadable example cases: {broken}", file=sys.stderr)
        return 1
    order = [case.name for case in cases]
    with (
        FakeLLMServer(fake_server_script(replies, order), models=(EXAMPLE_MODEL,)) as server,
        tempfile.TemporaryDirectory() as tmp,
    ):
        os.environ.update({"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "recording-key"})
        out = Path(tmp) / "out"
        outcome = run_evaluation(
            EvalOptions(paths=[EXAMPLE_CASES], out_dir=out, models=[EXAMPLE_MODEL], record=True),
            progress=lambda line: print(line, file=sys.stderr),
        )
        wrong = [
            r
            for r in outcome.ran
            if r.status == "error" or (r.status == "scored" and r.normalized_score != 1)
        ]
        if wrong:
            for result in wrong:
                print(f"{result.case}: {result.status} {result.score}: {result.failures}", file=sys.stderr)
            return 1
        left = {role: n for role, n in server.remaining().items() if n}
        if left:
            print(f"scripted replies left unused: {left}", file=sys.stderr)
            return 1
        target = EXAMPLE_RECORDINGS / model_folder(EXAMPLE_MODEL)
        shutil.rmtree(target, ignore_errors=True)
        for result in outcome.ran:
            if result.status != "scored":
                continue
            source = out / model_folder(EXAMPLE_MODEL) / result.case
            (target / result.case).mkdir(parents=True)
            for name in (AGENT_CASSETTE, JUDGE_CASSETTE):
                shutil.copyfile(source / name, target / result.case / name)
            print(f"wrote {target / result.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
