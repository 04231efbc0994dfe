"""A replayed `%%taskweaver` Round describes its @-mentions as its recording did, whatever the frame and
the file hold today (session/recorded_context.py, issue 39 point 4).

A real InteractiveShell records a Round against the loopback LLM server (`TWNB_RECORD`), saves it with
its cassette (`%taskweaver save`), starts a new conversation, and replays it from the cassette
(`TWNB_REPLAY`) after the user's frame and file changed. The cassette holds each prompt the recording
sent; the replay compares its own prompts with them (a difference is recorded as drift), and the
loopback server is not asked again.

Today's frame has other rows, not other columns: its columns are also in the kernel's variables list,
which every prompt carries beside the mentions; other columns there are a drift of the kernel, and a
replay says so."""

from __future__ import annotations

import pandas as pd
import pytest
from nb_shell import magics
from support.nb_scripts import answer_round

from twnb.llm import load_cassette
from twnb.memory import Round

REQUEST = "Sum @sales by region and join @regions.csv"
RECORDED_ROWS = {"region": ["EMEA", "AMER"], "net_revenue": [2.5, 4.0]}
TODAYS_ROWS = {"region": ["APAC", "LATAM"], "net_revenue": [9.75, 1.25]}  # same columns, other rows
RECORDED_CSV = "region,manager\nEMEA,Ana\nAMER,Bo\n"
TODAYS_CSV = "region,manager\nAPAC,Chen\nLATAM,Dora\n"


@pytest.fixture
def llm_shell(shell, fake_llm, monkeypatch, clean_env):
    monkeypatch.setenv("TWNB_MODEL", "fake-model")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-abcdefghijklmnopqrstuvwxyz0123")
    yield shell
    for name in ("answer", "sales"):
        shell.user_ns.pop(name, None)


def record(shell, fake_llm, monkeypatch, clean_env, *cells: str) -> Round:
    """`cells` run with recording on, the conversation saved with its cassette, then a new conversation
    replaying that cassette; the recorded Round (the last) is returned. The variables the Round's code
    made are dropped, as a fresh kernel has none."""
    monkeypatch.setenv("TWNB_RECORD", "1")
    fake_llm.load(answer_round())
    for cell in cells:
        shell.run_cell(cell)
    recorded = magics(shell).notebook.conversation.rounds[-1]
    shell.run_line_magic("taskweaver", "save analysis.yaml")
    shell.run_line_magic("taskweaver", "reset")
    shell.user_ns.pop("answer", None)
    monkeypatch.delenv("TWNB_RECORD")
    monkeypatch.setenv("TWNB_REPLAY", str(clean_env / "analysis.cassette.yaml"))
    return recorded


def code_interpreter_prompt(clean_env) -> str:
    """The last message of the recorded CodeInterpreter call, as the cassette holds it."""
    (call,) = [e for e in load_cassette(clean_env / "analysis.cassette.yaml") if e.role == "CodeInterpreter"]
    return str(call.messages[-1]["content"])


def make_sales(shell, rows: dict[str, list[object]]) -> None:
    shell.user_ns["sales"] = pd.DataFrame(rows)


def test_a_replay_sends_what_the_recordings_mentions_added_not_todays_frame_and_file(
    llm_shell, fake_llm, monkeypatch, clean_env, capsys
):
    make_sales(llm_shell, RECORDED_ROWS)
    (clean_env / "regions.csv").write_text(RECORDED_CSV)
    recorded = record(llm_shell, fake_llm, monkeypatch, clean_env, f"%%taskweaver\n{REQUEST}")
    sent = code_interpreter_prompt(clean_env)
    assert "AMER" in sent and "Bo" in sent  # the recording described the frame's rows and the file's head
    make_sales(llm_shell, TODAYS_ROWS)
    (clean_env / "regions.csv").write_text(TODAYS_CSV)
    capsys.readouterr()

    llm_shell.run_cell(f"%%taskweaver\n{REQUEST}")

    (replayed,) = magics(llm_shell).notebook.conversation.rounds
    assert replayed.state == "finished"
    assert "drift" not in replayed.extra["replay"]  # every prompt as the cassette recorded it
    assert replayed.extra["mentions"] == recorded.extra["mentions"]
    assert len(fake_llm.chat_requests()) == 3  # the recording's calls only: the replay asked no server
    said = capsys.readouterr()
    assert (
        "Since the recording, @sales, @regions.csv have changed: the replay's prompt describes them as "
        "recorded, and its code runs on what the notebook holds today." in said.out + said.err
    )


def test_a_replay_whose_frame_and_file_are_as_recorded_says_nothing_of_them(
    llm_shell, fake_llm, monkeypatch, clean_env
):
    make_sales(llm_shell, RECORDED_ROWS)
    (clean_env / "regions.csv").write_text(RECORDED_CSV)
    record(llm_shell, fake_llm, monkeypatch, clean_env, f"%%taskweaver\n{REQUEST}")

    llm_shell.run_cell(f"%%taskweaver\n{REQUEST}")

    (replayed,) = magics(llm_shell).notebook.conversation.rounds
    assert "context_notes" not in replayed.extra and "drift" not in replayed.extra["replay"]


def test_a_mention_that_names_nothing_today_replays_as_recorded(llm_shell, fake_llm, monkeypatch, clean_env):
    (clean_env / "regions.csv").write_text(RECORDED_CSV)
    request = "Count the managers in @regions.csv"
    recorded = record(llm_shell, fake_llm, monkeypatch, clean_env, f"%%taskweaver\n{request}")
    (clean_env / "regions.csv").unlink()

    llm_shell.run_cell(f"%%taskweaver\n{request}")

    (replayed,) = magics(llm_shell).notebook.conversation.rounds
    assert replayed.state == "finished" and "drift" not in replayed.extra["replay"]
    assert replayed.extra["mentions"] == recorded.extra["mentions"]
    assert replayed.extra["context_notes"] == [
        "Since the recording, @regions.csv names nothing now: the replay's prompt describes it as "
        "recorded, and its code runs on what the notebook holds today."
    ]


def test_a_mention_the_recording_refused_is_refused_again_and_the_replay_stays_in_step(
    llm_shell, fake_llm, monkeypatch, clean_env, capsys
):
    make_sales(llm_shell, RECORDED_ROWS)
    refused, request = "%%taskweaver\nPlot @salez by region", "%%taskweaver\nSum @sales by region"
    record(llm_shell, fake_llm, monkeypatch, clean_env, refused, request)
    capsys.readouterr()

    llm_shell.run_cell(refused)
    said = capsys.readouterr()
    assert "@salez: no such variable, file in the notebook's folder, cell or Round" in said.out + said.err
    assert magics(llm_shell).notebook.conversation.rounds == []  # no Round: no recorded reply taken

    llm_shell.run_cell(request)
    (replayed,) = magics(llm_shell).notebook.conversation.rounds
    assert replayed.state == "finished" and "drift" not in replayed.extra["replay"]


def test_a_replay_without_its_recorded_conversation_describes_todays_frame(
    llm_shell, fake_llm, monkeypatch, clean_env
):
    make_sales(llm_shell, RECORDED_ROWS)
    record(llm_shell, fake_llm, monkeypatch, clean_env, "%%taskweaver\nSum @sales by region")
    (clean_env / "analysis.yaml").unlink()  # the cassette copied alone
    make_sales(llm_shell, TODAYS_ROWS)

    llm_shell.run_cell("%%taskweaver\nSum @sales by region")

    (replayed,) = magics(llm_shell).notebook.conversation.rounds
    assert "LATAM" in replayed.extra["mentions"][0]["text"]
    assert "CodeInterpreter" in replayed.extra["replay"]["drift"][0]
