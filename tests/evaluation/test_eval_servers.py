"""Model servers as they are: one that serves one request at a time (llama-cpp-python cuts a running
reply when a second request arrives) turns `-j 2` into one case at a time, said once; one that is down
stops the run after three cases in a row could not connect, in one line. Real HTTP throughout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.session_script import answer, code_reply, planner_reply

from twnb.evaluation import EvalOptions, run_evaluation
from twnb.evaluation.server_watch import ONE_AT_A_TIME

pytestmark = pytest.mark.slow

USER = "You play the user"
JUDGE = "You are the judge"
YES = json.dumps({"reason": "It said 42.", "is_hit": "yes"})
ASK = "What is 6 times 7?"


def _evaluate(tmp_path: Path, jobs: int) -> tuple[object, list[str]]:
    lines: list[str] = []
    outcome = run_evaluation(
        EvalOptions(paths=[tmp_path / "cases"], out_dir=tmp_path / "out", models=["m"], jobs=jobs),
        progress=lines.append,
    )
    return outcome, lines


def test_a_server_that_serves_one_request_at_a_time_turns_j2_into_one_case_at_a_time(
    tmp_path, live, make_case
):
    live.one_at_a_time = True
    make_case("first")
    make_case("second")
    agent = {
        "Planner": [planner_reply("CodeInterpreter", "Compute 6 times 7."), answer("The answer is 42.")] * 2,
        "CodeInterpreter": [code_reply("6 * 7")] * 2,
    }
    # The first question the virtual user is asked waits (as a slow server does) until the other
    # case's question arrives and cuts it; every later reply is quick.
    waits = {"content": ASK, "stall_after_chars": 0, "stall_s": 60}
    live.load({**agent, USER: [waits, ASK, "TASK_FINISHED", ASK, "TASK_FINISHED"], JUDGE: [YES, YES]})
    outcome, lines = _evaluate(tmp_path, jobs=2)
    assert {r.case: r.status for r in outcome.all_results} == {"first": "scored", "second": "scored"}
    assert lines.count(f"twnb eval: {ONE_AT_A_TIME}") == 1
    assert not any(live.remaining().values())


def test_three_cases_in_a_row_that_cannot_connect_stop_the_run_in_one_line(
    tmp_path, clean_env, make_case, monkeypatch, refused_port
):
    url = f"http://127.0.0.1:{refused_port}/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdefghij")
    for name in ("a", "b", "c", "d", "e"):
        make_case(name)
    outcome, lines = _evaluate(tmp_path, jobs=1)
    assert [r.case for r in outcome.ran] == ["a", "b", "c"]
    assert all(r.status == "error" for r in outcome.ran)
    stopped = [line for line in lines if line.startswith("twnb eval stopped")]
    assert stopped == [
        f"twnb eval stopped: 3 cases in a row could not connect to {url}; 2 not started. Start the server "
        "(or fix its URL), then run again with -o the same folder and --resume."
    ]
