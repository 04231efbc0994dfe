"""Files twnb saves for the user land in a visible folder beside the notebook, with readable names,
and everything saved links to them relatively. Notebooks run by nbclient in a real kernel."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from support.nb_run import llm_env, outputs_with, run_notebook
from support.nb_scripts import answer_round, code

from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow

TWO_FIGURES = (
    "import matplotlib.pyplot as plt\n"
    "plt.plot([1, 3, 2]); plt.show()\n"
    "plt.plot([2, 1, 3]); plt.show()\n"
    "open('twnb-artifacts/own.txt', 'w').write('x')\n"
    "open('mine.txt', 'w').write('y')\n"
    "answer = 42\nanswer"
)


def _round_with(code_text: str) -> dict:
    return {"Planner": answer_round()["Planner"], "CodeInterpreter": [{"content": code(code_text)}]}


@pytest.fixture(scope="module")
def figures_run(tmp_path_factory, fake_llm_module):
    """Two Rounds (the first displays two figures), then the conversation saved beside the notebook."""
    folder = tmp_path_factory.mktemp("artifacts")
    (folder / "twnb-artifacts").mkdir()
    fake_llm_module.load(
        {
            "Planner": answer_round()["Planner"] * 2,
            "CodeInterpreter": [
                {"content": code(TWO_FIGURES)},
                {"content": code("import matplotlib.pyplot as plt\nplt.plot([1]); plt.show()\nanswer = 1")},
            ],
        }
    )
    cells = [
        "%load_ext twnb",
        "%%taskweaver\nPlot revenue by month.",
        "%%taskweaver\nAnd the costs?",
        "%taskweaver save conv.yaml",
    ]
    nb, _ = run_notebook(folder, cells, llm_env(fake_llm_module, folder))
    return folder, nb


@pytest.fixture(scope="module")
def fake_llm_module():
    from fakellm.server import FakeLLMServer

    server = FakeLLMServer().start()
    try:
        yield server
    finally:
        server.stop()


def _artifact_paths(payload: dict) -> list[str]:
    return [
        path
        for post in payload["post_list"]
        for a in post["attachment_list"]
        if a["type"] == "artifact_paths"
        for path in a["content"]
    ]


def test_figures_are_saved_in_the_visible_folder_named_after_the_round(figures_run):
    folder, _ = figures_run
    names = sorted(p.name for p in (folder / "twnb-artifacts").glob("*.png"))
    assert names == [
        "round-1-plot-revenue-by-month-2.png",
        "round-1-plot-revenue-by-month.png",
        "round-2-costs.png",
    ]
    assert not (folder / ".twnb" / "artifacts").exists()


def test_autosave_stays_in_the_hidden_session_folder(figures_run):
    folder, _ = figures_run
    assert len(list((folder / ".twnb").glob("*/rounds/*.yaml"))) == 2
    assert not list((folder / "twnb-artifacts").glob("*.yaml"))


def test_the_saved_round_links_to_its_figures_relatively(figures_run):
    _, nb = figures_run
    first = outputs_with(nb, MIME_TYPE)[0]["data"]
    figures = [p for p in _artifact_paths(first[MIME_TYPE]) if p.endswith(".png")]
    assert figures == [
        "twnb-artifacts/round-1-plot-revenue-by-month.png",
        "twnb-artifacts/round-1-plot-revenue-by-month-2.png",
    ]
    linked = re.findall(r"\]\((twnb-artifacts/[^)]+\.png)\)", first["text/markdown"])
    assert "twnb-artifacts/round-1-plot-revenue-by-month.png" in linked


def test_the_saved_conversation_names_the_figures_relative_to_its_folder(figures_run):
    folder, _ = figures_run
    saved = yaml.safe_load((folder / "conv.yaml").read_text())
    paths = [
        path
        for round in saved["rounds"]
        for post in round["post_list"]
        for a in post["attachment_list"]
        if a["type"] == "artifact_paths"
        for path in a["content"]
    ]
    assert "twnb-artifacts/round-2-costs.png" in paths
    assert all(not Path(p).is_absolute() for p in paths)


def test_files_the_code_writes_into_the_artifacts_folder_are_not_scanned(figures_run):
    _, nb = figures_run
    paths = _artifact_paths(outputs_with(nb, MIME_TYPE)[0]["data"][MIME_TYPE])
    assert "mine.txt" in paths
    assert not any(p.endswith("own.txt") for p in paths)


def test_images_the_code_displayed_stay_in_the_cells_outputs(figures_run):
    _, nb = figures_run
    assert len([o for o in nb.cells[1].outputs if "image/png" in o.get("data", {})]) == 2
