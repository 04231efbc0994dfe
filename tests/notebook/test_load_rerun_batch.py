"""`%taskweaver load X --rerun` in a batch run (nbclient: a real kernel, nobody to ask) without
--user-cells: the first thing said is one line naming what will not run, and no Round's code that reads
what only the user's cells make runs, not even its first lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.nb_run import run_notebook
from support.replay_rounds import code_round, conversation, stdout, user_cell, with_user_cells

from twnb.memory import save_conversation

pytestmark = pytest.mark.slow  # runs a notebook in a real kernel (nbclient)


def _conversation_needing_a_users_cell(folder: Path) -> None:
    needs_cell = with_user_cells(
        code_round("Sum", "open('half-ran', 'w').close()\ntotal = sum(sales)", [stdout("")]),
        user_cell("sales = [3, 4, 5]", 2, made=("sales",)),
    )
    needs_round_1 = code_round("Double", "double = total * 2", [stdout("")])
    independent = code_round("Other", "other = 5", [stdout("")])
    save_conversation(conversation(needs_cell, needs_round_1, independent), folder / "conv.yaml")


def test_rerun_without_user_cells_says_first_what_will_not_run_and_runs_none_of_it(clean_env: Path) -> None:
    _conversation_needing_a_users_cell(clean_env)
    nb, _ = run_notebook(
        clean_env,
        [
            "%load_ext twnb",
            "%taskweaver load conv.yaml --rerun",
            "print(sorted(k for k in ('total', 'double', 'other') if k in globals()))",
        ],
        dict(os.environ),
        allow_errors=True,
    )
    outputs = nb.cells[1].outputs
    assert [o.output_type for o in outputs] == ["stream"] * len(outputs)  # no traceback at all
    said = "".join(o.text for o in outputs).splitlines()
    assert said[1] == (
        "Your 1 recorded cell will not run (add --user-cells to run them too, or run them yourself first); "
        "Rounds 1, 2 read what they make (sales, total), so that code will not run either."
    )
    assert not (clean_env / "half-ran").exists()
    assert nb.cells[2].outputs[0].text == "['other']\n"
