"""`twnb demo --live` runs the model's code in a confined kernel by default: the quickstart's Rounds
finish against the loopback fake server, whose requests carry the real key (added by the key proxy,
never in the kernel), and the run says it was confined."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
import yaml
from fakellm import FakeLLMServer
from support.confined_kernel import needs_landlock
from support.nb_scripts import code, planner

from twnb.demo.demo_notebook import DEMO_MODEL
from twnb.demo.runner import QUICKSTART, KernelChoice, run_demo

pytestmark = [pytest.mark.slow, needs_landlock, pytest.mark.timeout(600)]

KEY = "sk-proj-demoConfinedTEST0123456789abcdef"


def _script() -> dict[str, list[str]]:
    replies = yaml.safe_load(QUICKSTART.scripted_replies.read_text(encoding="utf-8"))
    return {role: [json.dumps({"response": r}) for r in items] for role, items in replies.items()}


def test_the_live_quickstart_runs_confined_through_the_key_proxy(tmp_path: Path, monkeypatch) -> None:
    with FakeLLMServer(_script(), models=(DEMO_MODEL,)) as server:
        for name in ("TWNB_REPLAY", "TWNB_RECORD", "LLM_API_KEY", "AZURE_OPENAI_API_KEY"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("TWNB_MODEL", DEMO_MODEL)
        lines: list[str] = []
        result = run_demo(
            tmp_path / "out", live=True, kernel_choice=KernelChoice(confine=True), progress=lines.append
        )
        headers = {r["headers"]["authorization"] for r in server.chat_requests()}
    assert result.ok, result.failures
    assert headers == {f"Bearer {KEY}"}
    saved = result.conversation.read_text(encoding="utf-8")
    assert "confinement:" in saved and KEY not in saved


def test_the_demo_names_the_program_start_a_rounds_code_was_refused(tmp_path: Path, monkeypatch) -> None:
    marker = tmp_path / "out" / "started-by-system"
    attack = f"import ctypes\nprint('status', ctypes.CDLL(None).system(b'touch {marker}'))"
    script = {
        "Planner": [
            planner("Do it.", send_to="CodeInterpreter", step="1. touch the marker"),
            planner("Done.", send_to="User", step="2. report", stop="Completed"),
        ],
        "CodeInterpreter": [code(attack)],
    }
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(s) for s in ("%load_ext twnb", "%%taskweaver --no-verify\nTouch it.")
    ]
    with FakeLLMServer(script, models=(DEMO_MODEL,)) as server:
        for name in ("TWNB_REPLAY", "TWNB_RECORD", "LLM_API_KEY", "AZURE_OPENAI_API_KEY"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("TWNB_MODEL", DEMO_MODEL)
        lines: list[str] = []
        result = run_demo(
            tmp_path / "out",
            live=True,
            kernel_choice=KernelChoice(confine=True),
            notebook=nb,
            progress=lines.append,
        )
    assert result.ok, result.failures
    assert not marker.exists()
    said = "Confined kernel: running /bin/sh was refused"
    assert [n for n in result.notes if n.startswith(f"cell 2: {said}")], result.notes
    assert any(line.strip().startswith(said) for line in lines)


def test_the_live_demo_says_once_that_a_dotenv_beside_its_notebook_holds_the_key(
    tmp_path: Path, monkeypatch
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / ".env").write_text(f"OPENAI_API_KEY={KEY}\n")  # beside the notebook the demo writes there
    script = {"Planner": [planner("Hello.", send_to="User", step="1. greet", stop="Completed")]}
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in ("%load_ext twnb", "%%taskweaver\nSay hello.")]
    with FakeLLMServer(script, models=(DEMO_MODEL,)) as server:
        for name in ("TWNB_REPLAY", "TWNB_RECORD", "LLM_API_KEY", "AZURE_OPENAI_API_KEY"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("TWNB_MODEL", DEMO_MODEL)
        lines: list[str] = []
        result = run_demo(
            out, live=True, kernel_choice=KernelChoice(confine=True), notebook=nb, progress=lines.append
        )
    assert result.ok, result.failures
    told = [line for line in lines if "the model's key is in " in line]
    assert len(told) == 1, lines
    assert told[0].startswith(f"twnb demo: confined kernel: the model's key is in {out / '.env'}: "), told
    notebook_text = (out / QUICKSTART.notebook_file).read_text(encoding="utf-8")
    assert KEY not in "\n".join([*lines, *result.notes, notebook_text])


def test_the_demo_names_a_module_its_kernel_left_moved_aside(tmp_path: Path, monkeypatch) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("open('yaml.py', 'w').write('import os\\n')")]
    with FakeLLMServer({}, models=(DEMO_MODEL,)) as server:
        for name in ("TWNB_REPLAY", "TWNB_RECORD", "LLM_API_KEY", "AZURE_OPENAI_API_KEY"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("TWNB_MODEL", DEMO_MODEL)
        lines: list[str] = []
        result = run_demo(
            tmp_path / "out",
            live=True,
            kernel_choice=KernelChoice(confine=True),
            notebook=nb,
            progress=lines.append,
        )
    out = (tmp_path / "out").resolve()
    said = (
        "Confined kernel's end: yaml.py (a module that would shadow the installed yaml) was moved aside "
        f"to yaml.py.twnb-quarantined; `twnb trust --folder {out} accept yaml.py` puts it back."
    )
    assert not (out / "yaml.py").exists()
    assert (said in result.notes, said in lines) == (True, True)
