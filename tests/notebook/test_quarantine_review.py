"""A notebook session's first Round names what an earlier confined kernel's end quarantined or moved
aside in the notebook's folder and the user has not accepted (twnb/config/kernel_end.py), once, with
`twnb trust` to review it: a `yaml.py` that vanished from the folder is no surprise.

The earlier kernel is a session entered in the folder's record as the launcher enters one, whose
processes are gone (a dead pid): the first reader outside finishes it as a warden would, moving the
`yaml.py` it left aside. The notebook then runs in a real kernel (nbclient) against the loopback LLM
server."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support.nb_run import llm_env, outputs_with, run_notebook
from support.nb_scripts import code, planner

from twnb.config import FolderQuarantine, LaunchRecord
from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow


def _ended_kernel_left_yaml(folder: Path) -> None:
    dead = subprocess.Popen(["true"])  # a kernel whose processes are all gone, its end not done
    dead.wait()
    LaunchRecord(folder).begin(
        files=("twnb.yaml", "AGENTS.md", "TWNB.md"),
        folders=(),
        warden=dead.pid,
        kernel=dead.pid,
        writable=[os.path.realpath(folder)],
    )
    (folder / "yaml.py").write_text("import os\n")
    assert FolderQuarantine(folder).quarantined()["yaml.py"]["moved_to"] == "yaml.py.twnb-quarantined"


def _two_rounds() -> dict[str, list[str]]:
    steps = [
        planner("Do the step.", send_to="CodeInterpreter", step="1. compute"),
        planner("Done.", send_to="User", step="2. report", stop="Completed"),
    ]
    return {"Planner": steps * 2, "CodeInterpreter": [code("answer = 1"), code("answer = 2")]}


def test_the_first_round_names_the_moved_module_once_with_twnb_trust(fake_llm, tmp_path):
    _ended_kernel_left_yaml(tmp_path)
    fake_llm.load(_two_rounds())
    cells = ["%load_ext twnb", "%%taskweaver\nCompute it.", "%%taskweaver\nAgain."]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    first, second = (payload["data"][MIME_TYPE] for payload in outputs_with(nb, MIME_TYPE))
    moved = "yaml.py (a module that would shadow the installed yaml; moved aside to yaml.py.twnb-quarantined)"
    review = f"Review them with `twnb trust --folder {os.path.realpath(tmp_path)}`"
    said = [
        (number, line)
        for number, payload in enumerate((first, second), start=1)
        for line in payload["extra"].get("trust_notes", [])
        if moved in line and review in line
    ]
    assert [number for number, _ in said] == [1]
