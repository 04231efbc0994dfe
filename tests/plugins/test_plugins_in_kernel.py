"""Plugins in a real kernel, run by nbclient against the loopback LLM server: a notebook with a
`plugins/` folder beside it (TaskWeaver's format), an MCP server in its twnb.yaml and a function of its
own made a plugin with `@twnb.plugin`; `%%taskweaver` Rounds whose code calls all three;
`%taskweaver plugins`; `--plugin-only`."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from plugin_files import DATA, MCP_SERVER
from plugin_scripts import code, planner
from support.nb_run import cell_text, llm_env, outputs_with, run_notebook

from twnb.render import MIME_TYPE

pytest.importorskip("mcp")
pytestmark = pytest.mark.slow

CELLS = [
    "%load_ext twnb",
    "import pandas as pd\nimport twnb\n"
    "sales = pd.DataFrame({'region': ['north', 'south', 'north'], 'amount': [5, 7, 4]})\n\n"
    "@twnb.plugin\ndef top_regions(df, n: int = 2) -> list:\n"
    "    '''The n regions with the most sales.'''\n"
    "    return list(df.groupby('region')['amount'].sum().nlargest(n).index)",
    "%%taskweaver\nSummarise the sales by region, and add 2 and 3",
    "%taskweaver plugins",
    "print(city_lookup('Lima'), top_regions(sales, 1))",
    "%%taskweaver --plugin-only\nWhich country is Kyoto in?",
]
ROUND_ONE = (
    "summary, note = sales_report(sales, 'region')\nbest = top_regions(sales, 1)\n"
    "total = add(a=2, b=3)\nnote, best, total"
)
ROUND_TWO = "country = city_lookup('Kyoto')\ncountry"


@pytest.fixture
def notebook_folder(tmp_path: Path) -> Path:
    shutil.copytree(DATA / "taskweaver", tmp_path / "plugins")
    config = {"mcp": {"servers": {"calc": {"command": sys.executable, "args": [str(MCP_SERVER)]}}}}
    (tmp_path / "twnb.yaml").write_text(yaml.safe_dump(config))
    return tmp_path


def test_a_notebooks_plugins_from_every_source_in_a_real_kernel(fake_llm, notebook_folder):
    fake_llm.load(
        {
            "Planner": [
                planner("CodeInterpreter", "Summarise the sales with the plugins."),
                planner("User", "north sold the most.", stop="Completed"),
                planner("CodeInterpreter", "Look Kyoto up."),
                planner("User", "Japan.", stop="Completed"),
            ],
            "CodeInterpreter": [code(ROUND_ONE), code(ROUND_TWO)],
        }
    )
    nb, _ = run_notebook(notebook_folder, CELLS, llm_env(fake_llm, notebook_folder))
    first, second = (output["data"][MIME_TYPE] for output in outputs_with(nb, MIME_TYPE))

    assert first["state"] == "finished"
    post = first["post_list"][2]
    calls = post["extra"]["plugin_calls"]
    assert [(c["name"], c["source"]) for c in calls] == [
        ("sales_report", "taskweaver"),
        ("top_regions", "notebook"),
        ("add", "mcp"),
    ]
    assert calls[2]["result"] == "int 5"
    artifacts = next(a["content"] for a in post["attachment_list"] if a["type"] == "artifact_paths")
    assert any(p.endswith("summary.csv") for p in artifacts)
    assert all((notebook_folder / p).is_file() or Path(p).is_file() for p in artifacts)
    offered = first["extra"]["plugins"]  # ten plugins: chosen by the request's words, the required one kept
    assert offered["chosen_by"] == "request" and offered["available"] == 10
    assert {"sales_report", "unit_converter", "add", "top_regions"} <= set(offered["described"])
    assert "shout" not in offered["described"]
    said = cell_text(nb.cells[2])
    assert "twnb: Plugin fetch_forecast: fetch_forecast.py needs the module" in said

    listing = cell_text(nb.cells[3])
    for row in (
        "sales_report",
        "taskweaver",
        "fetch_forecast",
        "not loaded",
        "add",
        "MCP server calc",
        "top_regions",
    ):
        assert row in listing
    assert cell_text(nb.cells[4]).strip() == "Peru ['north']"

    assert second["state"] == "finished" and second["extra"]["plugin_only"] is True
    assert second["extra"]["plugins"]["described"] == ["city_lookup"]
    assert "plugin_problems" not in second["extra"]
    assert json.dumps(second).count("city_lookup") >= 1
    code_requests = [r for r in fake_llm.chat_requests() if r["role"] == "CodeInterpreter"]
    system = next(m["content"] for m in code_requests[0]["body"]["messages"] if m["role"] == "system")
    assert "def sales_report(" in system and "def add(" in system and "def top_regions(" in system
