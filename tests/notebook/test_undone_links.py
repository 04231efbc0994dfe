"""After `%taskweaver undo` (a real ipykernel, nbclient), the undone Round links the file its code made
where undo moved it (`twnb-undone/<round id>/`), in its redrawn view, in `show`, and in an export
(which finds it there); not at the old place, where nothing is now."""

from __future__ import annotations

import json
from typing import Any

import nbformat
import pytest
from support.nb_run import cell_text, llm_env, run_notebook
from support.nb_scripts import code, planner

from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow


def _load(fake_llm: Any) -> None:
    to_code = planner("Write the table.", send_to="CodeInterpreter", step="1. compute 6 times 7")
    done = planner(
        "Here it is: [the table](made.csv).", send_to="User", step="2. report the answer", stop="Completed"
    )
    fake_llm.load(
        {
            "Planner": [{"content": to_code}, {"content": done}],
            "CodeInterpreter": [{"content": code("open('made.csv', 'w').write('a\\n1\\n')")}],
        }
    )


def test_an_undone_round_links_the_file_where_undo_moved_it_in_every_view(fake_llm, tmp_path):
    _load(fake_llm)
    cells = [
        "%load_ext twnb",
        "%%taskweaver\nWrite the table.",
        "%taskweaver undo",
        "%taskweaver show 1",
        "%taskweaver export out.ipynb",
    ]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    round_id = json.loads(json.dumps(nb.cells[3].outputs[-1].data[MIME_TYPE]))["id"]
    moved = f"twnb-undone/{round_id}/made.csv"
    assert (tmp_path / moved).is_file() and not (tmp_path / "made.csv").exists()
    shown = nb.cells[3].outputs[-1].data
    assert f'href="{moved}"' in shown["text/html"] and 'href="made.csv"' not in shown["text/html"]
    assert f"]({moved})" in shown["text/markdown"]
    redrawn = [o for o in nb.cells[1].outputs if MIME_TYPE in o.get("data", {})][-1].data
    assert f'href="{moved}"' in redrawn["text/html"]
    assert "Artifact not found" not in cell_text(nb.cells[4])
    exported = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    show_html = exported.cells[2].outputs[0].data["text/html"]
    assert f'href="{moved}"' in show_html and 'href="made.csv"' not in show_html  # found beside it
