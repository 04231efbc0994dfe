"""In a real kernel (nbclient), a Round's saved output records the user's own cells that ran before it,
from the first cell after `%load_ext twnb` on, and not twnb's own commands."""

from __future__ import annotations

import pytest
from support.nb_run import llm_env, outputs_with, run_notebook
from support.nb_scripts import answer_round

from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow


def test_the_round_records_the_users_cells_before_it(fake_llm, tmp_path):
    fake_llm.load(answer_round())
    cells = [
        "%load_ext twnb",
        "numbers = [6, 7]",
        "%config TaskWeaverMagics.timeout = 30",
        "product = numbers[0] * numbers[1]\nproduct",
        "%%taskweaver\nWhat is 6 times 7?",
    ]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    (output,) = outputs_with(nb, MIME_TYPE)
    recorded = output["data"][MIME_TYPE]["extra"]["user_cells"]
    assert [cell["source"] for cell in recorded] == [cells[1], cells[3]]
    assert [cell["execution_count"] for cell in recorded] == [2, 4]
    assert [[v["name"] for v in cell["variables"]] for cell in recorded] == [["numbers"], ["product"]]
    assert (
        "Your cells before this Round: [2] numbers = [6, 7], [4] product = numbers"
        in (output["data"]["text/plain"])
    )


def test_reloading_the_extension_keeps_recording_the_users_cells(fake_llm, tmp_path):
    fake_llm.load(answer_round())
    cells = ["%load_ext twnb", "before = 1", "%reload_ext twnb", "after = 2", "%%taskweaver\nWhat is 6 x 7?"]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    (output,) = outputs_with(nb, MIME_TYPE)
    recorded = output["data"][MIME_TYPE]["extra"]["user_cells"]
    assert [cell["source"] for cell in recorded] == ["before = 1", "after = 2"]


def test_what_a_round_made_is_not_counted_as_the_next_users_cells(fake_llm, tmp_path):
    one, two = answer_round(), answer_round()
    fake_llm.load({role: one[role] + two[role] for role in one})  # two Rounds' replies
    cells = [
        "%load_ext twnb",
        "a = 1",
        "%%taskweaver\nWhat is 6 times 7?",
        "b = answer",
        "%%taskweaver\nAgain?",
    ]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    first, second = (o["data"][MIME_TYPE]["extra"]["user_cells"] for o in outputs_with(nb, MIME_TYPE))
    assert [(c["source"], [v["name"] for v in c["variables"]]) for c in first] == [("a = 1", ["a"])]
    assert [(c["source"], [v["name"] for v in c["variables"]]) for c in second] == [("b = answer", ["b"])]
