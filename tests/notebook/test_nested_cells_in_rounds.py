"""A Round whose code begins a cell of its own, in a real InteractiveShell against the loopback LLM
server. `%%capture` (an allowed magic) runs its body with `run_cell`: the body is still guarded (refused,
recorded in the Round, nothing ran). A cell the code begins with history, as a frontend runs the user's
cells (verification refuses `run_cell` by name; with it off the guard still records), is the code's,
never recorded as one of the user's own cells."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from nb_shell import magics
from support.nb_scripts import answer_round, code, planner

# What the user trusts: IPython may be imported, so verification lets the shell's own `system` through
# (it judges names) and what it does is the runtime guard's to refuse.
ALLOW_IPYTHON = "TaskWeaverMagics.allow_modules = ['IPython']"
CAPTURED = (
    "%%capture\n"
    "import IPython\n"
    "IPython.InteractiveShell.instance().system('touch made-in-a-nested-cell')\n"
    "answer = 0"
)
PLANTED = "planted = 'the model wrote this'"
NESTED_WITH_HISTORY = f"get_ipython().run_cell({PLANTED!r}, store_history=True)\nanswer = 6 * 7\nanswer"


@pytest.fixture
def llm_shell(shell, fake_llm, monkeypatch, clean_env):
    monkeypatch.setenv("TWNB_MODEL", "fake-model")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    shell.run_line_magic("config", ALLOW_IPYTHON)
    yield shell
    for name in ("answer", "planted", "shell", "mine"):
        shell.user_ns.pop(name, None)


def _round(*attempts: str) -> dict[str, list[Any]]:
    return {
        "Planner": [
            planner("Compute 6 times 7.", send_to="CodeInterpreter", step="1. compute 6 times 7"),
            planner("The answer is 42.", send_to="User", step="2. report the answer", stop="Completed"),
        ],
        "CodeInterpreter": [code(text) for text in attempts],
    }


def _first_execution(round: Any) -> dict[str, Any]:
    for post in round.post_list:
        for attachment in post.attachment_list:
            if attachment.type.value == "execution_result":
                return dict(attachment.extra)
    raise AssertionError("no execution result in the Round")


def _as_the_user(ip: Any, source: str) -> Any:
    """A cell as a frontend runs it: with history."""
    return ip.run_cell(source, store_history=True)


def test_the_body_of_a_capture_magic_is_refused_and_the_refusal_is_recorded(llm_shell, fake_llm, clean_env):
    fake_llm.load(_round(CAPTURED, "answer = 6 * 7\nanswer"))
    _as_the_user(llm_shell, "%%taskweaver\nWhat is 6 times 7?")
    assert not (Path(clean_env) / "made-in-a-nested-cell").exists()
    (round,) = magics(llm_shell).notebook.conversation.rounds
    first = _first_execution(round)
    assert first["status"] == "refused"
    assert [r["rule"] for r in first["refusals"]] == ["process"]
    assert round.state == "finished" and llm_shell.user_ns["answer"] == 42


def test_the_cell_the_code_began_is_not_recorded_as_the_users(llm_shell, fake_llm):
    fake_llm.load(_round(NESTED_WITH_HISTORY))
    _as_the_user(llm_shell, "%%taskweaver --no-verify\nWhat is 6 times 7?")
    assert llm_shell.user_ns["planted"] == "the model wrote this"  # it ran, as the code's
    _as_the_user(llm_shell, "mine = 2")
    fake_llm.load(answer_round())
    _as_the_user(llm_shell, "%%taskweaver\nAnd again?")
    first, second = magics(llm_shell).notebook.conversation.rounds
    assert "user_cells" not in first.extra
    assert [cell["source"] for cell in second.extra["user_cells"]] == ["mine = 2"]
