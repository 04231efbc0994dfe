"""`%taskweaver load` of an autosave whose session id is a path (`../../x`, an absolute path) is refused
in one line, the kernel's conversation is kept, and no later autosave goes outside the notebook's
folder: the attack as a received file would make it, in a real InteractiveShell."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from support.replay_rounds import code_round, conversation, stdout

from twnb.session import save_round


@pytest.mark.parametrize("where", ["relative", "absolute"])
def test_load_of_an_autosave_whose_session_id_is_a_path_is_refused_and_writes_nothing(
    shell, clean_env, capsys, tmp_path_factory, where
):
    outside = tmp_path_factory.mktemp("outside")
    session_id = str(outside / "escaped") if where == "absolute" else "../../../escaped"
    made = conversation(code_round("Count", "print(3)", [stdout("3\n")]))
    path = save_round(clean_env / "received", made.rounds[0], conversation=made, session_id="s", index=0)
    data = yaml.safe_load(path.read_text())
    data["twnb_autosave"]["session_id"] = session_id
    path.write_text(yaml.safe_dump(data))
    before = {p for p in clean_env.parent.rglob("*")} | {p for p in outside.rglob("*")}
    capsys.readouterr()
    shell.run_line_magic("taskweaver", f"load {path}")
    captured = capsys.readouterr()
    said = captured.err + captured.out
    assert "is not a plain id" in said and said.strip().count("\n") == 0
    after = {p for p in clean_env.parent.rglob("*")} | {p for p in outside.rglob("*")}
    assert after == before  # no autosave anywhere, least of all outside
    assert not Path(clean_env.parent.parent / "escaped").exists()
