"""`twnb export CONV --execute` binds the plugins the settings describe in the fresh kernel before the
recorded code runs (under the runtime guard, where a plugin still may start its process), and says in
one line which plugin the code calls that is not there, and how to provide it. Real nbclient re-runs."""

from __future__ import annotations

import nbformat
import pytest
from support.nb_run import cell_text
from support.plugin_folder import counted_conversation, write_plugin_folder

from twnb.cli import main
from twnb.memory import save_conversation

pytestmark = pytest.mark.slow

MISSING = (
    "The plugin word_count that the recorded code calls is not here: put its TaskWeaver plugin folder "
    "in plugin_dirs (or plugins/ beside the notebook)"
)


@pytest.fixture
def saved(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the settings (and the default plugins/ folder) of this folder
    path = tmp_path / "conv.yaml"
    save_conversation(counted_conversation(), path)
    return path


def _export(path, *flags):
    return main(["export", str(path), "-o", str(path.parent / "out.ipynb"), *flags])


def test_the_plugins_of_the_folder_are_bound_before_the_code_runs_again(saved, capsys):
    write_plugin_folder(saved.parent)
    # the plugin runs `wc`: a confined kernel runs no programs, a plugin's included
    assert _export(saved, "--execute", "--no-confine") == 0
    out = capsys.readouterr().out
    assert "1 of 1 cells reproduced." in out
    assert "word_count" not in out  # nothing missing, nothing said to be from outside
    nb = nbformat.read(saved.parent / "out.ipynb", as_version=4)
    (cell,) = [c for c in nb.cells if "rerun" in (c.metadata.get("twnb") or {})]
    assert cell_text(cell) == "3\n"


def test_a_plugin_that_is_not_there_is_named_with_how_to_provide_it(saved, capsys):
    (saved.parent / "notes.txt").write_text("one two\nthree\n")
    assert _export(saved, "--execute") == 0
    out = capsys.readouterr().out
    assert MISSING in out
    assert "0 of 1 cells reproduced." in out
