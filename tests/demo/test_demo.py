"""`twnb demo`: the quickstart analysis, run headless in a real kernel from the installed command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

from twnb.cli import main
from twnb.demo.quickstart import DEMO_MODEL, REQUESTS
from twnb.demo.runner import DemoError, run_demo
from twnb.memory import AttachmentType, load_conversation
from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
CANARY_KEY = "sk-demo-canary-0123456789abcdefABCDEF"


def _clean_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AZURE_", "TWNB_", "LLM_"))}
    env["HOME"] = str(home)
    env.update(extra)
    return env


def _twnb() -> str:
    """The installed console script: beside this Python first (an unactivated venv), else on PATH."""
    beside = Path(sys.executable).parent / "twnb"
    found = str(beside) if beside.is_file() else shutil.which("twnb")
    assert found, "the twnb console script is not installed (pip install -e .)"
    return found


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    # A key in the environment and an unreachable base URL: the demo must stay offline anyway.
    work = tmp_path_factory.mktemp("demo-run")
    env = _clean_env(work, OPENAI_API_KEY=CANARY_KEY, OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    proc = subprocess.run(
        [_twnb(), "demo", "-o", "out"], cwd=work, env=env, capture_output=True, text=True, timeout=600
    )
    return proc, work / "out"


def _bundles(nb: Any) -> list[dict[str, Any]]:
    return [
        out["data"][MIME_TYPE]
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if MIME_TYPE in out.get("data", {})
    ]


def test_demo_succeeds_offline_even_with_a_key_exported(demo):
    proc, _ = demo
    assert proc.returncode == 0, proc.stderr
    assert "offline, replaying scripted replies" in proc.stdout


def test_demo_prints_progress_and_where_it_wrote(demo):
    proc, out = demo
    assert "Rounds finished: 3 of 3" in proc.stdout
    assert str(out / "quickstart.ipynb") in proc.stdout
    assert str(out / "quickstart-conversation.yaml") in proc.stdout


def test_demo_sends_the_kernels_own_messages_to_a_log_not_the_terminal(demo):
    proc, out = demo
    assert (out / "kernel.log").is_file()
    assert "IPKernelApp" not in proc.stderr + proc.stdout


def test_demo_notebook_is_valid_and_every_round_finished(demo):
    _, out = demo
    nb = nbformat.read(out / "quickstart.ipynb", as_version=4)
    nbformat.validate(nb)
    bundles = _bundles(nb)
    assert [b["user_query"] for b in bundles] == list(REQUESTS)
    assert [b["state"] for b in bundles] == ["finished"] * 3


def test_demo_rounds_are_labelled_with_the_scripted_model(demo):
    _, out = demo
    nb = nbformat.read(out / "quickstart.ipynb", as_version=4)
    assert {b["twnb"]["usage"]["model"] for b in _bundles(nb)} == {DEMO_MODEL}
    assert "Scripted replies" in nb.cells[0].source


def test_demo_replay_matches_the_recorded_prompts(demo):
    _, out = demo
    text = (out / "quickstart.ipynb").read_text(encoding="utf-8")
    assert "CassetteDriftWarning" not in text
    assert "CassetteExhausted" not in text


def test_demo_builds_on_the_users_own_dataframe(demo):
    _, out = demo
    nb = nbformat.read(out / "quickstart.ipynb", as_version=4)
    first_round = _bundles(nb)[0]
    code = [
        a["content"]
        for post in first_round["post_list"]
        for a in post["attachment_list"]
        if a["type"] == "reply_content"
    ]
    assert code and "sales" in code[0] and "read_csv" not in code[0]


def test_demo_conversation_yaml_loads_with_the_revised_step(demo):
    _, out = demo
    conversation = load_conversation(out / "quickstart-conversation.yaml")
    assert [r.state for r in conversation.rounds] == ["finished"] * 3
    statuses = [
        a.content
        for post in conversation.rounds[2].post_list
        for a in post.get_attachment(AttachmentType.execution_status)
    ]
    assert statuses == ["FAILURE", "SUCCESS"]  # the scripted first attempt fails, the revision works


def test_demo_writes_the_figure_and_the_csv_as_artifacts(demo):
    _, out = demo
    conversation = load_conversation(out / "quickstart-conversation.yaml")
    paths = [
        out / p
        for r in conversation.rounds
        for post in r.post_list
        for a in post.get_attachment(AttachmentType.artifact_paths)
        for p in a.content
    ]
    assert any(p.suffix == ".png" and p.is_file() and p.stat().st_size > 1000 for p in paths)
    assert (out / "unusual_weeks.csv") in paths
    assert "Midtown" in (out / "unusual_weeks.csv").read_text()


def test_demo_never_writes_the_exported_key(demo):
    _, out = demo
    for path in out.rglob("*"):
        if path.is_file():
            assert CANARY_KEY not in path.read_text(encoding="utf-8", errors="replace"), path


def test_demo_runs_on_this_python_even_when_another_python3_kernel_is_registered(tmp_path):
    # A user's own `python3` kernel (here: one that cannot start) must not be the one the demo uses.
    spec = tmp_path / "jupyter" / "kernels" / "python3" / "kernel.json"
    spec.parent.mkdir(parents=True)
    broken = {"argv": ["/bin/false", "{connection_file}"], "display_name": "x", "language": "python"}
    spec.write_text(json.dumps(broken))
    env = _clean_env(tmp_path, JUPYTER_PATH=str(tmp_path / "jupyter"))
    proc = subprocess.run(
        [_twnb(), "demo", "-o", "out"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    assert "Rounds finished: 3 of 3" in proc.stdout


def test_live_without_a_model_fails_before_starting_a_kernel(tmp_path):
    proc = subprocess.run(
        [_twnb(), "demo", "--live", "-o", "out"],
        cwd=tmp_path,
        env=_clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert "--live needs a configured model" in proc.stderr and "TWNB_MODEL" in proc.stderr
    assert not (tmp_path / "out" / "quickstart.ipynb").exists()


def test_live_names_each_failed_rounds_reason_on_the_terminal(tmp_path, refused_port):
    base_url = f"http://127.0.0.1:{refused_port}/v1"
    env = _clean_env(tmp_path, TWNB_MODEL="some-model", OPENAI_API_KEY=CANARY_KEY, OPENAI_BASE_URL=base_url)
    proc = subprocess.run(
        [_twnb(), "demo", "--live", "-o", "out"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert (
        lines[0]
        == f"twnb demo: not every Round finished (the Rounds are in {tmp_path / 'out' / 'quickstart.ipynb'}):"
    )
    assert len(lines) == 1 + len(REQUESTS)
    for number, line in enumerate(lines[1:], start=1):
        assert line.startswith(f"  Round {number} failed: The LLM call failed")
        assert "connect" in line.lower()
    assert CANARY_KEY not in proc.stdout + proc.stderr


def test_a_cell_over_the_time_limit_says_how_to_give_it_more(tmp_path):
    slow = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import time\ntime.sleep(30)")])
    with pytest.raises(DemoError, match=r"took longer than 1 s; see .*Give it more time with --timeout S"):
        run_demo(tmp_path / "out", timeout=1, notebook=slow, progress=lambda line: None)
    assert (tmp_path / "out" / "quickstart.ipynb").is_file()  # what ran so far is kept


@pytest.mark.parametrize("given", ["0", "2.5", "soon"])
def test_timeout_must_be_whole_seconds(given, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["demo", "--timeout", given])
    assert stopped.value.code == 2
    assert f"expected a whole number of seconds, 1 or more; got {given!r}" in capsys.readouterr().err


def test_repository_quickstart_notebook_is_valid_with_finished_rounds():
    nb = nbformat.read(REPO / "notebooks" / "quickstart.ipynb", as_version=4)
    nbformat.validate(nb)
    bundles = _bundles(nb)
    assert len(bundles) >= 3
    assert all(b["state"] == "finished" for b in bundles)
    assert any(
        c.cell_type == "code" and "%%taskweaver" not in c.source and "sales =" in c.source for c in nb.cells
    )


def _export(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = _clean_env(work)
    return subprocess.run(
        [_twnb(), "export", *args], cwd=work, env=env, capture_output=True, text=True, timeout=600
    )


def test_the_demos_conversation_replays_with_every_cell_reproduced(demo):
    _, out = demo
    done = _export(out.parent, "out/quickstart-conversation.yaml", "-o", "q.ipynb", "--execute", "--check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 of 5 cells reproduced." in done.stdout  # the user's own cell, then the Rounds' code
    assert "[1/5] your cell before Round 1" in done.stderr


def test_the_demos_notebook_reruns_as_it_is_with_every_cell_reproduced(demo):
    _, out = demo
    done = _export(out.parent, "out/quickstart.ipynb", "--execute", "--check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 of 5 cells reproduced." in done.stdout
    assert (out / "quickstart.rerun.ipynb").is_file()
