"""`%taskweaver export PATH.ipynb`, `%taskweaver load NOTEBOOK.ipynb [--rerun]`, and a fresh kernel's
`show`/`history` offering the Rounds its notebook holds."""

from __future__ import annotations

import json

import nbformat
import pytest
from nb_shell import magics
from support.nb_rounds import analysis_round

from twnb.memory import Conversation, save_conversation


@pytest.fixture
def exported(shell, clean_env):
    """A notebook folder with `in.yaml` (one analysis Round, loaded) exported as `analysis.ipynb`."""
    conversation = Conversation.init()
    conversation.add_round(analysis_round())
    save_conversation(conversation, clean_env / "in.yaml")
    shell.run_line_magic("taskweaver", "load in.yaml")
    shell.run_line_magic("taskweaver", "export analysis.ipynb")
    return conversation


def test_export_writes_a_valid_notebook_of_the_conversation(shell, clean_env, capsys, exported):
    nb = nbformat.read(clean_env / "analysis.ipynb", as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["twnb"]["conversation"]["rounds"][0]["id"] == exported.rounds[0].id
    assert "Exported 1 Round to analysis.ipynb (nothing was run)." in capsys.readouterr().out


def test_export_runs_none_of_the_recorded_code(shell, exported):
    assert "m" not in shell.user_ns


def test_export_is_refused_while_a_round_runs(shell, clean_env, capsys, exported):
    with magics(shell).notebook.running_round():
        shell.run_line_magic("taskweaver", "export during.ipynb")
    assert "A Round is running: %taskweaver export" in capsys.readouterr().err
    assert not (clean_env / "during.ipynb").exists()


def test_export_with_no_rounds_writes_nothing_and_says_so(shell, clean_env, capsys):
    shell.run_line_magic("taskweaver", "export empty.ipynb")
    assert capsys.readouterr().err == "There are no Rounds to export yet; nothing was written.\n"
    assert not (clean_env / "empty.ipynb").exists()


def test_export_needs_an_ipynb_path(shell, capsys, exported):
    shell.run_line_magic("taskweaver", "export out.yaml")
    assert capsys.readouterr().err == "Usage: %taskweaver export PATH.ipynb [--force]\n"


def test_loading_an_exported_notebook_resumes_the_conversation_ids_kept(shell, capsys, exported):
    shell.run_line_magic("taskweaver", "reset")
    shell.run_line_magic("taskweaver", "load analysis.ipynb")
    assert magics(shell).notebook.conversation.to_dict()["rounds"] == exported.to_dict()["rounds"]
    assert "Loaded 1 Round from analysis.ipynb" in capsys.readouterr().out


def test_loading_names_the_missing_variables_and_offers_rerun(shell, capsys, exported):
    capsys.readouterr()
    shell.run_line_magic("taskweaver", "load analysis.ipynb")
    out = capsys.readouterr().out
    assert (
        "this kernel lacks: statistics, m (%taskweaver load analysis.ipynb --rerun runs the recorded" in out
    )
    assert "m" not in shell.user_ns


def test_load_rerun_rebuilds_the_variables_by_running_the_recorded_code(shell, capsys, exported):
    capsys.readouterr()
    shell.run_line_magic("taskweaver", "load analysis.ipynb --rerun")
    captured = capsys.readouterr()
    assert shell.user_ns["m"] == 2
    assert "Re-ran the recorded code of 1 cell here." in captured.out and "lacks" not in captured.out


def test_rerun_goes_with_load_only(shell, capsys):
    shell.run_line_magic("taskweaver", "history --rerun")
    assert "--rerun: for %taskweaver load only" in capsys.readouterr().err


def test_a_notebook_without_twnb_data_is_refused_in_one_line_and_changes_nothing(
    shell, clean_env, capsys, exported
):
    nbformat.write(
        nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")]), clean_env / "x.ipynb"
    )
    before = magics(shell).notebook.conversation
    capsys.readouterr()
    shell.run_line_magic("taskweaver", "load x.ipynb")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds no twnb conversation" in err and "nothing was changed" in err
    assert magics(shell).notebook.conversation is before


def test_a_corrupt_notebook_is_refused_in_one_line(shell, clean_env, capsys):
    (clean_env / "cut.ipynb").write_text('{"cells": [')
    shell.run_line_magic("taskweaver", "load cut.ipynb")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cut.ipynb: not a notebook: invalid JSON at line 1" in err


@pytest.mark.parametrize("command", ["show 1", "history"])
def test_a_fresh_kernel_offers_the_rounds_its_notebook_holds(shell, clean_env, capsys, monkeypatch, command):
    conversation = Conversation.init()
    conversation.add_round(analysis_round())
    from twnb.replay import export_notebook

    export_notebook(conversation, clean_env / "work" / "analysis.ipynb", source_dir=clean_env)
    monkeypatch.setenv("JPY_SESSION_NAME", str(clean_env / "work" / "analysis.ipynb"))
    shell.run_line_magic("taskweaver", command)
    assert (
        "This notebook (analysis.ipynb) holds 1 Round from an earlier kernel: "
        "%taskweaver load work/analysis.ipynb brings them back (nothing is re-run)."
    ) in capsys.readouterr().out


def test_no_offer_when_the_kernels_notebook_holds_no_rounds(shell, clean_env, capsys, monkeypatch):
    nbformat.write(nbformat.v4.new_notebook(), clean_env / "plain.ipynb")
    monkeypatch.setenv("JPY_SESSION_NAME", "plain.ipynb")
    shell.run_line_magic("taskweaver", "history")
    assert "holds" not in capsys.readouterr().out


def test_a_notebook_in_which_rounds_ran_loads_from_its_round_outputs(shell, clean_env, capsys, exported):
    nb = json.loads((clean_env / "analysis.ipynb").read_text())
    del nb["metadata"]["twnb"]  # as a notebook saved by JupyterLab, not exported
    (clean_env / "own.ipynb").write_text(json.dumps(nb))
    shell.run_line_magic("taskweaver", "reset")
    shell.run_line_magic("taskweaver", "load own.ipynb")
    assert [r.id for r in magics(shell).notebook.conversation.rounds] == [exported.rounds[0].id]


def test_show_of_a_round_this_session_lacks_offers_the_kernels_notebook(
    shell, clean_env, capsys, monkeypatch, exported
):
    shell.run_line_magic("taskweaver", "reset")
    shell.run_line_magic("taskweaver", "load in.yaml")  # another copy: same Round, but ask for one it lacks
    monkeypatch.setenv("JPY_SESSION_NAME", "analysis.ipynb")
    capsys.readouterr()
    shell.run_line_magic("taskweaver", "show round-not-here")
    captured = capsys.readouterr()
    assert "No Round 'round-not-here' in this conversation" in captured.err
    assert "%taskweaver load analysis.ipynb brings them back" in captured.out


def test_export_never_replaces_an_existing_file_without_force(shell, clean_env, capsys, exported):
    (clean_env / "mine.ipynb").write_text("the user's own notebook")
    capsys.readouterr()
    shell.run_line_magic("taskweaver", "export mine.ipynb")
    assert capsys.readouterr().err == (
        "mine.ipynb exists: nothing was written. Export elsewhere, or add --force to replace it.\n"
    )
    assert (clean_env / "mine.ipynb").read_text() == "the user's own notebook"


def test_export_with_force_replaces_an_existing_file(shell, clean_env, capsys, exported):
    (clean_env / "mine.ipynb").write_text("an old export")
    shell.run_line_magic("taskweaver", "export mine.ipynb --force")
    nbformat.validate(nbformat.read(clean_env / "mine.ipynb", as_version=4))
    assert "Exported 1 Round to mine.ipynb" in capsys.readouterr().out


def test_show_of_a_round_an_older_notebook_holds_draws_the_view_twnb_computes_now(
    shell, clean_env, monkeypatch, exported
):
    """The extension draws only the view Python computes: a payload saved before Rounds carried one
    is upgraded by `%taskweaver show` (a fresh kernel finds it in the notebook and computes its view)."""
    from IPython.core.displaypub import DisplayPublisher

    from twnb.render import MIME_TYPE
    from twnb.render.view import VIEW_VERSION, view_of

    nb = json.loads((clean_env / "analysis.ipynb").read_text())
    del nb["metadata"]["twnb"]
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            if MIME_TYPE in output.get("data", {}):
                del output["data"][MIME_TYPE]["twnb"]["view"]  # as an older twnb saved it
    (clean_env / "older.ipynb").write_text(json.dumps(nb))
    (clean_env / "analysis.ipynb").unlink()
    shown: list[dict] = []

    class Recording(DisplayPublisher):
        def publish(self, data, *args, **kwargs):
            shown.append(data)

    shell.run_line_magic("taskweaver", "reset")
    monkeypatch.setenv("JPY_SESSION_NAME", "older.ipynb")
    monkeypatch.setattr(shell, "display_pub", Recording(shell=shell))
    shell.run_line_magic("taskweaver", f"show {exported.rounds[0].id}")
    (payload,) = [data[MIME_TYPE] for data in shown if MIME_TYPE in data]
    assert payload["twnb"]["view"]["version"] == VIEW_VERSION  # computed anew, of this twnb's version
    assert view_of(payload)["answer"] == "The mean is 2."
