"""A Round whose code awaits at its top level, in a notebook run by nbclient in a real kernel: the code
runs with `run_cell` inside the `%%taskweaver` cell, whose event loop is busy running that cell, so it
cannot run. It is not started; the Round records one line saying so and what works instead (the model's
execution error), the next attempt follows that advice and runs, and the user's own await cells are
untouched."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakellm.server import FakeLLMServer
from support.nb_run import cell_text, llm_env, outputs_with, run_notebook
from support.nb_scripts import code, planner

from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow

# Everything before the `await` would set `started`, everything after it `waited`.
AWAITING = "import asyncio\nstarted = True\nawait asyncio.sleep(0.1)\nwaited = True"
# The advice the Round gave, as a model following it writes the code again.
THE_ADVICE = (
    "with concurrent.futures.ThreadPoolExecutor(1) as pool: "
    "result = pool.submit(asyncio.run, main()).result()"
)
FOLLOWING_THE_ADVICE = (
    "import asyncio\nimport concurrent.futures\n"
    "async def main():\n    await asyncio.sleep(0.1)\n    return 6 * 7\n"
    f"{THE_ADVICE}\nanswer = result\nanswer"
)
TASK = "Wait a moment, then compute 6 times 7."
USERS_AWAIT_CELL = "import asyncio\nawait asyncio.sleep(0.05)\nmine = 'the user awaited'\nprint(mine)"
LEFT = "print(sorted(name for name in ('started', 'waited') if name in globals()), answer)"


@pytest.fixture(scope="module")
def notebook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One notebook: the Round (awaiting code, then the advised code), the user's own await cell, and a
    cell saying which of the awaiting code's variables exist."""
    folder = tmp_path_factory.mktemp("await-in-rounds")
    server = FakeLLMServer().start()
    try:
        server.load(
            {
                "Planner": [
                    planner(TASK, send_to="CodeInterpreter", step="1. wait"),
                    planner("The answer is 42.", send_to="User", step="2. report", stop="Completed"),
                ],
                "CodeInterpreter": [code(AWAITING), code(FOLLOWING_THE_ADVICE)],
            }
        )
        cells = [
            "%load_ext twnb",
            "%config TaskWeaverMagics.allow_modules = ['asyncio', 'concurrent']",
            f"%%taskweaver\n{TASK}",
            USERS_AWAIT_CELL,
            LEFT,
        ]
        nb, _ = run_notebook(folder, cells, llm_env(server, Path(folder)))
        yield nb
    finally:
        server.stop()


def _attempts(nb: Any) -> list[dict[str, Any]]:
    (output,) = outputs_with(nb, MIME_TYPE)
    posts = output["data"][MIME_TYPE]["post_list"]
    return [p for p in posts if p["send_from"] == "CodeInterpreter"]


def _execution(post: dict[str, Any]) -> dict[str, Any]:
    return dict(next(a for a in post["attachment_list"] if a["type"] == "execution_result"))


def test_the_round_records_one_line_saying_why_the_awaiting_code_did_not_run(notebook):
    record = _execution(_attempts(notebook)[0])
    (error_line,) = record["extra"]["error"].splitlines()
    assert error_line.startswith("TopLevelAwait: Top-level `await` cannot run in a Round on the notebook's")
    assert "none of this code ran" in error_line
    assert "RuntimeError" not in record["content"] and "Traceback" not in record["content"]


def test_nothing_of_the_awaiting_code_ran(notebook):
    assert cell_text(notebook.cells[4]).strip() == "[] 42"  # neither `started` nor `waited`


def test_the_advice_is_code_the_model_can_follow(notebook):
    error = _execution(_attempts(notebook)[0])["extra"]["error"]
    assert THE_ADVICE in re.findall(r"`([^`]+)`", error)


def test_the_next_attempt_following_the_advice_runs(notebook):
    first, second = _attempts(notebook)
    assert first["send_to"] == "CodeInterpreter"  # told the error, it revised
    record = _execution(second)
    assert (record["extra"]["status"], second["send_to"]) == ("success", "Planner")
    assert "42" in record["content"]


def test_the_users_own_await_cell_runs(notebook):
    assert cell_text(notebook.cells[3]).strip() == "the user awaited"
