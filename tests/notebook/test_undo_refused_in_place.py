"""`%taskweaver undo` in a real ipykernel (nbclient) after the user's own cell changed in place, keeping
its type and shape, an object the Round changed: undo is refused naming it (it would put the Round's
"before" over the user's edit), the edit is kept, and --force still undoes the Round."""

from __future__ import annotations

from typing import Any

import pytest
from support.nb_run import cell_text, llm_env, run_notebook
from support.nb_scripts import code, planner

pytestmark = pytest.mark.slow

SETUP = 'import pandas as pd\ndf = pd.DataFrame({"a": [5, 6]})\nlst = [1, 2]\nd = {"k": "before"}'
# What the Round does to each object, and the user's later edit of the same part of it.
EDITS = {
    "df": ('df["a"] = df["a"] * 10', "df.loc[0, 'a'] = 1", 'print(df["a"].tolist())', "[1, 60]"),
    "lst": ("lst.append(3)", "lst[0] = 9", "print(lst)", "[9, 2, 3]"),
    "d": ('d["n"] = 1', "d['k'] = 'v'", "print(d)", "{'k': 'v', 'n': 1}"),
}


def load_round(fake_llm: Any, round_code: str) -> None:
    to_code = planner("Change it.", send_to="CodeInterpreter", step="1. compute 6 times 7")
    done = planner("Done.", send_to="User", step="2. report the answer", stop="Completed")
    fake_llm.load(
        {
            "Planner": [{"content": to_code}, {"content": done}],
            "CodeInterpreter": [{"content": code(round_code)}],
        }
    )


@pytest.mark.parametrize("name", list(EDITS))
def test_undo_is_refused_after_the_users_cell_changed_the_object_in_place(fake_llm, tmp_path, name):
    round_code, edit, show, edited = EDITS[name]
    load_round(fake_llm, round_code)
    cells = ["%load_ext twnb", SETUP, "%%taskweaver\nChange it.", edit, "%taskweaver undo", show]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    assert cell_text(nb.cells[4]).strip() == (
        f"Undo of Round 1 refused: {name} (in place) changed since the Round; "
        "%taskweaver undo 1 --force undoes it anyway (their later changes are lost)."
    )
    assert cell_text(nb.cells[5]).strip() == edited


def test_force_undoes_the_round_past_the_users_change_in_place(fake_llm, tmp_path):
    load_round(fake_llm, "lst.append(3)")
    force = "%taskweaver undo --force"
    cells = ["%load_ext twnb", SETUP, "%%taskweaver\nChange it.", "lst[0] = 9", force, "print(lst)"]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    assert cell_text(nb.cells[4]).strip().splitlines()[0].endswith("Forced past later changes to lst.")
    assert cell_text(nb.cells[5]).strip() == "[1, 2]"
