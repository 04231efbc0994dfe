"""One Round at a time: commands that would change the running Round's conversation or settings are
refused in one line, whether generated code issues them or a cell does, and memory, autosave and the
display agree afterwards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from nb_shell import magics
from support.nb_run import CANARY_KEY, cell_text, outputs_with, run_notebook
from support.nb_scripts import code, planner

from twnb.render import MIME_TYPE

# Generated code (verification off) that tries every command a Round must not be disturbed by.
MEDDLING = """\
ip = get_ipython()
ip.run_line_magic('taskweaver', 'reset')
ip.run_line_magic('taskweaver', 'load other.yaml')
ip.run_line_magic('config', "TaskWeaverMagics.model = 'other-model'")
ip.run_cell_magic('taskweaver', '', 'a nested request')
answer = 6 * 7
answer"""

REPORT = """\
import json, pathlib
nb = get_ipython().magics_manager.registry['TaskWeaverMagics'].notebook
(r,) = nb.conversation.rounds
saved = sorted(pathlib.Path('.twnb', nb.session_id, 'rounds').glob('*.yaml'))
import yaml
(autosaved,) = [yaml.safe_load(p.read_text())['rounds'][0] for p in saved]
print(json.dumps({
    'query': r.user_query, 'state': r.state, 'posts': [p.id for p in r.post_list],
    'autosaved_posts': [p['id'] for p in autosaved['post_list']], 'autosaved_state': autosaved['state'],
    'model': get_ipython().magics_manager.registry['TaskWeaverMagics'].model,
    'stderr': ''.join(o.get('text', '') for p in r.post_list for a in p.attachment_list
                      if a.type.value == 'execution_result' for o in a.extra['outputs']
                      if o.get('name') == 'stderr'),
    'failure': r.extra.get('failure_reason'),
}))"""


def _script() -> dict:
    return {
        "Planner": [
            planner("Compute 6 times 7.", send_to="CodeInterpreter", step="1. compute 6 times 7"),
            planner("The answer is 42.", send_to="User", step="2. report the answer", stop="Completed"),
        ],
        "CodeInterpreter": [code(MEDDLING)],
    }


@pytest.mark.slow
def test_commands_from_generated_code_during_a_round_are_refused_and_the_round_is_kept(
    fake_llm, tmp_path: Path
):
    fake_llm.load(_script())
    (tmp_path / "other.yaml").write_text("rounds: []\n")
    env = {
        "TWNB_MODEL": "fake-model",
        "OPENAI_BASE_URL": fake_llm.base_url,
        "OPENAI_API_KEY": CANARY_KEY,
        "TWNB_SESSION_DIR": str(tmp_path / ".twnb"),
        "HOME": str(tmp_path),
    }
    nb, _ = run_notebook(
        tmp_path, ["%load_ext twnb", "%%taskweaver --no-verify\nWhat is 6 times 7?", REPORT], env
    )
    report = json.loads(cell_text(nb.cells[2]))
    assert report["query"] == "What is 6 times 7?" and report["state"] == "finished"
    assert len(report["posts"]) == 4
    assert report["autosaved_posts"] == report["posts"] and report["autosaved_state"] == "finished"
    assert report["model"] is None
    for what in ("%taskweaver reset", "%taskweaver load", "another %%taskweaver Round"):
        assert f"A Round is running: {what} would change what it relies on" in report["stderr"]
    assert "A Round is running: %config TaskWeaverMagics would change" in report["stderr"]
    assert "Traceback" not in report["stderr"] and report["stderr"].count("\n") == 4
    (output,) = outputs_with(nb, MIME_TYPE)
    assert [p["id"] for p in output["data"][MIME_TYPE]["post_list"]] == report["posts"]
    # Only the Round's own requests reached the model: the nested one never ran.
    assert len(fake_llm.chat_requests()) == 3


@pytest.mark.parametrize("command", ["reset", "load x.yaml"])
def test_a_command_that_changes_the_conversation_is_refused_while_a_round_runs(shell, capsys, command):
    notebook = magics(shell).notebook
    before = notebook.conversation
    with notebook.running_round():
        shell.run_line_magic("taskweaver", command)
    err = capsys.readouterr().err
    name = command.split()[0]
    assert err == (
        f"A Round is running: %taskweaver {name} would change what it relies on, so nothing was done. "
        "Run it in a cell of its own after the Round ends.\n"
    )
    assert notebook.conversation is before


def test_save_is_allowed_while_a_round_runs(shell, clean_env, capsys):
    with magics(shell).notebook.running_round():
        shell.run_line_magic("taskweaver", "save now.yaml")
    assert "Saved 0 Rounds to" in capsys.readouterr().out and (clean_env / "now.yaml").is_file()


def test_a_nested_round_is_refused_in_one_line(shell, capsys):
    with magics(shell).notebook.running_round():
        shell.run_cell_magic("taskweaver", "--model m", "another request")
    assert capsys.readouterr().err.startswith("A Round is running: another %%taskweaver Round would")
    assert magics(shell).notebook.session is None


def test_a_config_change_is_refused_while_a_round_runs_and_allowed_after(shell, capsys):
    with magics(shell).notebook.running_round():
        shell.run_line_magic("config", "TaskWeaverMagics.model = 'other'")
    assert magics(shell).model is None
    shell.run_line_magic("config", "TaskWeaverMagics.model = 'other'")
    assert magics(shell).model == "other"


def test_the_refused_config_change_is_not_kept_for_later(shell):
    with magics(shell).notebook.running_round():
        shell.run_line_magic("config", "TaskWeaverMagics.timeout = 5.0")
    assert "timeout" not in magics(shell).config.get("TaskWeaverMagics", {})


def test_the_round_flag_is_cleared_when_the_round_raises(shell):
    notebook = magics(shell).notebook
    with pytest.raises(KeyboardInterrupt), notebook.running_round():
        raise KeyboardInterrupt
    assert notebook.round_running is False
