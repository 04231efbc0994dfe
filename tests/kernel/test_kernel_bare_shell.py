"""LiveShellExecutor on a bare IPython InteractiveShell (quick cases; the real-kernel suite covers exit())."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from twnb.kernel import ExecutionResult, Executor, LiveShellExecutor


@pytest.fixture
def executor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveShellExecutor]:
    monkeypatch.chdir(tmp_path)
    shell = InteractiveShell.instance()
    yield LiveShellExecutor(shell, tmp_path, tmp_path / "artifacts", session_dir=tmp_path / ".twnb")
    for name in [n for n in shell.user_ns if n.startswith("bare_")]:
        del shell.user_ns[name]


def test_is_an_executor(executor):
    assert isinstance(executor, Executor)


def test_stdout_is_captured_and_still_shown(executor, capfd):
    result = executor.run("print('visible')")
    assert result.stdout == "visible\n"
    assert "visible" in capfd.readouterr().out


def test_streams_are_restored_after_the_run(executor):
    before = (sys.stdout, sys.stderr)
    executor.run("1/0")
    assert (sys.stdout, sys.stderr) == before


def test_terminal_prompt_and_traceback_are_not_stream_output(executor):
    result = executor.run("bare_x = 3\nbare_x")
    assert result.result == "3"
    assert result.stdout == ""
    failed = executor.run("1/0")
    assert failed.stdout == "" and failed.error is not None


def test_display_is_recorded_once(executor):
    result = executor.run("from IPython.display import display, Markdown\ndisplay(Markdown('**hi**'))")
    assert [o["output_type"] for o in result.outputs] == ["display_data"]
    assert result.outputs[0]["data"]["text/markdown"] == "**hi**"
    assert result.displays[0]["artifact"] is None


def test_update_display_changes_the_recorded_output(executor):
    code = "from IPython.display import display\nh = display('one', display_id='d1')\nh.update('two')"
    result = executor.run(code)
    assert [o["data"]["text/plain"] for o in result.outputs] == ["'two'"]


def test_time_limit(executor):
    result = executor.run("while True:\n    pass", timeout=0.5)
    assert result.status == "timeout"
    assert executor.run("1 + 1").result == "2"


def test_exit_is_refused_and_restored(executor):
    shell = executor.shell
    original = shell.user_ns["exit"]
    result = executor.run("exit()")
    assert result.error is not None and result.error.ename == "ExitRefused"
    assert shell.user_ns["exit"] is original
    assert "ask_exit" not in vars(shell)


def test_written_file_is_found(executor, tmp_path):
    result = executor.run("open('bare_out.txt', 'w').write('x')")
    assert result.files_created == [str(tmp_path.resolve() / "bare_out.txt")]


def test_changed_file_is_found(executor, tmp_path):
    target = tmp_path / "data.txt"
    target.write_text("old")
    os.utime(target, ns=(1, 1))
    result = executor.run("open('data.txt', 'w').write('new and longer')")
    assert result.files_modified == [str(tmp_path.resolve() / "data.txt")]
    assert result.files_created == []


def test_artifacts_folder_is_not_reported_as_written_files(executor, tmp_path):
    result = executor.run("import os\nos.makedirs('artifacts', exist_ok=True)\nopen('artifacts/a.png','wb')")
    assert result.files_created == []


def test_to_dict_round_trips(executor):
    result = executor.run("bare_y = [1, 2]\nprint(len(bare_y))\n1/0")
    assert ExecutionResult.from_dict(result.to_dict()) == result


def test_an_object_the_delta_cannot_read_never_stops_the_code(executor):
    class OddMeta(type):
        @property
        def __module__(cls):  # type: ignore[override]
            raise RuntimeError("odd type")

    executor.shell.user_ns["bare_odd"] = OddMeta("Odd", (), {})()
    result = executor.run("bare_z = 6 * 7\nbare_z")
    assert result.status == "success" and result.result == "42"
    assert any("variable delta could not be computed (RuntimeError: odd type)" in n for n in result.notes)


def _kinds(result: ExecutionResult) -> dict[str, str]:
    return {change.name: change.kind for change in result.variables}


def test_a_value_the_users_own_cell_rebound_since_the_last_run_is_seen_by_the_next_delta(executor):
    executor.run("bare_n = 1001")
    executor.shell.run_cell("bare_n = 2002", store_history=True)  # the user's cell, between two runs
    assert _kinds(executor.run("bare_n = 1001")) == {"bare_n": "rebound"}


def test_a_value_set_back_to_an_equal_new_object_is_not_a_change(executor):
    executor.run("bare_s = 'same text'")
    executor.shell.run_cell("bare_s = ''.join(['same', ' text'])", store_history=True)
    assert _kinds(executor.run("bare_t = 1")) == {"bare_t": "created"}


def test_the_summary_follows_the_code_and_the_users_own_cell(executor):
    executor.run("bare_v = 11")
    after_code = executor.namespace_summary(describe_libraries=False)
    executor.shell.run_cell("bare_v = 12", store_history=True)
    after_cell = executor.namespace_summary(describe_libraries=False)
    executor.shell.run_cell("bare_list = [1]\nbare_list.append(2)", store_history=True)
    executor.shell.run_cell("bare_list.append(3)", store_history=True)  # changed in place
    in_place = executor.namespace_summary(describe_libraries=False)
    assert "- bare_v: int = 11" in after_code
    assert "- bare_v: int = 12" in after_cell and "= 11" not in after_cell
    assert "- bare_list: list, len 3 = [1, 2, 3]" in in_place


def test_code_that_changes_directory_is_compared_against_the_same_folder(tmp_path, monkeypatch):
    # A relative workdir is resolved once, before the code runs: `os.chdir` in the code must not make
    # every file of the new folder look freshly written.
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "old.txt").write_text("x")
    monkeypatch.chdir(tmp_path)
    executor = LiveShellExecutor(InteractiveShell.instance(), ".", "artifacts", session_dir=".twnb")
    result = executor.run("import os\nos.chdir('sub')\nopen('new.txt', 'w').write('y')")
    assert result.files_created == [str(tmp_path.resolve() / "sub" / "new.txt")]


def test_top_level_await_runs_where_no_event_loop_is_busy(executor):
    # A terminal's IPython runs such code on a loop of its own: only a kernel's busy loop refuses it.
    result = executor.run("import asyncio\nawait asyncio.sleep(0.01)\nbare_awaited = 6 * 7\nbare_awaited")
    assert (result.status, result.result) == ("success", "42")
