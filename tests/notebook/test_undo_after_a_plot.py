"""`%taskweaver undo` of a Round that plotted, in a real ipykernel (nbclient, the inline backend draws
and closes the figure at the end of the cell): a figure drawn and closed is not a change, so undo goes
ahead; a title the user's cell sets on the Round's axes still is, and undo is refused naming them."""

from __future__ import annotations

import pytest
from support.nb_run import cell_text, llm_env, run_notebook
from support.nb_scripts import remember_offer
from test_undo_refused_in_place import load_round

pytestmark = pytest.mark.slow

PLOT = "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 2, 3])\nplt.show()"


def test_undo_of_a_round_that_plotted_goes_ahead(fake_llm, tmp_path):
    load_round(fake_llm, PLOT)
    cells = ["%load_ext twnb", "%%taskweaver\nChange it.", "%taskweaver undo", "print('fig' in globals())"]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    assert cell_text(nb.cells[2]).strip().splitlines() == [
        "Round 1: Undone by the user: removed plt, fig, ax.",
        remember_offer(1),
    ]
    assert cell_text(nb.cells[3]).strip() == "False"


def test_a_title_set_on_the_rounds_axes_since_refuses_the_undo(fake_llm, tmp_path):
    load_round(fake_llm, PLOT)
    cells = ["%load_ext twnb", "%%taskweaver\nChange it.", "ax.set_title('mine');", "%taskweaver undo"]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    assert (
        cell_text(nb.cells[3])
        .strip()
        .startswith("Undo of Round 1 refused: fig, ax (in place) changed since the Round;")
    )
