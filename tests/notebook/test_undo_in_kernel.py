"""`%taskweaver undo` in a real ipykernel (nbclient): the kernel is put back, the overwritten file too,
and the Round's own output in the saved notebook is redrawn greyed with the line of what was undone."""

from __future__ import annotations

import json

import pytest
from support.nb_run import cell_text, llm_env, outputs_with, run_notebook
from support.nb_scripts import code, planner, remember_offer

from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow

ROUND_CODE = (
    'df["total"] = df["price"] * 2\n'
    "df.drop(index=[0], inplace=True)\n"
    "seen.append(len(df))\n"
    "summary = df.describe()\n"
    'df.to_csv("sales.csv", index=False)\n'
    'open("notes.txt", "w").write("made by the Round")'
)


def test_undo_puts_the_kernel_and_files_back_and_greys_the_rounds_output(fake_llm, tmp_path):
    to_code = planner("Add totals.", send_to="CodeInterpreter", step="1. compute 6 times 7")
    done = planner("Done.", send_to="User", step="2. report the answer", stop="Completed")
    fake_llm.load(
        {
            "Planner": [{"content": to_code}, {"content": done}],
            "CodeInterpreter": [{"content": code(ROUND_CODE)}],
        }
    )
    (tmp_path / "sales.csv").write_text("price\n1\n2\n")
    cells = [
        "%load_ext twnb",
        'import pandas as pd\ndf = pd.read_csv("sales.csv")\nseen = []',
        "%%taskweaver\nAdd totals.",
        "%taskweaver undo",
        'print(df.to_dict("list"), seen, "summary" in globals())',
    ]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    assert cell_text(nb.cells[4]).strip() == "{'price': [1, 2]} [] False"
    assert (tmp_path / "sales.csv").read_text() == "price\n1\n2\n"
    (output,) = outputs_with(nb, MIME_TYPE)
    round_id = output["data"][MIME_TYPE]["id"]
    assert (tmp_path / "twnb-undone" / round_id / "notes.txt").read_text() == "made by the Round"
    assert not (tmp_path / "notes.txt").exists()
    undone = output["data"][MIME_TYPE]["twnb"]["view"]["undone"]
    assert undone.startswith("Undone by the user: removed summary; restored df, seen; restored sales.csv;")
    assert "twnb-undone" in output["data"]["text/html"]
    assert cell_text(nb.cells[3]).strip().splitlines() == [f"Round 1: {undone}", remember_offer(1)]
    saved = json.loads((tmp_path / "run.ipynb").read_text())
    assert "twnb-undone" in json.dumps(saved["cells"][2]["outputs"])


def test_undo_writes_nothing_through_a_symlink_swapped_in_since_the_round(
    fake_llm, tmp_path, tmp_path_factory
):
    to_code = planner("Add totals.", send_to="CodeInterpreter", step="1. compute 6 times 7")
    done = planner("Done.", send_to="User", step="2. report the answer", stop="Completed")
    fake_llm.load(
        {
            "Planner": [{"content": to_code}, {"content": done}],
            "CodeInterpreter": [{"content": code('open("sales.csv", "w").write("overwritten")')}],
        }
    )
    victim = tmp_path_factory.mktemp("outside") / "victim.txt"
    victim.write_text("not the notebook's")
    (tmp_path / "sales.csv").write_text("price\n1\n")
    cells = [
        "%load_ext twnb",
        "%%taskweaver\nAdd totals.",
        f"import os\nos.remove('sales.csv')\nos.symlink({str(victim)!r}, 'sales.csv')",
        "%taskweaver undo",
    ]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    assert victim.read_text() == "not the notebook's"
    assert "`sales.csv` was not restored: it, or a folder above it, is now a symlink" in cell_text(
        nb.cells[3]
    )
