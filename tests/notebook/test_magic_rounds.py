"""`%%taskweaver` Rounds in a real InteractiveShell (no widget frontend) against the loopback LLM server."""

from __future__ import annotations

import pytest
from nb_shell import magics
from support.nb_scripts import answer_round, code, failing_round, planner

from twnb.notebook.held_back import INTERRUPTED_CELLS, CellsHeldBack
from twnb.notebook.magics import RoundFailedError

CANARY = "sk-canary-abcdefghijklmnopqrstuvwxyz0123"


@pytest.fixture
def llm_shell(shell, fake_llm, monkeypatch, clean_env):
    monkeypatch.setenv("TWNB_MODEL", "fake-model")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    yield shell
    for name in ("answer", "boom"):
        shell.user_ns.pop(name, None)


def test_round_prints_progress_and_the_final_round_as_text(llm_shell, fake_llm, capsys):
    fake_llm.load(answer_round(final_message="The answer is 42."))
    result = llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    out = capsys.readouterr().out
    assert result.success
    assert "[twnb] Planner -> CodeInterpreter: Compute 6 times 7." in out
    assert "[finished]" in out
    assert "The answer is 42." in out
    assert llm_shell.user_ns["answer"] == 42


def test_the_conversation_lives_on_across_cells(llm_shell, fake_llm):
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver\nAnd again?")
    rounds = magics(llm_shell).notebook.conversation.rounds
    assert [r.user_query for r in rounds] == ["What is 6 times 7?", "And again?"]
    second_prompt = fake_llm.chat_requests()[3]["body"]["messages"]
    assert "What is 6 times 7?" in str(second_prompt)


def test_model_flag_applies_to_that_round_only(llm_shell, fake_llm):
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver --model other-model\nWhat is 6 times 7?")
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver\nAgain?")
    models = [r["body"]["model"] for r in fake_llm.chat_requests()]
    assert models == ["other-model"] * 3 + ["fake-model"] * 3
    assert len(magics(llm_shell).notebook.conversation.rounds) == 2


def test_failed_round_shows_why_without_traceback_or_raising(llm_shell, fake_llm, capsys):
    fake_llm.load(failing_round())
    result = llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    out = capsys.readouterr()
    assert result.success
    assert "[failed]" in out.out
    assert "Round failed: The LLM call failed" in out.out
    assert "Traceback" not in out.out + out.err
    assert CANARY not in out.out + out.err


def test_failed_round_with_strict_raises_the_reason(llm_shell, fake_llm):
    fake_llm.load(failing_round())
    with pytest.raises(RoundFailedError, match="The LLM call failed") as caught:
        llm_shell.run_cell_magic("taskweaver", "--strict", "What is 6 times 7?")
    assert CANARY not in str(caught.value)


def test_strict_does_not_raise_for_a_finished_round(llm_shell, fake_llm):
    fake_llm.load(answer_round())
    llm_shell.run_cell_magic("taskweaver", "--strict", "What is 6 times 7?")
    assert magics(llm_shell).notebook.conversation.rounds[-1].state == "finished"


def test_interrupted_round_says_interrupted(llm_shell, fake_llm, capsys):
    fake_llm.load(
        {
            "Planner": [planner("Run it.", send_to="CodeInterpreter", step="1. compute 6 times 7")],
            "CodeInterpreter": [code("boom = 1\nraise KeyboardInterrupt")],
        }
    )
    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    out = capsys.readouterr().out
    assert "[interrupted]" in out
    assert "[twnb] Interrupted; every post made so far is kept." in out
    assert "by the user" not in out and "Ctrl-C" not in out


def test_a_terminal_prints_the_whole_round_not_the_summary_a_notebook_saves(llm_shell, fake_llm, capsys):
    fake_llm.load(answer_round(final_message="The answer is 42."))
    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    out = capsys.readouterr().out
    assert "    [code]\n      answer = 6 * 7\n" in out  # the code, as the terminal's text view draws it
    assert "conversation (4 posts):" in out
    assert "a summary: the HTML view shows the whole Round" not in out


def test_show_in_a_terminal_prints_the_whole_round(llm_shell, fake_llm, capsys):
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    round_id = magics(llm_shell).notebook.conversation.rounds[0].id
    capsys.readouterr()
    llm_shell.run_line_magic("taskweaver", f"show {round_id}")
    out = capsys.readouterr().out
    assert "      answer = 6 * 7\n" in out and "conversation (4 posts):" in out


def test_show_after_a_round_never_calls_the_llm(llm_shell, fake_llm, capsys):
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    calls = len(fake_llm.chat_requests())
    round_id = magics(llm_shell).notebook.conversation.rounds[0].id
    capsys.readouterr()
    llm_shell.run_line_magic("taskweaver", f"show {round_id}")
    assert f"twnb Round {round_id} [finished]" in capsys.readouterr().out
    assert len(fake_llm.chat_requests()) == calls


def test_load_latest_after_reset_brings_the_conversation_back(llm_shell, fake_llm, capsys):
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    round_id = magics(llm_shell).notebook.conversation.rounds[0].id
    llm_shell.run_line_magic("taskweaver", "reset")
    llm_shell.run_line_magic("taskweaver", "load --latest")
    assert [r.id for r in magics(llm_shell).notebook.conversation.rounds] == [round_id]


def test_ctrl_c_while_the_llm_streams_ends_the_round_interrupted(llm_shell, fake_llm, capsys):
    import _thread
    import threading
    import time

    slow = planner("x" * 400, send_to="CodeInterpreter", step="1. compute 6 times 7")
    fake_llm.load({"Planner": [{"content": slow, "chunk_size": 4, "delay_s": 0.02}]})
    stop = threading.Event()

    def ctrl_c_once_streaming() -> None:  # what Ctrl-C / the kernel's Interrupt button does
        while not fake_llm.chat_requests():
            if stop.wait(0.01):
                return
        time.sleep(0.2)
        _thread.interrupt_main()

    thread = threading.Thread(target=ctrl_c_once_streaming)
    thread.start()
    try:
        result = llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    finally:
        stop.set()
        thread.join()
    out = capsys.readouterr().out
    assert isinstance(result.error_in_exec, CellsHeldBack)
    assert "[interrupted]" in out
    assert magics(llm_shell).notebook.conversation.rounds[-1].state == "failed"


def test_an_interrupted_round_ends_its_cell_with_one_line_so_the_queued_cells_do_not_run(
    llm_shell, fake_llm, capsys
):
    """As an interrupted plain cell ends with KeyboardInterrupt: the kernel then drops the cells queued
    below (Run All). The Round says why too."""
    fake_llm.load(
        {
            "Planner": [planner("Run it.", send_to="CodeInterpreter", step="1. compute 6 times 7")],
            "CodeInterpreter": [code("boom = 1\nraise KeyboardInterrupt")],
        }
    )
    result = llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    out = capsys.readouterr().out
    assert isinstance(result.error_in_exec, CellsHeldBack)
    assert f"Cells below not run: {INTERRUPTED_CELLS}" in out
    assert "CellsHeldBack" not in out  # one line, no traceback of twnb's own
    round = magics(llm_shell).notebook.conversation.rounds[-1]
    assert round.extra["held_back_cells"] == INTERRUPTED_CELLS


def test_the_autosave_says_why_the_queued_cells_did_not_run(llm_shell, fake_llm):
    from twnb.session.autosave import load_autosaved_conversation

    fake_llm.load(
        {
            "Planner": [planner("Run it.", send_to="CodeInterpreter", step="1. compute 6 times 7")],
            "CodeInterpreter": [code("boom = 1\nraise KeyboardInterrupt")],
        }
    )
    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    session = magics(llm_shell).notebook.session
    reloaded = load_autosaved_conversation(session.autosave_dir).rounds[-1]
    assert reloaded.extra["held_back_cells"] == INTERRUPTED_CELLS


def test_a_round_that_failed_otherwise_lets_the_queued_cells_run(llm_shell, fake_llm):
    fake_llm.load(failing_round())
    result = llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    assert result.success
    assert "held_back_cells" not in magics(llm_shell).notebook.conversation.rounds[-1].extra


def _one_code_round(*codes: str) -> dict:
    """Planner -> CodeInterpreter (each code in turn, revising) -> Planner -> User."""
    step = "1. compute 6 times 7"
    return {
        "Planner": [
            planner("Compute 6 times 7.", send_to="CodeInterpreter", step=step),
            planner("Done.", send_to="User", step="2. report the answer", stop="Completed"),
        ],
        "CodeInterpreter": [code(text) for text in codes],
    }


def test_no_verify_runs_code_that_verification_refuses(llm_shell, fake_llm):
    fake_llm.load(_one_code_round("import colorsys\nanswer = 42\nanswer"))
    llm_shell.run_cell("%%taskweaver --no-verify\nWhat is 6 times 7?")
    assert llm_shell.user_ns.get("answer") == 42


def test_without_no_verify_that_code_is_refused(llm_shell, fake_llm):
    fake_llm.load(_one_code_round("import colorsys\nanswer = 42\nanswer"))
    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    assert "answer" not in llm_shell.user_ns
    round = magics(llm_shell).notebook.conversation.rounds[-1]
    kinds = [a.type.value for p in round.post_list for a in p.attachment_list]
    assert "verification" in kinds
    refused = next(p for p in round.post_list if p.message.startswith("Verification refused"))
    assert "%config TaskWeaverMagics.allow_modules = ['colorsys']" in refused.message


def test_allow_modules_lets_a_module_through_verification(llm_shell, fake_llm):
    llm_shell.run_line_magic("config", "TaskWeaverMagics.allow_modules = ['colorsys']")
    fake_llm.load(_one_code_round("import colorsys\nanswer = 42\nanswer"))
    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    assert llm_shell.user_ns.get("answer") == 42
    system = fake_llm.chat_requests()[1]["body"]["messages"][0]["content"]
    assert "colorsys" in system  # the CodeInterpreter is told it may import it


def test_block_functions_refuses_a_call_verification_allows_by_default(llm_shell, fake_llm, tmp_path):
    data = tmp_path / "keep.csv"
    data.write_text("a\n1\n")
    llm_shell.run_line_magic("config", "TaskWeaverMagics.block_functions = ['os.remove']")
    fake_llm.load(_one_code_round(f"import os\nos.remove({str(data)!r})"))
    llm_shell.run_cell("%%taskweaver\nDelete keep.csv")
    assert data.is_file()
    round = magics(llm_shell).notebook.conversation.rounds[-1]
    refused = next(p for p in round.post_list if p.message.startswith("Verification refused"))
    assert "os.remove" in refused.message
    system = fake_llm.chat_requests()[1]["body"]["messages"][0]["content"]
    assert "os.remove" in system  # the CodeInterpreter is told never to call it


def test_timeout_flag_stops_slow_code_and_the_round_revises(llm_shell, fake_llm):
    import time

    fake_llm.load(_one_code_round("import time\ntime.sleep(20)", "answer = 42\nanswer"))
    started = time.monotonic()
    llm_shell.run_cell("%%taskweaver --timeout 0.5\nWhat is 6 times 7?")
    assert time.monotonic() - started < 10
    assert llm_shell.user_ns.get("answer") == 42
    round = magics(llm_shell).notebook.conversation.rounds[-1]
    messages = [p.message for p in round.post_list if p.send_from == p.send_to == "CodeInterpreter"]
    assert any("time limit of 0.5 s" in message for message in messages)


def test_ctrl_c_while_the_final_output_is_written_is_held_until_it_is_written(llm_shell, fake_llm, capsys):
    import _thread

    from IPython.core.displaypub import DisplayPublisher

    class InterruptingPublisher(DisplayPublisher):
        """The user pressing Ctrl-C just as the final Round is displayed."""

        def publish(self, data, *args, **kwargs):
            if "application/vnd.twnb.round+json" in data:
                _thread.interrupt_main()
            super().publish(data, *args, **kwargs)

    fake_llm.load(answer_round(final_message="The answer is 42."))
    original = llm_shell.display_pub
    llm_shell.display_pub = InterruptingPublisher(shell=llm_shell)
    try:
        result = llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    finally:
        llm_shell.display_pub = original
    out = capsys.readouterr().out
    assert result.success
    assert "[finished]" in out
    assert "Ctrl-C came while the Round's final output was written; it was written first." in out


def test_hostile_terminal_escapes_never_reach_the_terminal(llm_shell, fake_llm, capsys):
    hostile = "The answer is 42.\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b]0;pwned\x07"
    fake_llm.load(answer_round(final_message=hostile))
    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    out = capsys.readouterr().out
    assert "The answer is 42." in out
    assert "\x1b" not in out and "\x07" not in out


PLANNER_EXAMPLE = """\
enabled: true
rounds:
  - user_query: count the rows of MY-OWN-EXAMPLE.csv
    state: finished
    post_list:
      - message: count the rows of MY-OWN-EXAMPLE.csv
        send_from: User
        send_to: Planner
        attachment_list: []
      - message: MY-OWN-EXAMPLE.csv has 100 rows.
        send_from: Planner
        send_to: User
        attachment_list:
          - type: init_plan
            content: 1. count the rows
          - type: plan
            content: 1. count the rows
          - type: current_plan_step
            content: 1. count the rows
          - type: stop
            content: Completed
"""


def test_the_users_own_examples_reach_the_planners_prompt(llm_shell, fake_llm, tmp_path):
    (tmp_path / "examples" / "planner").mkdir(parents=True)
    (tmp_path / "examples" / "planner" / "mine.yaml").write_text(PLANNER_EXAMPLE)
    llm_shell.run_line_magic("config", f'TaskWeaverMagics.examples_dir = "{tmp_path / "examples"}"')
    fake_llm.load(answer_round(final_message="ok"))
    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    planner_request = fake_llm.chat_requests()[0]
    assert planner_request["role"] == "Planner"
    assert "MY-OWN-EXAMPLE.csv" in str(planner_request["body"]["messages"])


def test_an_examples_folder_without_role_folders_is_a_clear_message(llm_shell, fake_llm, tmp_path, capsys):
    (tmp_path / "examples").mkdir()
    llm_shell.run_line_magic("config", f'TaskWeaverMagics.examples_dir = "{tmp_path / "examples"}"')
    result = llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    assert result.success
    assert "has no planner/ or code_interpreter/ folder" in capsys.readouterr().err
    assert fake_llm.chat_requests() == []


@pytest.mark.parametrize("name", ["DBPASSWORD", "GITHUBTOKEN"])
def test_a_secret_named_without_a_separator_is_redacted_from_what_code_prints(
    llm_shell, fake_llm, monkeypatch, capfd, name
):
    secret = "correct-horse-battery-staple"  # no key shape: only the variable's name marks it secret
    monkeypatch.setenv(name, secret)
    script = answer_round(final_message="Printed.")
    script["CodeInterpreter"] = [code(f"import os\nprint('it is', os.environ[{name!r}])")]
    fake_llm.load(script)
    llm_shell.run_cell("%%taskweaver\nPrint it.")
    printed = capfd.readouterr().out
    assert "it is [redacted]" in printed and secret not in printed
    assert secret not in str(magics(llm_shell).notebook.conversation.to_dict())
    assert secret not in str([r["body"]["messages"] for r in fake_llm.chat_requests()])


def session_folders(clean_env) -> dict[str, list[str]]:
    """Each session folder under .twnb and what it holds."""
    return {
        folder.name: sorted(p.name for p in folder.iterdir())
        for folder in sorted((clean_env / ".twnb").iterdir())
        if folder.is_dir()
    }


def test_with_recording_the_cassette_lands_beside_the_rounds_it_recorded(
    llm_shell, fake_llm, monkeypatch, clean_env
):
    monkeypatch.setenv("TWNB_RECORD", "1")
    fake_llm.load(answer_round())

    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")

    session_id = magics(llm_shell).notebook.session_id
    assert session_folders(clean_env) == {session_id: ["cassette.yaml", "rounds"]}


def test_after_a_reset_the_next_cassette_lands_beside_the_new_rounds(
    llm_shell, fake_llm, monkeypatch, clean_env
):
    monkeypatch.setenv("TWNB_RECORD", "1")
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    llm_shell.run_line_magic("taskweaver", "reset")
    fake_llm.load(answer_round())

    llm_shell.run_cell("%%taskweaver\nAgain?")

    folders = session_folders(clean_env)
    assert len(folders) == 2 and all(content == ["cassette.yaml", "rounds"] for content in folders.values())


def test_after_a_load_the_next_cassette_lands_beside_the_loaded_rounds(
    llm_shell, fake_llm, monkeypatch, clean_env
):
    monkeypatch.setenv("TWNB_RECORD", "1")
    fake_llm.load(answer_round())
    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    llm_shell.run_line_magic("taskweaver", "save first.yaml")
    llm_shell.run_line_magic("taskweaver", "load first.yaml")  # goes on as a new session
    fake_llm.load(answer_round())

    llm_shell.run_cell("%%taskweaver\nAgain?")

    folders = session_folders(clean_env)
    assert len(folders) == 2 and all(content == ["cassette.yaml", "rounds"] for content in folders.values())


def test_a_background_job_is_refused_by_verification_as_a_thread_is_and_never_runs(
    llm_shell, fake_llm, tmp_path
):
    marker = tmp_path / "written-by-the-job"
    job = (
        "from IPython.lib.backgroundjobs import BackgroundJobManager\n"
        f"BackgroundJobManager().new(lambda: open({str(marker)!r}, 'w').write('ran'))\n"
        "answer = 42\nanswer"
    )
    fake_llm.load(_one_code_round(job))
    llm_shell.run_cell("%%taskweaver\nWhat is 6 times 7?")
    round = magics(llm_shell).notebook.conversation.rounds[-1]
    refused = next(p for p in round.post_list if p.message.startswith("Verification refused"))
    assert (
        "Importing module 'IPython.lib.backgroundjobs' is not allowed: its jobs run in threads"
        in refused.message
    )
    assert "%config TaskWeaverMagics.allow_modules = ['threading']" in refused.message  # as for a thread
    assert "answer" not in llm_shell.user_ns and not marker.exists()
