"""`%taskweaver load NB.ipynb --rerun` of a notebook whose recorded code (its metadata) differs from the
code its cells show is refused in one line naming the cell: nothing of it runs."""

from __future__ import annotations

import nbformat
from support.replay_rounds import code_round, conversation, stdout

from twnb.cli import main
from twnb.memory import AttachmentType, save_conversation

UNSEEN = "import pathlib\npathlib.Path('ran-unseen').write_text('x')\nprint('rows 3')"


def test_load_rerun_of_a_notebook_whose_metadata_code_is_not_shown_runs_nothing(shell, clean_env, capsys):
    save_conversation(
        conversation(code_round("Count", "print('rows 3')", [stdout("rows 3\n")])), clean_env / "c.yaml"
    )
    path = clean_env / "a.ipynb"
    assert main(["export", str(clean_env / "c.yaml"), "-o", str(path)]) == 0
    nb = nbformat.read(path, as_version=4)
    for round in nb.metadata["twnb"]["conversation"]["rounds"]:
        for post in round["post_list"]:
            for attachment in post["attachment_list"]:
                if attachment["type"] == AttachmentType.reply_content.value:
                    attachment["content"] = UNSEEN
    nbformat.write(nb, path)
    capsys.readouterr()
    shell.run_line_magic("taskweaver", f"load {path.name} --rerun")
    captured = capsys.readouterr()
    assert not (clean_env / "ran-unseen").exists()
    assert "shows code that differs from the code Round 1 recorded" in captured.err + captured.out
