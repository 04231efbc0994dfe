"""The demo's cassette replays like a recording: Run All twice in one kernel works (the cassette starts
over for a new conversation), papermill replays the quickstart in the demo's folder as the README
shows, and neither leaves a warning box in a cell."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from twnb.demo.quickstart import QUICKSTART
from twnb.demo.runner import run_demo
from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow


def _payloads(nb) -> list[dict]:
    return [
        o["data"][MIME_TYPE] for c in nb.cells for o in c.get("outputs", []) if MIME_TYPE in o.get("data", {})
    ]


def _stderr(nb) -> str:
    return "".join(
        o.get("text", "") for c in nb.cells for o in c.get("outputs", []) if o.get("name") == "stderr"
    )


def test_run_all_twice_in_one_kernel_replays_both_times(tmp_path):
    twice = QUICKSTART.build()
    twice.cells += QUICKSTART.build().cells  # Run All, then Run All again
    result = run_demo(tmp_path / "out", notebook=twice, progress=lambda line: None)
    nb = nbformat.read(result.notebook, as_version=4)
    payloads = _payloads(nb)
    assert [p["state"] for p in payloads] == ["finished"] * 6
    assert [bool(p["extra"]["replay"].get("rewound")) for p in payloads] == [False] * 3 + [True] + [False] * 2
    assert payloads[3]["twnb"]["session_id"] != payloads[0]["twnb"]["session_id"]
    assert [p["extra"]["replay"].get("drift") for p in payloads] == [None] * 6  # nothing drifted
    assert "CassetteDriftWarning" not in _stderr(nb) and "CassetteExhausted" not in nb_text(result.notebook)
    quiet = [
        o["data"]["text/plain"]
        for c in nb.cells
        for o in c.get("outputs", [])
        if set(o.get("data", {})) == {"text/plain"}
        and "again from its first reply" in o["data"]["text/plain"]
    ]
    assert len(quiet) == 1


def nb_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_papermill_replays_the_quickstart_in_the_demos_folder_as_the_readme_shows(tmp_path):
    run_demo(tmp_path / "demo", progress=lambda line: None)
    folder = tmp_path / "copy"
    shutil.copytree(tmp_path / "demo", folder)  # earlier artifacts, the conversation, the cassette
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AZURE_", "TWNB_", "LLM_"))}
    env.update(
        TWNB_REPLAY="quickstart-conversation.cassette.yaml", TWNB_MODEL="twnb-scripted-demo", TWNB_STRICT="1"
    )
    command = [sys.executable, "-m", "papermill", "quickstart.ipynb", "quickstart-papermill.ipynb"]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    nb = nbformat.read(folder / "quickstart-papermill.ipynb", as_version=4)
    payloads = _payloads(nb)
    assert [p["state"] for p in payloads] == ["finished"] * 3
    assert all("drift" not in p["extra"]["replay"] for p in payloads)
    assert sorted(p.name for p in (folder / "twnb-artifacts").iterdir()) == sorted(
        p.name for p in (tmp_path / "demo" / "twnb-artifacts").iterdir()
    )
