"""Conversation -> notebook: the cells a reader sees, the data import reads, validated by nbformat."""

from __future__ import annotations

import base64
import json

import nbformat
import nbformat.sign
import pytest
from replay_data import DATA, TASKWEAVER_FILES
from support.nb_rounds import HOSTILE, analysis_round

from twnb.memory import Attachment, AttachmentType, Conversation, Post, Round, conversation_dict
from twnb.render import MIME_TYPE
from twnb.replay import export_notebook, read_notebook
from twnb.session.conversation_store import load_conversation_file


def _written(result):
    nb = nbformat.read(result.path, as_version=4)
    nbformat.validate(nb)
    return nb


def _cells(nb, kind):
    return [c for c in nb.cells if (c.metadata.get("twnb") or {}).get("cell") == kind]


def _conversation(*rounds):
    conversation = Conversation.init()
    for round in rounds:
        conversation.add_round(round)
    return conversation


@pytest.mark.parametrize("path", TASKWEAVER_FILES, ids=[p.stem for p in TASKWEAVER_FILES])
def test_a_taskweaver_file_comes_back_from_its_notebook_identical_ids_included(tmp_path, path):
    conversation = load_conversation_file(path)
    result = export_notebook(conversation, tmp_path / "out.ipynb", source_dir=DATA)
    _written(result)
    back = read_notebook(result.path).conversation
    assert conversation_dict(back, relative_to=tmp_path) == conversation_dict(conversation, relative_to=DATA)


def test_each_round_starts_with_a_show_cell_whose_output_is_the_rounds_static_bundle(tmp_path):
    round = analysis_round()
    nb = _written(export_notebook(_conversation(round), tmp_path / "a.ipynb", source_dir=tmp_path))
    show = nb.cells[2]
    assert show.cell_type == "code" and show.source == f"%taskweaver show {round.id}"
    (output,) = show.outputs
    assert set(output.data) == {MIME_TYPE, "text/html", "text/markdown", "text/plain"}  # no widget view
    assert output.data[MIME_TYPE]["id"] == round.id and output.data[MIME_TYPE]["twnb"]["schema_version"] == 1


def test_the_round_markdown_holds_the_request_and_the_plan_as_a_checklist(tmp_path):
    nb = _written(export_notebook(_conversation(analysis_round()), tmp_path / "a.ipynb", source_dir=tmp_path))
    text = nb.cells[3].source
    assert text.startswith("## Round 1: What is the mean of &#91;1, 2, 3&#93;?")
    assert "- [x] compute the mean" in text and "- [" in text.split("compute the mean")[1]


def test_a_taskweaver_file_without_captured_outputs_shows_the_recorded_result_text(tmp_path):
    nb = _written(export_notebook(_conversation(analysis_round()), tmp_path / "a.ipynb", source_dir=tmp_path))
    (code,) = _cells(nb, "code")
    assert code.source == "import statistics\nm = statistics.mean([1, 2, 3])\nm"
    assert [(o.output_type, o.name, o.text) for o in code.outputs] == [("stream", "stdout", "2")]
    assert code.execution_count is None


def test_captured_outputs_become_the_code_cells_outputs(tmp_path):
    round = analysis_round()
    result = next(a for a in round.post_list[2].attachment_list if a.type.value == "execution_result")
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()
    result.extra = {
        "outputs": [
            {"output_type": "stream", "name": "stdout", "text": "hello\n"},
            {
                "output_type": "display_data",
                "data": {"image/png": png, "text/plain": "<Figure>"},
                "metadata": {},
            },
            {
                "output_type": "execute_result",
                "data": {"text/plain": "2"},
                "metadata": {},
                "execution_count": 4,
            },
        ]
    }
    nb = _written(export_notebook(_conversation(round), tmp_path / "a.ipynb", source_dir=tmp_path))
    (code,) = _cells(nb, "code")
    assert [o.output_type for o in code.outputs] == ["stream", "display_data", "execute_result"]
    assert code.outputs[1].data["image/png"] == png and code.outputs[2].execution_count is None


def test_a_malformed_recorded_output_is_left_out_and_the_notebook_stays_valid(tmp_path):
    round = analysis_round()
    result = next(a for a in round.post_list[2].attachment_list if a.type.value == "execution_result")
    result.extra = {
        "outputs": [
            {"output_type": "nonsense"},
            {"output_type": "display_data", "data": "x"},
            {"output_type": "stream", "name": "stdout", "text": ["a", "b"]},
        ]
    }
    nb = _written(export_notebook(_conversation(round), tmp_path / "a.ipynb", source_dir=tmp_path))
    assert [o.text for o in _cells(nb, "code")[0].outputs] == ["ab"]


def test_failed_attempts_are_shown_marked_and_left_out_with_no_failed(tmp_path):
    conversation = load_conversation_file(DATA / "codeinterpreter-revise.yaml")
    nb = _written(export_notebook(conversation, tmp_path / "a.ipynb", source_dir=DATA))
    failed, ok = _cells(nb, "code")
    assert failed.metadata["twnb"]["failed"] is True and "raises-exception" in failed.metadata["tags"]
    assert "failed" not in ok.metadata["twnb"]
    before = nb.cells[nb.cells.index(failed) - 1].source
    assert before.endswith("This attempt failed; it is kept for the record (the next attempt revised it).")
    lean = _written(
        export_notebook(conversation, tmp_path / "b.ipynb", source_dir=DATA, include_failed=False)
    )
    assert [c.source for c in _cells(lean, "code")] == [ok.source]
    back = read_notebook(tmp_path / "b.ipynb").conversation
    assert conversation_dict(back, relative_to=tmp_path) == conversation_dict(conversation, relative_to=DATA)


def test_text_replies_are_markdown_not_code(tmp_path):
    conversation = load_conversation_file(DATA / "codeinterpreter-revise.yaml")
    nb = _written(export_notebook(conversation, tmp_path / "a.ipynb", source_dir=DATA))
    last = nb.cells[-1]
    assert last.cell_type == "markdown" and last.source.count("The largest square is 25 (5 squared).") == 1


def test_llm_text_is_escaped_so_no_html_or_image_reaches_the_markdown(tmp_path):
    round = analysis_round(message=f"Done {HOSTILE} ![x](https://evil.example/leak.png)")
    nb = _written(export_notebook(_conversation(round), tmp_path / "a.ipynb", source_dir=tmp_path))
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "<img" not in markdown and "![x](" not in markdown
    assert "&lt;img src=x onerror=alert(1)&gt;" in markdown


def test_an_exported_notebook_is_not_marked_trusted(tmp_path):
    result = export_notebook(_conversation(analysis_round()), tmp_path / "a.ipynb", source_dir=tmp_path)
    nb = nbformat.read(result.path, as_version=4)
    assert "signature" not in nb.metadata
    assert not nbformat.sign.NotebookNotary(db_file=":memory:", secret=b"test").check_signature(nb)


def test_artifacts_are_copied_into_a_visible_folder_and_linked_relative_to_the_notebook(tmp_path):
    source = tmp_path / "src"
    (source / ".twnb" / "artifacts").mkdir(parents=True)
    (source / ".twnb" / "artifacts" / "plot.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 16)
    round = analysis_round()
    round.post_list[2].add_attachment(
        Attachment.create(AttachmentType.artifact_paths, [str(source / ".twnb" / "artifacts" / "plot.png")])
    )
    result = export_notebook(_conversation(round), tmp_path / "out" / "a.ipynb", source_dir=source)
    nb = _written(result)
    assert (tmp_path / "out" / "twnb-artifacts" / "plot.png").read_bytes().startswith(b"\x89PNG")
    saved = nb.metadata["twnb"]["conversation"]["rounds"][0]["post_list"][2]["attachment_list"][-1]
    assert saved["content"] == ["twnb-artifacts/plot.png"]
    assert "twnb-artifacts/plot.png" in nb.cells[2].outputs[0].data["text/markdown"]
    assert ".twnb/" not in json.dumps(nb.cells[2].outputs[0].data)


def test_a_missing_artifact_is_named_and_the_export_goes_on(tmp_path):
    round = analysis_round()
    round.post_list[2].add_attachment(Attachment.create(AttachmentType.artifact_paths, ["gone.csv"]))
    result = export_notebook(_conversation(round), tmp_path / "a.ipynb", source_dir=tmp_path)
    assert result.missing_artifacts == ["gone.csv"] and result.path.is_file()


def test_a_large_output_is_cut_in_the_notebook_and_kept_whole_beside_it(tmp_path):
    round = analysis_round()
    result = next(a for a in round.post_list[2].attachment_list if a.type.value == "execution_result")
    big = "".join(f"row {i}\n" for i in range(20_000))
    result.extra = {"outputs": [{"output_type": "stream", "name": "stdout", "text": big}]}
    exported = export_notebook(_conversation(round), tmp_path / "a.ipynb", source_dir=tmp_path)
    (code,) = _cells(_written(exported), "code")
    (kept,) = exported.cut_outputs
    assert len(code.outputs[0].text) < 60_000 and f"the full output is in {kept}" in code.outputs[0].text
    assert (tmp_path / kept).read_text() == big


def test_the_metadata_holds_the_whole_conversation_even_where_an_output_was_cut(tmp_path):
    round = analysis_round()
    result = next(a for a in round.post_list[2].attachment_list if a.type.value == "execution_result")
    big = "x" * 80_000
    result.extra = {"outputs": [{"output_type": "stream", "name": "stdout", "text": big}]}
    conversation = _conversation(round)
    exported = export_notebook(conversation, tmp_path / "a.ipynb", source_dir=tmp_path)
    back = read_notebook(exported.path).conversation
    assert back.rounds[0].post_list[2].attachment_list[-1].extra["outputs"][0]["text"] == big


def test_secrets_never_reach_the_notebook(tmp_path, monkeypatch):
    secret = "s3cr3t-" + "a1b2c3d4" * 3
    monkeypatch.setenv("WAREHOUSE_PASSWORD", secret)
    from twnb.session.factory import redactor_for

    round = analysis_round(message=f"The password is {secret}")
    result = export_notebook(
        _conversation(round), tmp_path / "a.ipynb", source_dir=tmp_path, redact=redactor_for(None).redact_data
    )
    text = result.path.read_text()
    assert secret not in text and "[redacted]" in text


def test_a_refused_piece_of_code_is_shown_as_text_not_as_a_cell_to_run(tmp_path):
    round = Round.create("Delete everything")
    round.add_post(Post.create("Delete everything", "User", "Planner"))
    coder = Post.create("Refused.", "CodeInterpreter", "Planner")
    for kind, content in [
        ("reply_type", "python"),
        ("reply_content", "import os\nos.system('rm -rf /')"),
        ("verification", "INCORRECT"),
        ("code_error", "os.system is blocked"),
        ("execution_status", "NONE"),
        ("execution_result", "No code is executed."),
    ]:
        coder.add_attachment(Attachment.create(AttachmentType(kind), content))
    round.add_post(coder)
    round.change_round_state("failed")
    nb = _written(export_notebook(_conversation(round), tmp_path / "a.ipynb", source_dir=tmp_path))
    assert not _cells(nb, "code")
    assert "os.system is blocked" in nb.cells[-1].source and "```python" in nb.cells[-1].source
