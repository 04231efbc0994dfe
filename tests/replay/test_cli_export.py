"""`twnb export`: both directions, `--execute --check` in a real kernel, exit statuses, one-line errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import nbformat
import pytest
from replay_data import DATA

from twnb.cli import main
from twnb.memory import Conversation

REVISE = DATA / "codeinterpreter-revise.yaml"


def _one_line_error(capsys) -> str:
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    return captured.err


def test_a_conversation_becomes_a_valid_notebook_and_nothing_runs(tmp_path, capsys):
    assert main(["export", str(REVISE), "-o", str(tmp_path / "out.ipynb")]) == 0
    nbformat.validate(nbformat.read(tmp_path / "out.ipynb", as_version=4))
    out = capsys.readouterr().out
    assert f"Wrote {tmp_path / 'out.ipynb'}: 2 Rounds, 2 code cells." in out
    assert "Artifact not found (its link is left as it was):" in out and "squares.png" in out
    assert "Re-running" not in out


def test_a_notebook_becomes_the_same_conversation_again_ids_included(tmp_path, capsys):
    saved_with_ids = DATA / "twnb-saved-with-ids.yaml"
    main(["export", str(saved_with_ids), "-o", str(tmp_path / "out.ipynb")])
    assert main(["export", str(tmp_path / "out.ipynb"), "-o", str(tmp_path / "back.yaml")]) == 0
    original = Conversation.from_yaml(saved_with_ids).to_dict()
    assert Conversation.from_yaml(tmp_path / "back.yaml").to_dict() == original
    assert "Wrote 1 Round to" in capsys.readouterr().out


def test_no_failed_leaves_the_failed_attempt_out(tmp_path):
    main(["export", str(REVISE), "-o", str(tmp_path / "out.ipynb"), "--no-failed"])
    nb = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    assert [c.metadata["twnb"].get("failed") for c in nb.cells if c.metadata["twnb"]["cell"] == "code"] == [
        None
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.yaml", "-o", "out.ipynb"], "twnb export: no such file: missing.yaml"),
        (["bad.yaml", "-o", "out.ipynb"], "bad.yaml: "),
        (["plain.ipynb", "-o", "conv.yaml"], "holds no twnb conversation"),
        (["cut.ipynb", "-o", "conv.yaml"], "cut.ipynb: not a notebook: invalid JSON at line 1"),
        (["good.yaml", "-o", "out.txt"], "-o must name a .ipynb file"),
        (["plain.ipynb", "-o", "out.ipynb"], "-o must name a .yaml file"),
    ],
    ids=["missing", "corrupt-yaml", "no-twnb-data", "corrupt-notebook", "wrong-out", "notebook-to-notebook"],
)
def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.yaml").write_text("rounds: [\n")
    shutil.copy(REVISE, tmp_path / "good.yaml")
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]), tmp_path / "plain.ipynb")
    (tmp_path / "cut.ipynb").write_text('{"cells": [')
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["export", *args]) == 2
    assert message in _one_line_error(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_notebook_checked_is_rerun_into_a_notebook_not_read_back(tmp_path, capsys):
    main(["export", str(REVISE), "-o", str(tmp_path / "out.ipynb")])
    capsys.readouterr()
    assert main(["export", str(tmp_path / "out.ipynb"), "-o", str(tmp_path / "c.yaml"), "--check"]) == 2
    error = _one_line_error(capsys)
    assert "a notebook is re-run into a notebook: -o must name a .ipynb file" in error
    assert "leave out --execute and --check" in error


@pytest.mark.slow
def test_check_exits_1_when_a_cell_diverges_and_lists_it(tmp_path):
    data = Conversation.from_yaml(REVISE).to_dict()
    ok = data["rounds"][0]["post_list"][2]["attachment_list"]
    code = next(a for a in ok if a["type"] == "reply_content")
    code["content"] = "print(sum(x * x for x in range(1, 6)))"
    result = next(a for a in ok if a["type"] == "execution_result")
    result["content"] = "The execution of the generated python code above has succeeded\n\n54"  # it prints 55
    import yaml

    (tmp_path / "conv.yaml").write_text(yaml.safe_dump(data))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "twnb.cli",
            "export",
            "conv.yaml",
            "-o",
            "out.ipynb",
            "--check",
            "--timeout",
            "60",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 1, done.stderr
    assert "1 of 2 cells reproduced." in done.stdout
    assert "differs: cell 7 (Round 1): new output '55' is not in the recorded result" in done.stdout
    assert "[2/2] Round 1, cell 7: differs" in done.stderr
    saved = json.loads((tmp_path / "out.ipynb").read_text())
    assert saved["metadata"]["twnb"]["rerun"]["reproduced"] == 1
    nbformat.validate(nbformat.reads(json.dumps(saved), as_version=4))


@pytest.mark.slow
def test_check_exits_0_when_every_cell_reproduces(tmp_path, capsys):
    assert (
        main(["export", str(REVISE), "-o", str(tmp_path / "out.ipynb"), "--check", "--cwd", str(tmp_path)])
        == 0
    )
    assert "2 of 2 cells reproduced." in capsys.readouterr().out


@pytest.mark.slow
def test_a_kernel_that_dies_exits_1_and_the_notebook_so_far_is_saved(tmp_path, capsys):
    data = Conversation.from_yaml(REVISE).to_dict()
    failed = data["rounds"][0]["post_list"][1]["attachment_list"]
    next(a for a in failed if a["type"] == "reply_content")["content"] = "import os\nos._exit(1)"
    import yaml

    (tmp_path / "conv.yaml").write_text(yaml.safe_dump(data))
    # Verification refuses os._exit before it runs (tests/replay/test_rerun_verified.py): unchecked, it runs.
    command = [
        "export",
        str(tmp_path / "conv.yaml"),
        "-o",
        str(tmp_path / "out.ipynb"),
        "--execute",
        "--no-verify",
    ]
    assert main(command) == 1
    out = capsys.readouterr().out
    assert "The re-run stopped: the kernel died while running cell 5 (Round 1)" in out
    nb = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    assert nb.metadata["twnb"]["rerun"]["stopped"].startswith("the kernel died")


def test_a_secret_in_the_conversation_never_reaches_the_notebook(tmp_path, monkeypatch, capsys):
    secret = "pw-" + "9f8e7d6c" * 3
    monkeypatch.setenv("SHOP_DB_PASSWORD", secret)
    monkeypatch.chdir(tmp_path)
    data = Conversation.from_yaml(REVISE).to_dict()
    data["rounds"][1]["post_list"][-1]["message"] = f"The database password is {secret}"
    import yaml

    (tmp_path / "conv.yaml").write_text(yaml.safe_dump(data))
    assert main(["export", "conv.yaml", "-o", "out.ipynb"]) == 0
    text = (tmp_path / "out.ipynb").read_text()
    assert secret not in text and "The database password is [redacted]" in text


@pytest.mark.slow
def test_kernel_runs_the_rerun_in_a_named_kernelspec(tmp_path, capsys):
    assert (
        main(
            [
                "export",
                str(REVISE),
                "-o",
                str(tmp_path / "out.ipynb"),
                "--check",
                "--kernel",
                "python3",
                "--cwd",
                str(tmp_path),
            ]
        )
        == 0
    )
    assert "2 of 2 cells reproduced." in capsys.readouterr().out
