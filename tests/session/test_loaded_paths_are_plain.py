"""Records cannot choose paths: a session id, Round id or post id read from a loaded file names a folder
or file twnb writes later (`<session_dir>/<session_id>/rounds/<round_id>.yaml`, `twnb-undone/<round_id>`),
so it must be a plain id, or the load is refused in one line and nothing is written. Each attack is a
real autosave, conversation or notebook file edited as a hostile sender would."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
import yaml
from support.replay_rounds import code_round, conversation, stdout

from twnb.cli import main
from twnb.memory import save_conversation
from twnb.replay import read_notebook
from twnb.session import load_conversation_and_session, save_round

HOSTILE_IDS = ["../../escaped", "/tmp/twnb-escaped-absolute", "..", ".hidden", "a/b", "a\\b", ""]


def _autosaved(folder: Path, session_id: str) -> Path:
    made = conversation(code_round("Count", "print(3)", [stdout("3\n")]))
    path = save_round(folder, made.rounds[0], conversation=made, session_id="s1", index=0)
    data = yaml.safe_load(path.read_text())
    data["twnb_autosave"]["session_id"] = session_id
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("session_id", HOSTILE_IDS[:5])
def test_an_autosave_naming_a_session_id_that_is_a_path_is_refused(tmp_path, session_id):
    path = _autosaved(tmp_path / "rounds", session_id)
    with pytest.raises(ValueError, match="is not a plain id") as refused:
        load_conversation_and_session(path)
    assert "\n" not in str(refused.value) and str(path) in str(refused.value)
    with pytest.raises(ValueError, match="is not a plain id"):
        load_conversation_and_session(path.parent)  # the autosave folder: the same file decides


def test_a_plain_session_id_loads(tmp_path):
    path = _autosaved(tmp_path / "rounds", "20261207-034014-3d48e31c")
    assert load_conversation_and_session(path)[1] == "20261207-034014-3d48e31c"


@pytest.mark.parametrize("round_id", ["../../escaped", "/tmp/twnb-escaped", "round/../../x"])
def test_a_conversation_whose_round_id_is_a_path_is_refused(tmp_path, round_id):
    save_conversation(conversation(code_round("Count", "print(3)", [stdout("3\n")])), tmp_path / "c.yaml")
    data = yaml.safe_load((tmp_path / "c.yaml").read_text())
    data["rounds"][0]["id"] = round_id
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match=r"Round id .* is not a plain id"):
        load_conversation_and_session(tmp_path / "c.yaml")


def test_a_notebook_whose_session_id_is_a_path_is_refused(tmp_path):
    save_conversation(conversation(code_round("Count", "print(3)", [stdout("3\n")])), tmp_path / "c.yaml")
    assert main(["export", str(tmp_path / "c.yaml"), "-o", str(tmp_path / "a.ipynb")]) == 0
    nb = nbformat.read(tmp_path / "a.ipynb", as_version=4)
    nb.metadata["twnb"]["session_id"] = "../../escaped"
    nbformat.write(nb, tmp_path / "a.ipynb")
    with pytest.raises(ValueError, match=re.escape("session id '../../escaped' is not a plain id")):
        read_notebook(tmp_path / "a.ipynb")
