"""`%taskweaver undo` in a real InteractiveShell with `%load_ext twnb`, Rounds answered by the loopback LLM
server: each kind of change a Round makes is taken back, later changes refuse it unless --force, and
the Round stays in the record, marked undone."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from nb_shell import magics
from support.nb_scripts import code, planner, remember_offer

CANARY = "sk-canary-abcdefghijklmnopqrstuvwxyz0123"


def code_round(*pieces: str) -> dict[str, list[Any]]:
    """Planner -> CodeInterpreter (each piece of code, in turn) -> Planner -> User."""
    to_code = planner("Do it.", send_to="CodeInterpreter", step="1. compute 6 times 7")
    done = planner("Done.", send_to="User", step="2. report the answer", stop="Completed")
    replies = [{"content": to_code}]
    replies += [{"content": to_code} for _ in pieces[1:]]
    coder = [{"content": code(piece)} for piece in pieces]
    return {"Planner": [*replies, {"content": done}], "CodeInterpreter": coder}


@pytest.fixture
def ip(shell, fake_llm, monkeypatch, clean_env):
    monkeypatch.setenv("TWNB_MODEL", "fake-model")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    names = set(shell.user_ns)
    yield shell
    for name in set(shell.user_ns) - names:
        shell.user_ns.pop(name, None)


def run_round(ip: Any, fake_llm: Any, *pieces: str, flags: str = "") -> Any:
    fake_llm.load(code_round(*pieces))
    ip.run_cell(f"%%taskweaver {flags}\nDo it.")
    return magics(ip).notebook.conversation.rounds[-1]


def undo(ip: Any, capsys: Any, line: str = "") -> tuple[str, str]:
    capsys.readouterr()
    ip.run_line_magic("taskweaver", f"undo {line}".strip())
    captured = capsys.readouterr()
    return captured.out.strip(), captured.err.strip()


def test_a_variable_the_round_created_is_removed(ip, fake_llm, capsys):
    run_round(ip, fake_llm, "total = 6 * 7")
    assert ip.user_ns["total"] == 42
    out, _ = undo(ip, capsys)
    assert "total" not in ip.user_ns
    assert out.splitlines() == ["Round 1: Undone by the user: removed total.", remember_offer(1)]


def test_a_rebound_variable_gets_its_very_object_back(ip, fake_llm, capsys):
    original = pd.DataFrame({"a": [1, 2, 3]})
    ip.user_ns["df"] = original
    run_round(ip, fake_llm, "df = df[df.a > 1]")
    undo(ip, capsys)
    assert ip.user_ns["df"] is original


def test_a_deleted_variable_comes_back(ip, fake_llm, capsys):
    kept = [1, 2]
    ip.user_ns["numbers"] = kept
    # The runtime guard puts back the user's variables generated code deletes; unverified code may.
    run_round(ip, fake_llm, "del numbers", flags="--no-verify")
    assert "numbers" not in ip.user_ns
    undo(ip, capsys)
    assert ip.user_ns["numbers"] is kept


def test_a_column_added_in_place_is_taken_back(ip, fake_llm, capsys):
    ip.user_ns["df"] = pd.DataFrame({"a": [1.0, 2.0]})
    run_round(ip, fake_llm, 'df["b"] = df["a"] * 2\ndf.loc[0, "a"] = 99')
    undo(ip, capsys)
    pd.testing.assert_frame_equal(ip.user_ns["df"], pd.DataFrame({"a": [1.0, 2.0]}))


def test_a_frame_changed_column_by_column_is_restored_in_place_in_its_column_order(ip, fake_llm, capsys):
    original = pd.DataFrame({"a": [1.0, 2.0], "b": [3, 4], "c": ["x", "y"]})
    ip.user_ns["df"] = original
    ip.user_ns["same"] = original
    run_round(ip, fake_llm, 'df["a"] = df["a"] * 10\ndf["d"] = 0\ndel df["b"]')
    assert list(original.columns) == ["a", "c", "d"]
    undo(ip, capsys)
    assert ip.user_ns["df"] is original  # the frame itself: `same` sees it restored too
    pd.testing.assert_frame_equal(original, pd.DataFrame({"a": [1.0, 2.0], "b": [3, 4], "c": ["x", "y"]}))


def test_rows_dropped_in_place_come_back(ip, fake_llm, capsys):
    ip.user_ns["df"] = pd.DataFrame({"a": [1, 2, 3]})
    run_round(ip, fake_llm, "df.drop(index=[0, 1], inplace=True)")
    assert len(ip.user_ns["df"]) == 1
    undo(ip, capsys)
    assert ip.user_ns["df"]["a"].tolist() == [1, 2, 3]


def test_a_list_appended_to_is_restored_in_place(ip, fake_llm, capsys):
    items = [1, 2]
    ip.user_ns["items"] = items
    ip.user_ns["alias"] = items
    run_round(ip, fake_llm, "items.append(3)")
    undo(ip, capsys)
    assert ip.user_ns["items"] is items and ip.user_ns["alias"] == [1, 2]


def test_a_mutated_dict_is_restored(ip, fake_llm, capsys):
    ip.user_ns["config"] = {"rate": 1, "nested": {"k": [1]}}
    run_round(ip, fake_llm, 'config["rate"] = 2\nconfig.pop("nested")\nconfig.update(extra=True)')
    undo(ip, capsys)
    assert ip.user_ns["config"] == {"rate": 1, "nested": {"k": [1]}}


def test_a_file_the_round_created_is_moved_beside_the_notebook(ip, fake_llm, capsys, clean_env):
    run_round(ip, fake_llm, 'open("report.txt", "w").write("made")')
    round = magics(ip).notebook.conversation.rounds[-1]
    out, _ = undo(ip, capsys)
    moved = clean_env / "twnb-undone" / round.id / "report.txt"
    assert not (clean_env / "report.txt").exists()
    assert moved.read_text() == "made"
    assert f"moved report.txt to twnb-undone/{round.id}/" in out


def test_a_file_the_round_overwrote_gets_its_content_back(ip, fake_llm, capsys, clean_env):
    (clean_env / "sales.csv").write_text("a,b\n1,2\n")
    run_round(ip, fake_llm, 'import pandas as pd\npd.DataFrame({"x": [0]}).to_csv("sales.csv", index=False)')
    assert (clean_env / "sales.csv").read_text() != "a,b\n1,2\n"
    out, _ = undo(ip, capsys)
    assert (clean_env / "sales.csv").read_text() == "a,b\n1,2\n"
    assert "restored sales.csv" in out


def test_undo_is_refused_naming_what_a_later_round_changed(ip, fake_llm, capsys):
    ip.user_ns["df"] = pd.DataFrame({"a": [1]})
    run_round(ip, fake_llm, 'df["b"] = 1')
    run_round(ip, fake_llm, 'df["c"] = 2')
    _, err = undo(ip, capsys, "1")
    assert err == (
        "Undo of Round 1 refused: df (by Round 2) changed since the Round; "
        "%taskweaver undo 1 --force undoes it anyway (their later changes are lost)."
    )
    assert list(ip.user_ns["df"].columns) == ["a", "b", "c"]
    assert not magics(ip).notebook.conversation.rounds[0].undone


def test_undo_is_refused_when_the_users_own_cell_rebound_the_variable(ip, fake_llm, capsys):
    run_round(ip, fake_llm, "total = 42")
    ip.run_cell("total = 0", store_history=True)
    _, err = undo(ip, capsys)
    assert err.startswith("Undo of Round 1 refused: total changed since the Round;")
    assert ip.user_ns["total"] == 0


def test_force_undoes_past_later_changes(ip, fake_llm, capsys):
    ip.user_ns["df"] = pd.DataFrame({"a": [1]})
    run_round(ip, fake_llm, 'df["b"] = 1')
    run_round(ip, fake_llm, 'df["c"] = 2')
    out, _ = undo(ip, capsys, "1 --force")
    assert list(ip.user_ns["df"].columns) == ["a"]
    assert out.splitlines()[0].endswith("Forced past later changes to df.")
    assert magics(ip).notebook.conversation.rounds[0].extra["undone"]["forced"] is True


def test_an_object_over_the_budget_is_named_before_the_run_and_at_undo(ip, fake_llm, capsys, monkeypatch):
    monkeypatch.setenv("TWNB_UNDO_BUDGET_MB", "1")
    ip.user_ns["big"] = np.zeros(2 * 1024 * 1024 // 8 + 1)  # just over 2 MB
    ip.user_ns["small"] = [1]
    capsys.readouterr()
    round = run_round(ip, fake_llm, "big[0] = 7\nsmall.append(2)")
    said = capsys.readouterr().err
    line = "`big` (2.0 MB) changed in place cannot be undone"
    assert f"twnb: {line}" in said
    assert round.extra["undo_limits"] == [line]
    out, _ = undo(ip, capsys)
    assert out.splitlines()[0].endswith(f"Not undone: {line}.")
    assert ip.user_ns["small"] == [1] and ip.user_ns["big"][0] == 7


def test_a_round_that_failed_halfway_is_undone(ip, fake_llm, capsys):
    ip.user_ns["rows"] = [1, 2]
    to_code = planner("Do it.", send_to="CodeInterpreter", step="1. compute 6 times 7")
    raising = code("rows.append(3)\nhalf = 1\nraise ValueError('boom')")
    # The code raises; its revision's call fails: the Round ends failed with the first run's changes.
    revision_fails = {"content": "", "fault": "http_401", "times": 10}
    fake_llm.load(
        {"Planner": [{"content": to_code}], "CodeInterpreter": [{"content": raising}, revision_fails]}
    )
    ip.run_cell("%%taskweaver\nDo it.")
    round = magics(ip).notebook.conversation.rounds[-1]
    assert round.state == "failed" and ip.user_ns["rows"] == [1, 2, 3]
    undo(ip, capsys)
    assert ip.user_ns["rows"] == [1, 2] and "half" not in ip.user_ns


def test_the_undone_round_stays_in_the_record_and_in_history(ip, fake_llm, capsys):
    run_round(ip, fake_llm, "total = 42")
    undo(ip, capsys)
    rounds = magics(ip).notebook.conversation.rounds
    assert len(rounds) == 1 and rounds[0].extra["undone"]["removed"] == ["total"]
    capsys.readouterr()
    ip.run_line_magic("taskweaver", "history")
    assert "finished, undone" in capsys.readouterr().out


def test_undoing_the_same_round_twice_is_refused(ip, fake_llm, capsys):
    run_round(ip, fake_llm, "total = 42")
    undo(ip, capsys, "1")
    _, err = undo(ip, capsys, "1")
    assert err == "Round 1 was undone already; nothing was done."


def test_the_model_is_told_the_round_was_undone(ip, fake_llm, capsys):
    run_round(ip, fake_llm, "total = 42")
    undo(ip, capsys)
    run_round(ip, fake_llm, "x = 1")
    prompt = str(fake_llm.chat_requests()[-3]["body"]["messages"])
    assert "The user undid this round" in prompt


def test_only_the_last_five_rounds_keep_what_undo_needs(ip, fake_llm, capsys):
    for number in range(6):
        run_round(ip, fake_llm, f"v{number} = {number}")
    _, err = undo(ip, capsys, "1")
    assert err.startswith("Round 1 cannot be undone: its snapshots are gone (only the last 5 Rounds")
    assert ip.user_ns["v0"] == 0
    out, _ = undo(ip, capsys, "2")
    assert out.splitlines() == ["Round 2: Undone by the user: removed v1.", remember_offer(2)]
    assert "v1" not in ip.user_ns


def test_reset_lets_go_of_what_undo_kept(ip, fake_llm, capsys):
    run_round(ip, fake_llm, "total = 42")
    ip.run_line_magic("taskweaver", "reset")
    assert magics(ip).notebook.undo_log.snapshots == {}
