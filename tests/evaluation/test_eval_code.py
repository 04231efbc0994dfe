"""eval_code as TaskWeaver runs it: a fresh Python in the agent's folder, `chat_history` without the
stop keyword, hit when it exits cleanly."""

from __future__ import annotations

from pathlib import Path

from twnb.evaluation.case_file import ScoringPoint
from twnb.evaluation.chat_messages import AIMessage, HumanMessage, SystemMessage
from twnb.evaluation.eval_code import run_eval_code

HISTORY = [
    SystemMessage("You play the user ..."),
    HumanMessage("The agent is ready."),
    AIMessage("Echo Hello World"),
    HumanMessage("Hello World"),
    AIMessage("TASK_FINISHED"),
]


def _run(code: str, folder: Path, **options):
    return run_eval_code(ScoringPoint("the point", 1.0, code), HISTORY, folder, **options)


def test_taskweaver_style_code_sees_the_agent_last_as_a_human_message(tmp_path: Path):
    code = (
        "last_agent_response = chat_history[-1]\n"
        "assert isinstance(last_agent_response, HumanMessage)\n"
        'assert last_agent_response.content == "Hello World"'
    )
    verdict = _run(code, tmp_path)
    assert (verdict.hit, verdict.judged_by, verdict.error) == (True, "eval_code", None)


def test_the_stop_keyword_is_not_in_the_history_eval_code_reads(tmp_path: Path):
    verdict = _run(
        "assert len(chat_history) == 4 and chat_history[-2].content == 'Echo Hello World'", tmp_path
    )
    assert verdict.hit is True


def test_a_failed_assert_misses_the_point_with_its_message_as_the_reason(tmp_path: Path):
    verdict = _run("assert 1 == 2, f'expected 2, got {1}'", tmp_path)
    assert (verdict.hit, verdict.reason) == (False, "AssertionError: expected 2, got 1")


def test_a_bare_assert_is_explained_by_the_line_that_failed(tmp_path: Path):
    verdict = _run("x = 1\nassert x == 2", tmp_path)
    assert verdict.reason == "AssertionError at eval_code line 2: assert x == 2"


def test_it_runs_in_the_agents_folder_and_reads_what_the_agent_wrote(tmp_path: Path):
    (tmp_path / "a.txt").write_text("7")
    assert _run("assert open('a.txt').read() == '7'", tmp_path).hit is True


def test_it_adds_no_file_to_the_agents_folder(tmp_path: Path):
    _run("pass", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_file_the_agent_never_wrote_misses_the_point(tmp_path: Path):
    verdict = _run("open('b.txt').read()", tmp_path)
    assert verdict.hit is False and verdict.reason.startswith("FileNotFoundError")


def test_code_that_is_not_python_is_not_judged(tmp_path: Path):
    verdict = _run("assert (", tmp_path)
    assert verdict.hit is None and verdict.error.startswith("eval_code is not valid Python")


def test_code_that_runs_too_long_is_stopped_and_not_judged(tmp_path: Path):
    verdict = _run("import time\ntime.sleep(30)", tmp_path, timeout=1)
    assert verdict.hit is None and verdict.error == "eval_code ran longer than 1 s and was stopped"


def test_the_reason_goes_through_the_redactor(tmp_path: Path):
    verdict = _run(
        "assert False, 'the key is sk-abc'",
        tmp_path,
        redact=lambda text: text.replace("sk-abc", "[redacted]"),
    )
    assert verdict.reason == "AssertionError: the key is [redacted]"
