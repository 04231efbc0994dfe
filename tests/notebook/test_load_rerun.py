"""`%taskweaver load X --rerun` rebuilds the variables the way the conversation made them: the user's own
recorded cells (when the user agrees, or with --user-cells), then each Round's code; all of it verified
as generated code is first; and what the code reads that nothing recorded makes is named."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.replay_rounds import code_round, conversation, stdout, user_cell, with_user_cells
from support.shell_reset import reset_shell

from twnb.memory import save_conversation


@pytest.fixture(autouse=True)
def empty_namespace(request):
    """The one InteractiveShell outlives each test: no variable of an earlier one may answer here."""
    if "shell" in request.fixturenames:
        reset_shell(request.getfixturevalue("shell"))


def _save(folder: Path, *rounds) -> None:
    save_conversation(conversation(*rounds), folder / "conv.yaml")


def _with_users_cell(folder: Path) -> None:
    _save(
        folder,
        with_user_cells(
            code_round("Sum", "total = sum(sales)\nprint(total)", [stdout("12\n")]),
            user_cell("sales = [3, 4, 5]", 2, made=("sales",)),
        ),
    )


def test_user_cells_runs_the_users_recorded_cells_then_the_rounds_code(shell, clean_env, capsys):
    _with_users_cell(clean_env)
    shell.run_line_magic("taskweaver", "load conv.yaml --rerun --user-cells")
    out = capsys.readouterr().out
    assert shell.user_ns["sales"] == [3, 4, 5] and shell.user_ns["total"] == 12
    assert "Re-ran the recorded code of 2 cells here, 1 of them your own." in out


def test_without_the_flag_and_nobody_to_ask_the_users_cells_do_not_run(shell, clean_env, capsys):
    _with_users_cell(clean_env)  # pytest's stdin cannot answer: as in nbclient or papermill
    shell.run_line_magic("taskweaver", "load conv.yaml --rerun")
    captured = capsys.readouterr()
    assert "sales" not in shell.user_ns
    assert "Your 1 recorded cell will not run (add --user-cells to run them too" in captured.out
    assert "Round 1 reads what they make (sales), so that code will not run either." in captured.out
    assert "total" not in shell.user_ns and "raised now" not in captured.err


def test_what_the_code_reads_that_nothing_recorded_makes_is_named(shell, clean_env, capsys):
    _save(clean_env, code_round("Sum", "total = sum(sales)", [stdout("")]))
    shell.run_line_magic("taskweaver", "load conv.yaml")
    out = capsys.readouterr().out
    assert (
        "`sales` comes from outside the notebook (Round 1's code reads it; nothing recorded makes it)" in out
    )


def test_a_name_the_kernel_already_has_is_not_named(shell, clean_env, capsys):
    _save(clean_env, code_round("Sum", "total = sum(sales)", [stdout("")]))
    shell.user_ns["sales"] = [1, 2]
    shell.run_line_magic("taskweaver", "load conv.yaml --rerun")
    out = capsys.readouterr().out
    assert "comes from outside" not in out and shell.user_ns["total"] == 3


def test_recorded_code_verification_refuses_is_not_run_and_is_named(shell, clean_env, capsys):
    _save(clean_env, code_round("Clean", "import os\nos.system('touch pwned')", [stdout("")]))
    shell.run_line_magic("taskweaver", "load conv.yaml --rerun")
    err = capsys.readouterr().err
    assert not (clean_env / "pwned").exists()
    assert "not run, verification refused it: Round 1's code: Line 2: os.system('touch pwned')" in err
    assert "--no-verify runs them unchecked" in err


def test_a_refused_users_cell_is_not_run_even_when_agreed(shell, clean_env, capsys):
    sneaky = user_cell("import subprocess\nsubprocess.run(['touch', 'pwned'])", 1)
    _save(clean_env, with_user_cells(code_round("Print", "print(1)", [stdout("1\n")]), sneaky))
    shell.run_line_magic("taskweaver", "load conv.yaml --rerun --user-cells")
    assert not (clean_env / "pwned").exists()
    assert "your cell [1] before Round 1: Line 1: import subprocess" in capsys.readouterr().err


def test_no_verify_runs_the_recorded_code_unchecked(shell, clean_env, capsys):
    _save(clean_env, code_round("Clean", "import os\nos.system('touch pwned')", [stdout("")]))
    shell.run_line_magic("taskweaver", "load conv.yaml --rerun --no-verify")
    assert (clean_env / "pwned").exists()


def test_the_plain_load_says_the_rerun_verifies_the_code(shell, clean_env, capsys):
    _save(clean_env, code_round("Set", "made_here = 1", [stdout("")]))
    shell.run_line_magic("taskweaver", "load conv.yaml")
    out = capsys.readouterr().out
    assert "--rerun runs the recorded code here, verified first as generated code is" in out


def test_user_cells_and_no_verify_go_with_load_only(shell, capsys):
    shell.run_line_magic("taskweaver", "history --user-cells")
    assert "--user-cells: for %taskweaver load only" in capsys.readouterr().err
    shell.run_line_magic("taskweaver", "load x.yaml --no-verify")
    assert "--no-verify: for %%taskweaver cells only" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize(("answer", "ran"), [("y", True), ("n", False)])
def test_in_a_kernel_the_user_is_asked_before_their_cells_run(tmp_path, answer, ran):
    import os

    from twnb.kernel import UnixSocketKernelManager

    _with_users_cell(tmp_path)
    km = UnixSocketKernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(tmp_path), env={**os.environ, "HOME": str(tmp_path)})
    kc = km.client()
    kc.start_channels()
    asked: list[str] = []
    printed: list[str] = []

    def reply(msg: dict) -> None:
        asked.append(msg["content"]["prompt"])
        kc.input(answer)

    def keep(msg: dict) -> None:
        if msg["msg_type"] == "stream":
            printed.append(msg["content"]["text"])

    try:
        kc.wait_for_ready(timeout=60)
        kc.execute_interactive("%load_ext twnb", timeout=60)
        kc.execute_interactive(
            "%taskweaver load conv.yaml --rerun", allow_stdin=True, stdin_hook=reply, timeout=60
        )
        printed.clear()
        kc.execute_interactive("print('sales' in dir(), 'total' in dir())", timeout=60, output_hook=keep)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    (question,) = asked
    assert "records 1 of your own cell that ran before its Rounds (first: sales = [3, 4, 5])" in question
    assert "".join(printed).strip() == f"{ran} {ran}"
