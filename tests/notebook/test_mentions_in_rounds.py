"""@-mentions in a real InteractiveShell's `%%taskweaver` Rounds against the loopback LLM server: what
the CodeInterpreter is sent, what the Round records, and a mention that names nothing."""

from __future__ import annotations

import pytest
from nb_shell import magics
from support.nb_scripts import answer_round


@pytest.fixture
def llm_shell(shell, fake_llm, monkeypatch, clean_env):
    monkeypatch.setenv("TWNB_MODEL", "fake-model")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-abcdefghijklmnopqrstuvwxyz0123")
    yield shell
    for name in ("answer", "sales"):
        shell.user_ns.pop(name, None)


def code_interpreter_prompt(fake_llm) -> str:
    """The last message of the Round's second call (Planner, CodeInterpreter, Planner)."""
    return fake_llm.chat_requests()[1]["body"]["messages"][-1]["content"]


def test_a_mention_of_the_users_frame_puts_its_columns_in_the_code_interpreters_prompt(llm_shell, fake_llm):
    llm_shell.run_cell(
        "import pandas as pd\nsales = pd.DataFrame({'region': ['EMEA'], 'net_revenue': [2.5]})"
    )
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver\nSum @sales by region")
    last_message = code_interpreter_prompt(fake_llm)
    assert "@sales (variable): sales: DataFrame, shape (1, 2)" in last_message
    assert "net_revenue (float64)" in last_message
    (round,) = magics(llm_shell).notebook.conversation.rounds
    assert [m["mention"] for m in round.extra["mentions"]] == ["@sales"]


def test_a_request_without_mentions_sends_what_it_always_sent(llm_shell, fake_llm):
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver\nMail bob@example.com the answer to 6 times 7")
    assert "@-mentions" not in code_interpreter_prompt(fake_llm)
    (round,) = magics(llm_shell).notebook.conversation.rounds
    assert "mentions" not in round.extra


def test_an_unknown_mention_is_named_and_the_round_does_not_start(llm_shell, fake_llm, capsys):
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver\nPlot @salez by region")
    captured = capsys.readouterr()
    assert (
        "@salez: no such variable, file in the notebook's folder, cell or Round"
        in captured.out + captured.err
    )
    assert fake_llm.chat_requests() == []
    assert magics(llm_shell).notebook.conversation.rounds == []
