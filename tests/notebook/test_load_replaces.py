"""Nothing replaced silently: `load` says what it replaced and where that conversation's autosave is;
the loaded conversation goes on in an autosave folder of its own (the session its file names, else a new
one), so the replaced one loads back as it was; a notebook read back keeps its conversation's id."""

from __future__ import annotations

import nbformat
import pytest
from nb_shell import magics
from support.nb_rounds import analysis_round

from twnb.cli import main
from twnb.memory import Conversation, load_conversation, save_conversation
from twnb.render import plan_from_round, round_bundle


def _file(folder, name: str, rounds: int):
    conversation = Conversation.init()
    for number in range(rounds):
        conversation.add_round(analysis_round(f"Answer {number}."))
    save_conversation(conversation, folder / name)
    return conversation


def test_load_says_what_it_replaced_and_where_its_autosave_is(shell, clean_env, capsys):
    _file(clean_env, "first.yaml", 2)
    _file(clean_env, "second.yaml", 1)
    shell.run_line_magic("taskweaver", "load first.yaml")
    first_session = magics(shell).notebook.session_id
    capsys.readouterr()
    shell.run_line_magic("taskweaver", "load second.yaml")
    out = capsys.readouterr().out
    folder = clean_env / ".twnb" / first_session / "rounds"
    assert (
        f"It replaced this kernel's conversation of 2 Rounds (session {first_session}), autosaved in "
        f"{folder}: %taskweaver load {folder} brings it back." in out
    )


def test_the_replaced_conversation_loads_back_as_it_was(shell, clean_env, capsys):
    first = _file(clean_env, "first.yaml", 2)
    _file(clean_env, "second.yaml", 1)
    shell.run_line_magic("taskweaver", "load first.yaml")
    folder = clean_env / ".twnb" / magics(shell).notebook.session_id / "rounds"
    shell.run_line_magic("taskweaver", "load second.yaml")
    shell.run_line_magic("taskweaver", f"load {folder}")
    assert [r.id for r in magics(shell).notebook.conversation.rounds] == [r.id for r in first.rounds]


def test_a_first_load_replaces_nothing_and_says_nothing_of_it(shell, clean_env, capsys):
    _file(clean_env, "first.yaml", 1)
    shell.run_line_magic("taskweaver", "load first.yaml")
    assert "replaced" not in capsys.readouterr().out


def test_loading_an_autosave_goes_on_in_its_own_session(shell, clean_env, capsys):
    _file(clean_env, "first.yaml", 2)
    shell.run_line_magic("taskweaver", "load first.yaml")
    autosaved = magics(shell).notebook.session_id
    shell.run_line_magic("taskweaver", "reset")
    shell.run_line_magic("taskweaver", "load --latest")
    assert magics(shell).notebook.session_id == autosaved


def _round_outputs_notebook(path, conversation_id: str, session_id: str):
    round = analysis_round()
    bundle = round_bundle(
        round, session_id=session_id, plan=plan_from_round(round), conversation_id=conversation_id
    )
    cell = nbformat.v4.new_code_cell("%%taskweaver\nWhat is the mean?")
    cell.outputs = [nbformat.v4.new_output("display_data", data=bundle)]
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), path)


def test_a_notebook_read_back_from_its_round_outputs_keeps_the_conversations_id(tmp_path, capsys):
    _round_outputs_notebook(tmp_path / "live.ipynb", "conv-kept-0001", "session-1")
    for name in ("a.yaml", "b.yaml"):
        assert main(["export", str(tmp_path / "live.ipynb"), "-o", str(tmp_path / name)]) == 0
    assert load_conversation(tmp_path / "a.yaml").id == "conv-kept-0001"
    assert load_conversation(tmp_path / "b.yaml").id == "conv-kept-0001"


def test_loading_a_notebook_goes_on_in_the_notebooks_session(shell, clean_env, capsys):
    _round_outputs_notebook(clean_env / "live.ipynb", "conv-kept-0001", "20261201-101010-abcdef12")
    shell.run_line_magic("taskweaver", "load live.ipynb")
    assert magics(shell).notebook.session_id == "20261201-101010-abcdef12"
    assert magics(shell).notebook.conversation.id == "conv-kept-0001"


@pytest.mark.slow
def test_a_rounds_saved_output_carries_its_conversations_id(fake_llm, tmp_path):
    from support.nb_run import llm_env, outputs_with, run_notebook
    from support.nb_scripts import answer_round

    from twnb.render import MIME_TYPE

    fake_llm.load(answer_round())
    cells = ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?", "%taskweaver save c.yaml"]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    (output,) = outputs_with(nb, MIME_TYPE)
    assert output["data"][MIME_TYPE]["twnb"]["conversation_id"] == load_conversation(tmp_path / "c.yaml").id


def test_load_latest_right_after_a_load_says_it_is_the_same_conversation(shell, clean_env, capsys):
    _file(clean_env, "first.yaml", 2)
    shell.run_line_magic("taskweaver", "load first.yaml")
    session = magics(shell).notebook.session_id
    capsys.readouterr()
    shell.run_line_magic("taskweaver", "load --latest")
    out = capsys.readouterr().out
    assert "replaced" not in out.replace("nothing else was replaced", "")
    assert (
        "It was this kernel's own conversation, as its autosave holds it: nothing else was replaced." in out
    )
    assert magics(shell).notebook.session_id == session


def test_twnb_export_reads_a_sessions_folder_and_says_what_it_found(shell, clean_env, capsys):
    _file(clean_env, "first.yaml", 2)
    shell.run_line_magic("taskweaver", "load first.yaml")
    folder = clean_env / ".twnb" / magics(shell).notebook.session_id
    capsys.readouterr()
    # The command's own entry point, in this process (as its neighbours run it): a fresh Python for it
    # cost ~3 s alone, 10 s in the fast lane on a loaded machine.
    assert main(["export", str(folder), "-o", "out.ipynb"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        f"Read 2 autosaved Rounds of session {folder.name} from {folder / 'rounds'}."
    )
    assert len(nbformat.read(clean_env / "out.ipynb", as_version=4).metadata.twnb.conversation["rounds"]) == 2


def test_twnb_export_of_the_folder_of_all_sessions_names_one_to_give(shell, clean_env, capsys):
    _file(clean_env, "first.yaml", 1)
    shell.run_line_magic("taskweaver", "load first.yaml")
    shell.run_line_magic("taskweaver", "reset")
    shell.run_line_magic("taskweaver", "load first.yaml")
    newest = clean_env / ".twnb" / magics(shell).notebook.session_id
    assert main(["export", str(clean_env / ".twnb"), "-o", str(clean_env / "out.ipynb")]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"twnb export: {clean_env / '.twnb'} holds the autosaves of 2 sessions, not one conversation: give "
        f"one session's folder, e.g. {newest} (the newest)\n"
    )
