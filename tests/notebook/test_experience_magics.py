"""Experience through the magics in a real InteractiveShell against the loopback LLM server: what is
remembered, where, and how it changes the next Round's prompts."""

from __future__ import annotations

import pytest
import yaml
from nb_shell import magics
from support.nb_scripts import answer_round

LESSON = "- Compute products with integer arithmetic and print the answer."


@pytest.fixture
def llm_shell(shell, fake_llm, monkeypatch, clean_env):
    monkeypatch.setenv("TWNB_MODEL", "fake-model")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-abcdefghijklmnopqrstuvwxyz0123")
    yield shell
    shell.user_ns.pop("answer", None)


def test_remembered_text_goes_into_both_roles_prompts_for_a_related_request(llm_shell, fake_llm, clean_env):
    llm_shell.run_line_magic("taskweaver", 'remember "Multiply numbers with integer arithmetic."')
    (saved,) = (clean_env / ".twnb" / "experience").glob("handcrafted_exp_*.yaml")
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver\nMultiply 6 by 7")
    prompts = [r["body"]["messages"][-1]["content"] for r in fake_llm.chat_requests()]
    assert all("Multiply numbers with integer arithmetic." in p for p in prompts)
    (round,) = magics(llm_shell).notebook.conversation.rounds
    assert [e["exp_id"] for e in round.extra["experiences"]] == [
        saved.name.removeprefix("handcrafted_exp_")[:-5]
    ]


def test_a_remembered_round_is_summarised_and_changes_the_next_conversations_prompt(
    llm_shell, fake_llm, clean_env, capsys
):
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    fake_llm.load({"Experience": [{"content": LESSON}]})
    llm_shell.run_line_magic("taskweaver", "remember")
    assert "Remembered the Round as exp_" in capsys.readouterr().out
    folder = clean_env / ".twnb" / "experience"
    (summary,) = folder.glob("exp_*.yaml")
    data = yaml.safe_load(summary.read_text())
    assert data["experience_text"] == LESSON
    assert (folder / data["raw_experience_path"]).exists()
    llm_shell.run_line_magic("taskweaver", "reset")
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver\nWhat is 8 times 9? Use integer arithmetic.")
    code_prompt = fake_llm.chat_requests()[-2]["body"]["messages"][-1]["content"]
    assert LESSON in code_prompt


def test_the_experience_command_lists_shows_and_deletes(llm_shell, clean_env, capsys):
    llm_shell.run_line_magic("taskweaver", 'remember "Use plotly for charts."')
    (saved,) = (clean_env / ".twnb" / "experience").glob("handcrafted_exp_*.yaml")
    exp_id = saved.name.removeprefix("handcrafted_exp_")[:-5]
    capsys.readouterr()
    llm_shell.run_line_magic("taskweaver", "experience")
    assert f"{exp_id} (handcrafted): Use plotly for charts." in capsys.readouterr().out
    llm_shell.run_line_magic("taskweaver", f"experience show {exp_id}")
    assert "Use plotly for charts." in capsys.readouterr().out
    llm_shell.run_line_magic("taskweaver", f"experience delete {exp_id}")
    assert not saved.exists()


def test_with_an_embedding_model_the_round_ranks_experience_by_embeddings(
    llm_shell, fake_llm, monkeypatch, capsys
):
    monkeypatch.setenv("TWNB_EMBEDDING_MODEL", "fake-embedding")
    llm_shell.run_line_magic("taskweaver", 'remember "Multiply numbers with integer arithmetic."')
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver\nMultiply 6 by 7 with integer arithmetic")
    (round,) = magics(llm_shell).notebook.conversation.rounds
    (used,) = round.extra["experiences"]
    assert used["ranked_by"] == "embeddings (fake-embedding)"
    assert [r["body"]["model"] for r in fake_llm.requests() if r["path"].endswith("/embeddings")] == [
        "fake-embedding"
    ]
    assert "twnb: Experience is ranked by BM25" not in capsys.readouterr().err


def test_a_server_without_embeddings_is_said_once_and_bm25_ranks(llm_shell, fake_llm, monkeypatch, capsys):
    monkeypatch.setenv("TWNB_EMBEDDING_MODEL", "fake-embedding")
    fake_llm.embeddings = False
    llm_shell.run_line_magic("taskweaver", 'remember "Multiply numbers with integer arithmetic."')
    for request in ("Multiply 6 by 7", "Multiply 8 by 9"):
        fake_llm.load(answer_round())
        llm_shell.run_cell(f"%%taskweaver\n{request}")
    notes = [line for line in capsys.readouterr().err.splitlines() if "Experience is ranked by BM25" in line]
    assert len(notes) == 1 and notes[0].startswith("twnb: Experience is ranked by BM25: the server gave no")
    rounds = magics(llm_shell).notebook.conversation.rounds
    assert [r.extra["experiences"][0]["ranked_by"] for r in rounds] == ["BM25", "BM25"]
