"""Whole notebooks run by nbclient in a real kernel against the loopback LLM server (contracts 5, 6)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat
import pytest
from nbclient.exceptions import CellExecutionError
from support.nb_markdown import rendered
from support.nb_run import CANARY_KEY, cell_text, llm_env, outputs_with, run_notebook
from support.nb_scripts import answer_round, code, failing_round

from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow

WIDGET = "application/vnd.jupyter.widget-view+json"
STATS = (
    "_m = get_ipython().magics_manager.registry['TaskWeaverMagics'].last_display.view\n"
    "print(_m.deltas_seen, _m.throttle.updates)"
)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path


def test_saved_notebook_holds_the_final_round_instead_of_the_widget(fake_llm, folder):
    fake_llm.load(answer_round())
    nb, client = run_notebook(
        folder,
        ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?"],
        llm_env(fake_llm, folder),
        frontend=True,
    )
    (output,) = outputs_with(nb, MIME_TYPE)
    payload = output["data"][MIME_TYPE]
    assert WIDGET not in output["data"]
    assert {"text/plain", "text/markdown", "text/html"} <= set(output["data"])
    assert payload["state"] == "finished"
    assert [(p["send_from"], p["send_to"]) for p in payload["post_list"]] == [
        ("User", "Planner"),
        ("Planner", "CodeInterpreter"),
        ("CodeInterpreter", "Planner"),
        ("Planner", "User"),
    ]
    assert [(s["name"], s["state"]) for s in payload["twnb"]["plan"]["subtasks"]] == [
        ("compute 6 times 7", "done"),
        ("report the answer", "done"),
    ]
    assert payload["twnb"]["schema_version"] == 1
    assert client.update_displays == 1
    assert nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]


def test_code_ran_on_the_live_kernel(fake_llm, folder):
    fake_llm.load(answer_round())
    nb, _ = run_notebook(
        folder,
        ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?", "print(answer + 1)"],
        llm_env(fake_llm, folder),
    )
    assert cell_text(nb.cells[2]).strip() == "43"


def test_hostile_message_is_saved_as_text(fake_llm, folder):
    fake_llm.load(answer_round())
    nb, _ = run_notebook(
        folder,
        ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?"],
        llm_env(fake_llm, folder),
        frontend=True,
    )
    (output,) = outputs_with(nb, MIME_TYPE)
    assert "<img" not in output["data"]["text/markdown"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in output["data"]["text/markdown"]
    rendered = []  # what a frontend renders as HTML or Markdown from the saved widget state
    for model in nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"].values():
        state = model["state"]
        if isinstance(state.get("value"), str):
            rendered.append(state["value"])
        rendered += [
            o["data"]["text/markdown"] for o in state.get("outputs", []) if "text/markdown" in o["data"]
        ]
    assert any("&lt;img src=x onerror=alert(1)&gt;" in text for text in rendered)
    assert not any("<img" in text for text in rendered)


def test_streaming_updates_are_throttled(fake_llm, folder):
    long_message = "word " * 800  # 4 KB streamed 4 characters at a time, ~2.5 s
    fake_llm.load(answer_round(final_message=long_message, delay_s=0.0025))
    nb, client = run_notebook(
        folder,
        ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?", STATS],
        llm_env(fake_llm, folder),
        frontend=True,
    )
    deltas, updates = (int(x) for x in cell_text(nb.cells[2]).split())
    assert deltas > 1000
    assert updates < deltas / 10
    assert client.widget_updates < deltas / 5
    (output,) = outputs_with(nb, MIME_TYPE)
    assert output["data"][MIME_TYPE]["post_list"][-1]["message"] == long_message


def test_failed_round_shows_why_and_does_not_raise(fake_llm, folder):
    fake_llm.load(failing_round())
    nb, _ = run_notebook(
        folder, ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?", "1 + 1"], llm_env(fake_llm, folder)
    )
    (output,) = outputs_with(nb, MIME_TYPE)
    payload = output["data"][MIME_TYPE]
    assert payload["state"] == "failed"
    assert payload["extra"]["failure_reason"]
    assert "Round failed:" in output["data"]["text/markdown"]
    assert not [o for o in nb.cells[1].outputs if o["output_type"] == "error"]
    assert cell_text(nb.cells[2]) == "2"


def test_failed_round_with_strict_raises(fake_llm, folder):
    fake_llm.load(failing_round())
    with pytest.raises(CellExecutionError, match="RoundFailedError"):
        run_notebook(
            folder, ["%load_ext twnb", "%%taskweaver --strict\nWhat is 6 times 7?"], llm_env(fake_llm, folder)
        )
    nb = nbformat.read(folder / "run.ipynb", as_version=4)
    (output,) = outputs_with(nb, MIME_TYPE)
    assert output["data"][MIME_TYPE]["state"] == "failed"


def test_save_reset_load_show_across_cells(fake_llm, folder):
    fake_llm.load(answer_round())
    cells = [
        "%load_ext twnb",
        "%%taskweaver\nWhat is 6 times 7?",
        "%taskweaver save conv.yaml",
        "%taskweaver reset",
        "%taskweaver history",
        "del answer\n%taskweaver load conv.yaml",
        "%taskweaver show last",
        "%taskweaver history",
        "%reload_ext twnb",
        "%taskweaver history",
    ]
    nb, _ = run_notebook(folder, cells, llm_env(fake_llm, folder))
    round_id = outputs_with(nb, MIME_TYPE)[0]["data"][MIME_TYPE]["id"]
    assert "Saved 1 Round to conv.yaml" in cell_text(nb.cells[2])
    assert "No Rounds in this kernel's session" in cell_text(nb.cells[4])
    assert "Loaded 1 Round from conv.yaml" in cell_text(nb.cells[5])
    assert "this kernel lacks: answer" in cell_text(nb.cells[5])
    shown = nb.cells[6].outputs[0]["data"][MIME_TYPE]
    assert shown["id"] == round_id and shown["state"] == "finished"
    assert round_id in cell_text(nb.cells[7])
    assert len(fake_llm.chat_requests()) == 3  # show never called the LLM
    assert "carrying on with this kernel's conversation (1 Round)" in cell_text(nb.cells[8])
    assert round_id in cell_text(nb.cells[9])


def test_no_key_in_config_outputs_or_the_saved_notebook(fake_llm, folder):
    fake_llm.load(answer_round())
    cells = [
        "%load_ext twnb",
        "%config TaskWeaverMagics",
        "%taskweaver config",
        "%%taskweaver\nWhat is 6 times 7?",
    ]
    run_notebook(folder, cells, llm_env(fake_llm, folder))
    saved = (folder / "run.ipynb").read_text()
    assert "OPENAI_API_KEY (environment)" in saved
    assert CANARY_KEY not in saved


def test_elapsed_time_ticks_while_code_runs(fake_llm, folder):
    fake_llm.load(
        {
            "Planner": answer_round()["Planner"],
            "CodeInterpreter": [{"content": code("import time\ntime.sleep(2.6)\nanswer = 42\nanswer")}],
        }
    )
    cells = ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?"]
    _, client = run_notebook(folder, cells, llm_env(fake_llm, folder), frontend=True)
    running = [v for v in client.html_values if ">running</span>" in v]
    seconds = {int(m) for v in running for m in re.findall(r"<small>(\d+) s", v)}
    assert {1, 2} <= seconds  # no event arrives during the sleep: only the heartbeat moves the clock


def test_a_displayed_figure_is_saved_once_and_read_back_whole(fake_llm, folder):
    """The cell's own display holds the PNG; the Round refers to it, and reading the notebook back
    puts it back in the Round's captured outputs."""
    from twnb.replay import read_notebook

    plot = "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()\nanswer = 42\nanswer"
    fake_llm.load({"Planner": answer_round()["Planner"], "CodeInterpreter": [{"content": code(plot)}]})
    nb, _ = run_notebook(folder, ["%load_ext twnb", "%%taskweaver\nPlot it."], llm_env(fake_llm, folder))
    (figure,) = [o for o in nb.cells[1].outputs if "image/png" in o.get("data", {})]
    png = figure["data"]["image/png"]
    saved = (folder / "run.ipynb").read_text()
    assert saved.count(png[:200]) == 1
    (output,) = outputs_with(nb, MIME_TYPE)
    (preview,) = output["data"][MIME_TYPE]["twnb"]["previews"]
    assert preview["output"]["index"] == 0 and "data" not in preview
    assert "(twnb-artifacts/round-1-plot.png)" in output["data"]["text/markdown"]
    assert "base64," not in output["data"]["text/html"]
    (round,) = read_notebook(folder / "run.ipynb").conversation.rounds
    displayed = [
        output["data"].get("image/png")
        for post in round.post_list
        for attachment in post.attachment_list
        if attachment.type.value == "execution_result"
        for output in (attachment.extra or {}).get("outputs") or []
        if output.get("output_type") == "display_data"
    ]
    assert displayed == [png]


def _widget_states(nb) -> list[dict]:
    models = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    return [model["state"] for model in models.values()]


ASK = ["%load_ext twnb", "%%taskweaver\nWhat is 6 times 7?"]


def test_saved_notebook_holds_no_absolute_path_of_its_folder(fake_llm, folder):
    plot = "import matplotlib.pyplot as plt\nplt.plot([1])\nplt.savefig('fig.png')\nplt.show()\nanswer = 42"
    fake_llm.load({"Planner": answer_round()["Planner"], "CodeInterpreter": [{"content": code(plot)}]})
    nb, _ = run_notebook(folder, [*ASK, "%taskweaver show last"], llm_env(fake_llm, folder))
    coder = outputs_with(nb, MIME_TYPE)[0]["data"][MIME_TYPE]["post_list"][2]
    (artifacts,) = [a["content"] for a in coder["attachment_list"] if a["type"] == "artifact_paths"]
    assert "fig.png" in artifacts and "twnb-artifacts/round-1-what-6-times-7.png" in artifacts
    saved = html.unescape((folder / "run.ipynb").read_text())  # Markdown writes `_` as `&#95;`
    assert str(folder.resolve()) not in saved and str(folder) not in saved


def test_a_safe_link_in_the_answer_is_saved_as_a_link(fake_llm, folder):
    fake_llm.load(answer_round(final_message="Saved [weeks.csv](weeks.csv); [x](javascript:alert(1))"))
    nb, _ = run_notebook(folder, ASK, llm_env(fake_llm, folder), frontend=True)
    (output,) = outputs_with(nb, MIME_TYPE)
    page = rendered(output["data"]["text/markdown"])
    assert '<a href="weeks.csv">weeks.csv</a>' in page
    assert not any("javascript" in href for href in re.findall(r'href="([^"]*)"', page))
    widget_markdown = [o["data"]["text/markdown"] for s in _widget_states(nb) for o in s.get("outputs", [])]
    assert any("[weeks.csv](weeks.csv)" in text for text in widget_markdown)
    assert not any("](javascript" in text for text in widget_markdown)


def test_saved_widget_folds_all_but_the_code_and_the_answer(fake_llm, folder):
    fake_llm.load(answer_round())
    nb, _ = run_notebook(folder, ASK, llm_env(fake_llm, folder), frontend=True)
    sections = {s["titles"][0]: s["selected_index"] for s in _widget_states(nb) if s.get("titles")}
    assert sections == {
        "User → Planner": None,
        "Planner → CodeInterpreter": None,
        "CodeInterpreter → Planner": 0,
        "Planner → User": 0,
    }


def test_a_reply_cut_off_mid_stream_is_saved_marked_incomplete(fake_llm, folder):
    reply = answer_round()["Planner"][0]
    fake_llm.load({"Planner": [{**reply, "drop_after_chars": 120, "times": 10}]})
    nb, _ = run_notebook(folder, ASK, llm_env(fake_llm, folder), frontend=True)
    (output,) = outputs_with(nb, MIME_TYPE)
    (cut,) = [p for p in output["data"][MIME_TYPE]["post_list"] if p.get("extra", {}).get("incomplete")]
    assert cut["send_from"] == "Planner"
    said = "reply cut off: The reply stopped before it was complete: LLMStreamDropped"
    assert said in html.unescape(output["data"]["text/html"])
    assert "[failed]" in output["data"]["text/plain"]  # the saved text, a summary, names the outcome
    widget_html = "".join(s["value"] for s in _widget_states(nb) if isinstance(s.get("value"), str))
    assert "⚠ " + said in widget_html
