"""Conversations recorded by real Rounds (code run on a real InteractiveShell, the LLM answering over
HTTP from the loopback server) exported and read back."""

from __future__ import annotations

import re

import nbformat

from twnb.replay import export_notebook, read_notebook
from twnb.session.conversation_store import load_conversation_file


def _code_cells(nb):
    return [c for c in nb.cells if (c.metadata.get("twnb") or {}).get("cell") == "code"]


def test_a_recorded_conversation_comes_back_from_its_notebook_identical_but_for_artifact_folders(
    recorded, workdir
):
    result = export_notebook(recorded.memory.conversation, workdir / "out" / "a.ipynb", source_dir=workdir)
    nbformat.validate(nbformat.read(result.path, as_version=4))
    back = read_notebook(result.path).conversation
    saved = load_conversation_file(recorded.save(workdir / "conv.yaml"))
    assert _same_but_paths(back, saved)


def _same_but_paths(a, b):
    """Artifacts were copied beside the notebook: equal once artifact paths, and the messages' links to
    them (which point at the copies), are compared by file name."""

    def names(conversation):
        data = conversation.to_dict()
        for round in data["rounds"]:
            for post in round["post_list"]:
                post["message"] = re.sub(r"\]\((?:[^)]*/)?([^)/]+)\)", r"](\1)", post["message"])
                for attachment in post["attachment_list"]:
                    if attachment["type"] == "artifact_paths":
                        attachment["content"] = [p.rsplit("/", 1)[-1] for p in attachment["content"]]
        return data["rounds"]

    return names(a) == names(b)


def test_the_code_cells_hold_what_the_code_printed_displayed_and_returned(recorded, workdir):
    result = export_notebook(recorded.memory.conversation, workdir / "a.ipynb", source_dir=workdir)
    plot, total, failed, saved = _code_cells(nbformat.read(result.path, as_version=4))
    assert [o.output_type for o in plot.outputs] == ["stream", "display_data"]
    assert plot.outputs[0].text == "rows: 3\n" and "image/png" in plot.outputs[1].data
    assert total.outputs[0].output_type == "execute_result" and total.outputs[0].data["text/plain"] == "42"
    assert failed.metadata["twnb"]["failed"] and failed.outputs[-1].output_type == "error"
    assert failed.outputs[-1].ename == "NameError"
    assert saved.outputs[0].text == "saved\n"


def test_a_file_the_code_wrote_is_copied_beside_the_notebook(recorded, workdir):
    result = export_notebook(recorded.memory.conversation, workdir / "out" / "a.ipynb", source_dir=workdir)
    assert (workdir / "out" / "twnb-artifacts" / "total.txt").read_text() == "42"
    assert not result.missing_artifacts


def test_the_metadata_keeps_the_session_id_and_the_rounds_ids(recorded, workdir):
    result = export_notebook(
        recorded.memory.conversation, workdir / "a.ipynb", source_dir=workdir, session_id=recorded.session_id
    )
    imported = read_notebook(result.path)
    assert imported.session_id == recorded.session_id and imported.source == "metadata"
    assert [r.id for r in imported.conversation.rounds] == [r.id for r in recorded.memory.conversation.rounds]
