"""`twnb export` trusts no path in the file it reads, and never replaces a file it was not told to.

A hostile conversation YAML names files outside its folder (`/etc/passwd`, `/proc/self/environ`,
`../../elsewhere/secret.txt`, a symlink out of the folder, the `.env` beside it) beside one real
artifact; each outside path is named in one line and never copied or linked, the real one is copied
and the answer's link to it points at the copy. Each test runs the real command line.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
import yaml
from support.nb_rounds import analysis_round

from twnb.cli import main
from twnb.memory import Attachment, AttachmentType, Conversation, conversation_dict

OUTSIDE_TEXT = "outside-secret-canary-31415"
HOSTILE = {
    "/etc/passwd": "root:",
    "/proc/self/environ": None,  # the export's own environment
    "../../elsewhere/secret.txt": OUTSIDE_TEXT,
    "linked-out.txt": OUTSIDE_TEXT,  # a symlink in the folder, to a file outside it
    ".env": "DOTENV_CANARY",
}


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A conversation file in tmp_path/project/conversations/ naming the hostile paths and plot.png."""
    project = tmp_path / "project" / "conversations"
    project.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.txt").write_text(OUTSIDE_TEXT)
    (project / "linked-out.txt").symlink_to(elsewhere / "secret.txt")
    (project / ".env").write_text("DB_PASSWORD=DOTENV_CANARY\n")
    (project / "plot.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 16)
    round = analysis_round("The chart is [here](plot.png).")
    paths = [*HOSTILE, "plot.png"]
    round.post_list[2].add_attachment(Attachment.create(AttachmentType.artifact_paths, paths))
    conversation = Conversation.init()
    conversation.add_round(round)
    data = conversation_dict(conversation)
    source = project / "analysis-conversation.yaml"
    source.write_text(yaml.safe_dump(data))
    monkeypatch.chdir(tmp_path)
    return source


def _export(source: Path, out: Path, *extra: str) -> int:
    return main(["export", str(source), "-o", str(out), *extra])


def test_each_path_outside_the_conversations_folders_is_named_in_one_line_and_not_copied(hostile, capsys):
    out = hostile.parent / "analysis.ipynb"
    assert _export(hostile, out) == 0
    refused = [
        line
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("Artifact outside the conversation's folders, not copied: ")
    ]
    assert len(refused) == len(HOSTILE)
    for line, path in zip(refused, HOSTILE, strict=True):
        assert line.endswith(path.removeprefix("../.."))  # relative ones as the folder makes them
    assert not (hostile.parent / "twnb-artifacts").exists()  # plot.png is beside the notebook already


def test_no_outside_file_reaches_the_exported_notebook_or_its_folder(hostile, tmp_path):
    out_dir = tmp_path / "shared"
    assert _export(hostile, out_dir / "analysis.ipynb") == 0
    files = [p for p in out_dir.rglob("*") if p.is_file()]
    assert sorted(p.name for p in files) == ["analysis.ipynb", "plot.png"]
    text = "\n".join(p.read_text(errors="replace") for p in files)
    for marker in ("root:", OUTSIDE_TEXT, "DOTENV_CANARY", "/etc/passwd", "elsewhere", "environ"):
        assert marker not in text


def test_the_answers_link_and_the_artifacts_point_at_the_copies(hostile, tmp_path):
    out_dir = tmp_path / "shared"
    assert _export(hostile, out_dir / "analysis.ipynb") == 0
    nb = nbformat.read(out_dir / "analysis.ipynb", as_version=4)
    conversation = nb.metadata["twnb"]["conversation"]
    posts = conversation["rounds"][0]["post_list"]
    assert posts[-1]["message"] == "The chart is [here](twnb-artifacts/plot.png)."
    assert posts[2]["attachment_list"][-1]["content"] == ["twnb-artifacts/plot.png"]
    bundle = json.dumps(nb.cells[2].outputs[0].data)
    assert "twnb-artifacts/plot.png" in bundle and "](plot.png)" not in bundle
    assert (out_dir / "twnb-artifacts" / "plot.png").read_bytes().startswith(b"\x89PNG")


def test_an_existing_output_is_not_replaced_without_force(hostile, capsys):
    out = hostile.parent / "analysis.ipynb"
    out.write_text("my notebook")
    assert _export(hostile, out) == 2
    assert "exists: add --force to replace it" in capsys.readouterr().err
    assert out.read_text() == "my notebook"


def test_force_replaces_an_existing_output(hostile):
    out = hostile.parent / "analysis.ipynb"
    out.write_text("my notebook")
    assert _export(hostile, out, "--force") == 0
    assert nbformat.read(out, as_version=4).metadata["twnb"]["conversation"]["rounds"]


def test_the_input_is_never_the_output_even_with_force(hostile, capsys):
    before = hostile.read_text()
    assert _export(hostile, hostile, "--force") == 2
    assert "is the input" in capsys.readouterr().err
    assert hostile.read_text() == before
