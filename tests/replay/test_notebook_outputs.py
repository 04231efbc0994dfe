"""A notebook in which Rounds ran (in a real kernel, against the loopback LLM server) holds them in its
Round outputs: it reads back into the conversation the session autosaved, ids kept, without any
`metadata.twnb`; and in a fresh kernel `%taskweaver load` resumes it."""

from __future__ import annotations

import pytest
from support.nb_run import cell_text, llm_env, run_notebook
from support.nb_scripts import answer_round

from twnb.cli import main
from twnb.memory import Conversation
from twnb.replay import read_notebook
from twnb.session.conversation_store import load_conversation_file

pytestmark = pytest.mark.slow


@pytest.fixture
def ran(fake_llm, tmp_path):
    """`run.ipynb` as nbclient saved it after one Round, and the conversation the session autosaved."""
    fake_llm.load(answer_round())
    env = llm_env(fake_llm, tmp_path)
    run_notebook(tmp_path, ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?"], env)
    (autosaved,) = list((tmp_path / ".twnb").glob("*/rounds"))
    return tmp_path / "run.ipynb", load_conversation_file(autosaved), env


def test_the_rounds_come_back_from_the_notebooks_outputs_with_their_ids(ran):
    path, autosaved, _ = ran
    imported = read_notebook(path)
    assert imported.source == "outputs"
    assert imported.conversation.to_dict()["rounds"] == autosaved.to_dict()["rounds"]


def test_twnb_export_writes_the_conversation_of_a_notebook_without_twnb_metadata(ran, capsys):
    path, autosaved, _ = ran
    assert main(["export", str(path), "-o", str(path.with_name("conv.yaml"))]) == 0
    assert "(from the notebook's Round outputs)" in capsys.readouterr().out
    back = Conversation.from_yaml(path.with_name("conv.yaml"))
    assert [r.id for r in back.rounds] == [r.id for r in autosaved.rounds]


def test_a_fresh_kernel_offers_and_loads_the_notebooks_rounds(ran, tmp_path):
    path, autosaved, env = ran
    env = {**env, "JPY_SESSION_NAME": str(path)}
    nb, _ = run_notebook(
        tmp_path,
        ["%load_ext twnb", "%taskweaver history", "%taskweaver load run.ipynb\n%taskweaver show last"],
        env,
    )
    assert "holds 1 Round from an earlier kernel: %taskweaver load run.ipynb brings them back" in cell_text(
        nb.cells[1]
    )
    loaded = nb.cells[2]
    assert "Loaded 1 Round from run.ipynb" in cell_text(loaded)
    (shown,) = [o for o in loaded.outputs if o.get("output_type") == "display_data"]
    assert shown["data"]["application/vnd.twnb.round+json"]["id"] == autosaved.rounds[0].id


def test_run_by_hand_in_a_fresh_kernel_a_show_cell_shows_its_round_and_says_how_to_load_the_rest(
    tmp_path, monkeypatch
):
    import nbformat
    from nbclient import NotebookClient
    from support.nb_rounds import analysis_round

    from twnb.kernel.separate.this_python import this_python_kernel_manager
    from twnb.replay import export_notebook

    conversation = Conversation.init()
    conversation.add_round(analysis_round())
    export_notebook(conversation, tmp_path / "analysis.ipynb", source_dir=tmp_path)
    nb = nbformat.read(tmp_path / "analysis.ipynb", as_version=4)
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "analysis.ipynb"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    setup, show = nb.cells[1], nb.cells[2]
    by_number = nbformat.v4.new_code_cell("%taskweaver show 1")  # no id: only a session holds Round 1
    client = NotebookClient(
        nb, km=this_python_kernel_manager(), timeout=60, resources={"metadata": {"path": str(tmp_path)}}
    )
    with client.setup_kernel():
        client.execute_cell(setup, 1)
        client.execute_cell(show, 2)
        client.execute_cell(by_number, 3)
    assert [o["data"]["application/vnd.twnb.round+json"]["id"] for o in show.outputs] == [
        conversation.rounds[0].id
    ]
    said = "".join(o.get("text", "") for o in by_number.outputs)
    assert "No Rounds in this kernel's session" in said
    assert "%taskweaver load analysis.ipynb brings them back (nothing is re-run)" in said
