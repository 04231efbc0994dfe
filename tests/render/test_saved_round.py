"""A Round's output as nbclient saves it from a real kernel: the static bundle alone, no widget view."""

from __future__ import annotations

import pytest
from support.nb_run import llm_env, outputs_with, run_notebook
from support.nb_scripts import answer_round, failing_round

from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
FOUR_VIEWS = {MIME_TYPE, "text/html", "text/markdown", "text/plain"}


def _round_outputs(nb) -> list[dict]:
    return [out for cell in nb.cells for out in cell.get("outputs", []) if MIME_TYPE in out.get("data", {})]


def test_a_finished_round_is_saved_as_exactly_the_four_static_views(fake_llm, tmp_path):
    fake_llm.load(answer_round())
    nb, _ = run_notebook(
        tmp_path,
        ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?"],
        llm_env(fake_llm, tmp_path),
        frontend=True,  # the live widget's display, replaced
    )
    (output,) = _round_outputs(nb)
    assert set(output["data"]) == FOUR_VIEWS
    assert not outputs_with(nb, WIDGET_VIEW)
    assert output["data"][MIME_TYPE]["state"] == "finished"


def test_a_failed_round_is_saved_as_exactly_the_four_static_views(fake_llm, tmp_path):
    fake_llm.load(failing_round())
    nb, _ = run_notebook(
        tmp_path, ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?"], llm_env(fake_llm, tmp_path)
    )
    (output,) = _round_outputs(nb)
    assert set(output["data"]) == FOUR_VIEWS
    assert not outputs_with(nb, WIDGET_VIEW)
    assert "Round failed" in output["data"]["text/html"]


def test_the_live_widget_is_closed_once_the_round_has_ended(fake_llm, tmp_path):
    fake_llm.load(answer_round())
    _, client = run_notebook(
        tmp_path,
        ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?"],
        llm_env(fake_llm, tmp_path),
        frontend=True,
    )
    assert client.opened_comms  # the widget was shown while the Round ran
    assert client.opened_comms <= client.closed_comms


def test_a_client_that_draws_no_widgets_gets_none_and_saves_no_widget_state(fake_llm, tmp_path):
    fake_llm.load(answer_round())
    nb, client = run_notebook(
        tmp_path, ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?"], llm_env(fake_llm, tmp_path)
    )
    assert not client.opened_comms  # nbclient names no cell: nothing would draw a widget
    assert "widgets" not in nb.metadata
    (output,) = _round_outputs(nb)
    assert output["data"][MIME_TYPE]["state"] == "finished"  # the placeholder, updated in place
    assert client.update_displays == 1


def test_show_gives_the_same_four_views_as_the_round_itself(fake_llm, tmp_path):
    fake_llm.load(answer_round())
    cells = ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?", "%taskweaver show last"]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    first, shown = _round_outputs(nb)
    assert set(shown["data"]) == FOUR_VIEWS
    assert shown["data"]["text/html"] == first["data"]["text/html"]
