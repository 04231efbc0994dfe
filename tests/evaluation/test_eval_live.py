"""`twnb eval` against a model server: the loopback OpenAI-compatible server answers the agent (in each
case's real kernel), the virtual user and the evaluator over real HTTP."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import nbformat
import pytest
from support.session_script import answer, code_reply, planner_reply

from twnb.evaluation import EvalOptions, run_evaluation
from twnb.evaluation.case_result import read_result

pytestmark = pytest.mark.slow

USER = "You play the user"  # the fake server tells the virtual user's calls by this text
JUDGE = "You are the judge"
YES = json.dumps({"reason": "It said 42.", "is_hit": "yes"})
NO = json.dumps({"reason": "It did not say 42.", "is_hit": "no"})


def _agent_round(
    code: str = "answer = 6 * 7\nanswer", final: str = "The answer is 42."
) -> dict[str, list[str]]:
    return {
        "Planner": [planner_reply("CodeInterpreter", "Compute 6 times 7."), answer(final)],
        "CodeInterpreter": [code_reply(code)],
    }


def _script(*parts: dict[str, list[str]]) -> dict[str, list[str]]:
    script: dict[str, list[str]] = {}
    for part in parts:
        for role, replies in part.items():
            script.setdefault(role, []).extend(replies)
    return script


def _evaluate(tmp_path: Path, paths: list[Path], **options: Any):
    lines: list[str] = []
    outcome = run_evaluation(
        EvalOptions(paths=paths, out_dir=tmp_path / "out", **options), progress=lines.append
    )
    return outcome, lines


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_a_folder_of_taskweaver_cases_runs_what_twnb_can_and_skips_the_rest_with_why(
    tmp_path, live, make_case
):
    make_case(
        "echo",
        task_description='The task is to echo the word "Hello World"',
        scoring_points=[
            {
                "score_point": "Hello World is the agent's last reply",
                "weight": 1,
                "eval_code": (
                    "last = chat_history[-1]\n"
                    "assert isinstance(last, HumanMessage) and last.content == 'Hello World', last"
                ),
            }
        ],
    )
    make_case("web_search", config_var={"session.roles": ["planner", "web_search"]})
    make_case(
        "run_in_container",
        config_var={"execution_service.kernel_mode": "container"},
        dependencies=["twnb-no-such-docker"],
    )
    broken = make_case("broken")
    broken.write_text("task_description: x\nscoring_points: [\n")
    live.load(
        _script(
            {"Planner": [answer("Hello World")], USER: ['Please echo "Hello World".', "TASK_FINISHED"]},
        )
    )
    outcome, _ = _evaluate(tmp_path, [tmp_path / "cases"], models=["agent-model"])
    status = {r.case: r.status for r in outcome.all_results}
    assert status == {
        "broken": "invalid",
        "echo": "scored",
        "run_in_container": "skipped",
        "web_search": "skipped",
    }
    by_case = {r.case: r for r in outcome.all_results}
    assert by_case["echo"].normalized_score == 1.0
    # Container mode itself runs in the confined kernel (eval's default): the missing package skips it.
    assert by_case["run_in_container"].skip_reasons[-1] == (
        "it needs twnb-no-such-docker, which is not installed (pip install 'twnb-no-such-docker')"
    )
    assert "not a readable case file" in by_case["broken"].failures[0]
    rows = {r["case_file"]: r for r in _csv(outcome.csv)}
    assert rows["web_search"]["why"] == "it needs the role web_search (a web search service)"


def test_the_agent_the_user_and_the_evaluator_get_their_own_models(tmp_path, live, make_case):
    make_case("calc")
    live.load(_script(_agent_round(), {USER: ["What is 6 times 7?", "TASK_FINISHED"], JUDGE: [YES]}))
    outcome, _ = _evaluate(
        tmp_path,
        [tmp_path / "cases"],
        models=["agent-model"],
        user_model="user-model",
        evaluator_model="judge-model",
    )
    assert outcome.ran[0].status == "scored"
    models = {r["role"]: r["body"]["model"] for r in live.chat_requests()}
    assert models == {
        "Planner": "agent-model",
        "CodeInterpreter": "agent-model",
        USER: "user-model",
        JUDGE: "judge-model",
    }


def test_two_models_repeated_twice_make_one_table_with_the_spread(tmp_path, live, make_case):
    make_case("calc")
    runs = [
        _script(_agent_round(), {USER: ["What is 6 times 7?", "TASK_FINISHED"], JUDGE: [verdict]})
        for verdict in (YES, NO, YES, YES)
    ]
    live.load(_script(*runs))
    outcome, _ = _evaluate(tmp_path, [tmp_path / "cases"], models=["model-a", "model-b"], repeat=2)
    rows = outcome.table.rows()
    assert rows[0] == ["case", "model-a", "model-b"]
    assert rows[1] == ["calc", "0.50 (0.00-1.00, sd 0.71, 2 runs)", "1.00 (1.00-1.00, sd 0.00, 2 runs)"]
    assert [(r["model"], r["run"], r["score"]) for r in _csv(outcome.csv)] == [
        ("model-a", "1", "1"), ("model-a", "2", "0"), ("model-b", "1", "1"), ("model-b", "2", "1"),
    ]  # fmt: skip
    assert (tmp_path / "out" / "model-a" / "calc.run-2" / "calc.ipynb").is_file()


def test_a_second_run_into_the_same_folder_adds_its_model_to_the_table(tmp_path, live, make_case):
    make_case("calc")
    live.load(_script(_agent_round(), {USER: ["What is 6 times 7?", "TASK_FINISHED"], JUDGE: [YES]}))
    _evaluate(tmp_path, [tmp_path / "cases"], models=["hosted"])
    live.load(_script(_agent_round(), {USER: ["What is 6 times 7?", "TASK_FINISHED"], JUDGE: [NO]}))
    outcome, _ = _evaluate(tmp_path, [tmp_path / "cases"], models=["local/qwen:7b"])
    assert outcome.table.rows()[:2] == [["case", "hosted", "local/qwen:7b"], ["calc", "1.00", "0.00"]]
    assert (tmp_path / "out" / "local_qwen_7b" / "calc" / "result.yaml").is_file()


def test_a_failed_round_ends_the_conversation_and_the_points_are_still_judged(tmp_path, live, make_case):
    make_case("calc")
    live.load(
        {
            "Planner": [{"content": "x", "fault": "http_500", "times": 20}],
            USER: ["What is 6 times 7?"],
            JUDGE: [NO],
        }
    )
    outcome, _ = _evaluate(tmp_path, [tmp_path / "cases"], models=["agent-model"])
    result = outcome.ran[0]
    assert result.status == "scored" and result.score == 0
    assert result.failures[0].startswith("Round 1 failed: ")
    assert result.chat_history[-2].content.startswith("I could not finish the task because of an error:")
    assert "Round 1 failed" in outcome.report_md.read_text(encoding="utf-8")


def test_the_virtual_user_is_stopped_after_the_rounds_allowed(tmp_path, live, make_case):
    make_case("calc")
    live.load(
        _script(
            _agent_round(),
            _agent_round(),
            {USER: ["What is 6 times 7?", "And again?", "Once more?"], JUDGE: [YES]},
        )
    )
    outcome, _ = _evaluate(tmp_path, [tmp_path / "cases"], models=["agent-model"], max_rounds=2)
    result = outcome.ran[0]
    assert result.rounds == 2 and result.status == "scored"
    assert "the virtual user was stopped after 2 Rounds (max_rounds)" in result.notes


def test_a_round_past_the_time_limit_is_interrupted_and_says_so(tmp_path, live, make_case):
    make_case("slow")
    live.load(_script(_agent_round(code="import time\ntime.sleep(60)"), {USER: ["Go."], JUDGE: [NO]}))
    outcome, _ = _evaluate(tmp_path, [tmp_path / "cases"], models=["agent-model"], timeout=3)
    result = outcome.ran[0]
    assert result.failures[0] == "Round 1 failed: the Round took longer than 3 s and was interrupted"
    assert result.seconds < 30


def test_cost_comes_from_the_prices_setting_for_all_three_models(tmp_path, live, make_case, monkeypatch):
    monkeypatch.setenv("TWNB_PRICES", json.dumps({"agent-model": {"input": 1.0, "output": 2.0}}))
    make_case("calc")
    live.load(_script(_agent_round(), {USER: ["What is 6 times 7?", "TASK_FINISHED"], JUDGE: [YES]}))
    outcome, _ = _evaluate(tmp_path, [tmp_path / "cases"], models=["agent-model"])
    result = outcome.ran[0]
    spend = result.spend
    assert spend.cost == pytest.approx((spend.input_tokens * 1.0 + spend.output_tokens * 2.0) / 1e6)
    assert result.agent_spend.cost and result.user_spend.cost and result.evaluator_spend.cost
    assert _csv(outcome.csv)[0]["cost"] == f"{spend.cost:.6f}"


def test_a_recorded_run_replays_with_no_server_at_all(tmp_path, live, make_case):
    make_case("calc", data={"numbers.csv": "x\n1\n"}, data_files=["numbers.csv"])
    live.load(_script(_agent_round(), {USER: ["What is 6 times 7?", "TASK_FINISHED"], JUDGE: [YES]}))
    recorded, _ = _evaluate(tmp_path, [tmp_path / "cases"], models=["agent-model"], record=True)
    folder = tmp_path / "out" / "agent-model" / "calc"
    assert (folder / "conversation.cassette.yaml").is_file() and (folder / "eval.cassette.yaml").is_file()
    live.stop()
    replayed = run_evaluation(
        EvalOptions(paths=[tmp_path / "cases"], out_dir=tmp_path / "again", replay=tmp_path / "out"),
        progress=lambda line: None,
    )
    assert [r.model for r in replayed.ran] == ["agent-model"]  # the model the recording holds
    assert [v.to_dict() for v in replayed.ran[0].verdicts] == [v.to_dict() for v in recorded.ran[0].verdicts]
    assert replayed.ran[0].turns[0].reply == "The answer is 42."


def test_secrets_the_agent_printed_reach_no_result_report_or_notebook(tmp_path, live, make_case, monkeypatch):
    secret = "tok-5f2c9e1b7a4d3c8e6f0a"
    monkeypatch.setenv("WAREHOUSE_TOKEN", secret)
    make_case(
        "leak",
        scoring_points=[
            {
                "score_point": "x",
                "weight": 1,
                "eval_code": "import os\nassert False, os.environ['WAREHOUSE_TOKEN']",
            },
            {"score_point": "The agent says 42", "weight": 1},
        ],
    )
    code = "import os\nprint(os.environ['WAREHOUSE_TOKEN'])\nanswer = 42\nanswer"
    live.load(
        _script(_agent_round(code=code), {USER: [f"Print the token {secret}", "TASK_FINISHED"], JUDGE: [YES]})
    )
    outcome, _ = _evaluate(tmp_path, [tmp_path / "cases"], models=["agent-model"])
    assert outcome.ran[0].status == "scored"
    for path in (tmp_path / "out").rglob("*"):
        if path.is_file() and path.suffix in (".yaml", ".md", ".html", ".csv", ".ipynb"):
            assert secret not in path.read_text(encoding="utf-8", errors="replace"), path


def test_files_twnb_eval_did_not_write_are_never_replaced(tmp_path, live, make_case):
    make_case("calc")
    mine = tmp_path / "out" / "agent-model" / "calc"
    mine.mkdir(parents=True)
    (mine / "notes.txt").write_text("mine")
    from twnb.evaluation import EvalError

    with pytest.raises(EvalError, match="holds files twnb eval did not write"):
        _evaluate(tmp_path, [tmp_path / "cases"], models=["agent-model"])
    assert (mine / "notes.txt").read_text() == "mine"


def test_an_earlier_run_of_the_same_case_is_replaced_afresh(tmp_path, live, make_case):
    make_case("calc")
    live.load(_script(_agent_round(), {USER: ["What is 6 times 7?", "TASK_FINISHED"], JUDGE: [YES]}))
    _evaluate(tmp_path, [tmp_path / "cases"], models=["agent-model"])
    folder = tmp_path / "out" / "agent-model" / "calc"
    (folder / "left_over.txt").write_text("from the first run")
    live.load(_script(_agent_round(), {USER: ["What is 6 times 7?", "TASK_FINISHED"], JUDGE: [NO]}))
    _evaluate(tmp_path, [tmp_path / "cases"], models=["agent-model"])
    assert not (folder / "left_over.txt").exists()
    assert read_result(folder).score == 0


def test_the_case_notebook_is_what_a_person_would_read(tmp_path, live, make_case):
    make_case(
        "calc",
        config_var={"code_interpreter.code_verification_on": False, "planner.prompt_compression": True},
    )
    live.load(_script(_agent_round(), {USER: ["What is 6 times 7?", "TASK_FINISHED"], JUDGE: [YES]}))
    _evaluate(tmp_path, [tmp_path / "cases"], models=["agent-model"])
    nb = nbformat.read(tmp_path / "out" / "agent-model" / "calc" / "calc.ipynb", as_version=4)
    sources = [cell.source for cell in nb.cells]
    assert sources[1] == "%load_ext twnb\n%config TaskWeaverMagics.taskweaver_verification = False"
    assert sources[2] == "%%taskweaver\nWhat is 6 times 7?"
    assert sources[3] == "%taskweaver save conversation.yaml"
    assert "planner.prompt_compression: not mapped" in sources[0]
    assert "| 1 | The agent says 42 | 1 | hit | evaluator | It said 42. |" in sources[-1]


def test_a_kernel_that_dies_is_an_error_with_why_and_the_next_case_still_runs(tmp_path, live, make_case):
    # twnb's guard would refuse os._exit: the case turns it off with a twnb.yaml beside its notebook
    # (a case's code_verification_on: false cannot, by design).
    make_case("dies", data={"twnb.yaml": "code_interpreter:\n  verify: false\n"}, data_files=["twnb.yaml"])
    make_case("lives")
    live.load(
        _script(
            _agent_round(code="import os\nos._exit(1)"),
            {USER: ["Go."]},
            _agent_round(),
            {USER: ["What is 6 times 7?", "TASK_FINISHED"], JUDGE: [YES]},
        )
    )
    outcome, _ = _evaluate(tmp_path, [tmp_path / "cases"], models=["agent-model"])
    dies, lives = outcome.ran
    assert dies.status == "error" and dies.failures[0].startswith("the case's kernel died")
    assert lives.status == "scored" and lives.normalized_score == 1.0
    assert (tmp_path / "out" / "agent-model" / "dies" / "dies.ipynb").is_file()  # the notebook so far


def test_a_run_told_to_stop_ends_before_its_next_cell_and_says_so(tmp_path, live, make_case):
    import threading

    from twnb.evaluation.case_file import read_case
    from twnb.evaluation.case_run import run_case
    from twnb.evaluation.model_access import ModelAccess
    from twnb.evaluation.run_spec import CaseRun

    case = read_case(make_case("calc"))
    live.load({USER: ["What is 6 times 7?"]})
    stop = threading.Event()
    stop.set()
    spec = CaseRun(case, "agent-model", "agent-model", "agent-model", 1, Path("agent-model/calc"))
    result = run_case(spec, tmp_path / "out", ModelAccess.create(), stop=stop)
    assert (result.status, result.failures) == ("error", ["interrupted (Ctrl-C) after 0 Rounds"])
    assert [r["role"] for r in live.chat_requests()] == [USER]  # no Round was asked for


def test_ctrl_c_keeps_the_table_of_what_finished_and_resume_runs_the_rest(tmp_path, live, make_case):
    make_case("first")
    make_case("second")

    def interrupt_in_the_second(line: str) -> None:
        if "second: Round 1" in line:
            raise KeyboardInterrupt

    live.load(
        _script(_agent_round(), _agent_round(), {USER: ["6 x 7?", "TASK_FINISHED", "6 x 7?"], JUDGE: [YES]})
    )
    options = EvalOptions(paths=[tmp_path / "cases"], out_dir=tmp_path / "out", models=["agent-model"])
    with pytest.raises(KeyboardInterrupt):
        run_evaluation(options, progress=interrupt_in_the_second)
    assert [(r["case_file"], r["status"]) for r in _csv(tmp_path / "out" / "results.csv")] == [
        ("first", "scored"),
        ("second", "running"),
    ]
    live.load(_script(_agent_round(), {USER: ["6 x 7?", "TASK_FINISHED"], JUDGE: [YES]}))
    options.resume = True
    outcome = run_evaluation(options, progress=lambda line: None)
    assert [r.case for r in outcome.ran] == ["second"] and [r.case for r in outcome.resumed] == ["first"]
    assert [r.status for r in outcome.all_results] == ["scored", "scored"]


def test_a_fault_in_one_run_loses_that_run_only_with_its_traceback_kept(tmp_path, live, make_case):
    import os

    odd = make_case("odd", data_files=["pipe"])
    os.mkfifo(odd.parent / "pipe")  # shutil cannot copy a named pipe: an error twnb eval does not expect
    make_case("plain")
    live.load(_script(_agent_round(), {USER: ["What is 6 times 7?", "TASK_FINISHED"], JUDGE: [YES]}))
    outcome, _ = _evaluate(tmp_path, [tmp_path / "cases"], models=["agent-model"])
    odd_result, plain = outcome.ran
    assert odd_result.status == "error"
    assert odd_result.failures[0].startswith("twnb eval failed unexpectedly: SpecialFileError")
    assert "Traceback" in (tmp_path / "out" / "agent-model" / "odd" / "traceback.txt").read_text()
    assert plain.status == "scored"
