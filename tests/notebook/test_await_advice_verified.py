"""The advice a Round gives for code that awaits at its top level on the live shell passes the Round's
own verification: a model that follows it is not refused again.

A real InteractiveShell runs the `%%taskweaver` cell inside a running event loop, as ipykernel runs
every cell (so the Round's code finds the loop busy, as in a notebook), against the loopback LLM server.
With the default settings verification refuses `asyncio` and `concurrent` (a coroutine scheduled on
the kernel's loop, or a pool's thread, would outlive the Round's time limit and guard), so the advice
is the synchronous API; when the user allows both, it is the thread recipe.
"""

from __future__ import annotations

import ast
import asyncio
import re
from typing import Any

import pytest
from nb_shell import magics
from support.nb_scripts import code, planner

from twnb.roles import verify_code

# Awaits with nothing verification refuses (a library's coroutine, say polars' `collect_async()`).
AWAITING = "async def compute():\n    return 6 * 7\nstarted = True\nanswer = await compute()"
# The two ways the advice can go, as a model following each writes the code again.
SYNCHRONOUS = "import time\ntime.sleep(0.01)\nanswer = 6 * 7\nanswer"
ON_A_THREAD = (
    "import asyncio\nimport concurrent.futures\n"
    "async def main():\n    await asyncio.sleep(0.01)\n    return 6 * 7\n"
    "with concurrent.futures.ThreadPoolExecutor(1) as pool:\n"
    "    answer = pool.submit(asyncio.run, main()).result()\nanswer"
)
TASK = "Wait a moment, then compute 6 times 7."


@pytest.fixture
def llm_shell(shell, fake_llm, monkeypatch, clean_env):
    monkeypatch.setenv("TWNB_MODEL", "fake-model")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    yield shell
    for name in ("answer", "started"):
        shell.user_ns.pop(name, None)


def _round_in_a_running_loop(shell: Any, fake_llm: Any, second_attempt: str) -> Any:
    """The Round, its cell run as ipykernel runs cells: from a callback of a running event loop."""
    fake_llm.load(
        {
            "Planner": [
                planner(TASK, send_to="CodeInterpreter", step="1. wait"),
                planner("The answer is 42.", send_to="User", step="2. report", stop="Completed"),
            ],
            "CodeInterpreter": [code(AWAITING), code(second_attempt)],
        }
    )

    async def the_cell() -> None:
        shell.run_cell(f"%%taskweaver\n{TASK}")

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(the_cell())
    finally:
        loop.close()
    return magics(shell).notebook.conversation.rounds[-1]


def _executions(round_: Any) -> list[dict[str, Any]]:
    return [
        attachment.to_dict()["extra"]
        for post in round_.post_list
        for attachment in post.attachment_list
        if attachment.type.value == "execution_result"
    ]


def _advised_code(error: str) -> list[str]:
    return re.findall(r"`([^`]+)`", error)


def _parses(piece: str) -> bool:
    try:
        ast.parse(piece)
    except SyntaxError:
        return False
    return True


def test_with_the_default_settings_the_advice_shows_no_code_verification_refuses(llm_shell, fake_llm):
    first, _ = _executions(_round_in_a_running_loop(llm_shell, fake_llm, SYNCHRONOUS))
    assert first["error"].startswith("TopLevelAwait:")
    config = magics(llm_shell).notebook.session.code_interpreter.verification
    for piece in _advised_code(first["error"]):
        assert not _parses(piece) or verify_code(piece, config) == [], piece
    assert "asyncio" not in first["error"] and "concurrent" not in first["error"]


def test_with_the_default_settings_the_attempt_following_the_advice_runs(llm_shell, fake_llm):
    round_ = _round_in_a_running_loop(llm_shell, fake_llm, SYNCHRONOUS)
    first, second = _executions(round_)
    assert "write it without `await`" in first["error"]
    assert (second["status"], round_.state) == ("success", "finished")
    assert llm_shell.user_ns["answer"] == 42
    assert "started" not in llm_shell.user_ns  # the awaiting code did not run


def test_when_the_user_allows_asyncio_and_concurrent_the_advice_is_the_thread_recipe_and_it_runs(
    llm_shell, fake_llm
):
    llm_shell.run_line_magic("config", "TaskWeaverMagics.allow_modules = ['asyncio', 'concurrent']")
    round_ = _round_in_a_running_loop(llm_shell, fake_llm, ON_A_THREAD)
    first, second = _executions(round_)
    assert "pool.submit(asyncio.run, main()).result()" in first["error"]
    assert (second["status"], round_.state) == ("success", "finished")
    assert llm_shell.user_ns["answer"] == 42
