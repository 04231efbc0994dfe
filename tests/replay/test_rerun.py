"""`--execute`: the code cells re-run in a fresh kernel (this Python's ipykernel), compared with what
was recorded; one cell made to diverge; a kernel that dies; a cell that hangs."""

from __future__ import annotations

import nbformat
import pytest
from support.child_kernels import running_kernels
from support.nb_rounds import analysis_round
from support.nb_run import cell_text

from twnb.memory import Attachment, AttachmentType, Conversation, Post, Round
from twnb.replay.compare import compare_outputs
from twnb.replay.export import build_notebook, write_notebook
from twnb.replay.rerun import RerunOptions, rerun_notebook

pytestmark = pytest.mark.slow


def _round(query: str, code: str, outputs: list[dict]) -> Round:
    round = Round.create(query)
    round.add_post(Post.create(query, "User", "Planner"))
    coder = Post.create("Ran it.", "CodeInterpreter", "Planner")
    for kind, content in [("reply_type", "python"), ("reply_content", code), ("execution_status", "SUCCESS")]:
        coder.add_attachment(Attachment.create(AttachmentType(kind), content))
    coder.add_attachment(Attachment.create(AttachmentType.execution_result, "ok", extra={"outputs": outputs}))
    round.add_post(coder)
    round.change_round_state("finished")
    return round


def _stdout(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def _conversation(*rounds: Round) -> Conversation:
    conversation = Conversation.init()
    for round in rounds:
        conversation.add_round(round)
    return conversation


def test_a_rerun_reproduces_matching_cells_and_lists_the_one_that_diverged(tmp_path):
    conversation = _conversation(
        _round("print", "x = 6 * 7\nprint(x)", [_stdout("42\n")]),
        _round(
            "object",
            "class A: pass\nA()",
            [
                {
                    "output_type": "execute_result",
                    "metadata": {},
                    "data": {"text/plain": "<__main__.A at 0x7f00deadbeef>"},
                }
            ],
        ),
        _round("diverges", "print(x + 1)", [_stdout("42\n")]),  # recorded 42; it prints 43 now
    )
    built = build_notebook(conversation, tmp_path / "a.ipynb", source_dir=tmp_path)
    report = rerun_notebook(built.notebook, built.pieces, cwd=tmp_path, options=RerunOptions(timeout=60))
    write_notebook(built.notebook, built.path)
    assert report.summary() == "2 of 3 cells reproduced" and report.stopped is None
    (differing,) = report.differing
    assert (
        differing.round_number == 3
        and differing.comparison.reason == "stdout line 1 differs: recorded '42', now '43'"
    )
    saved = nbformat.read(built.path, as_version=4)
    assert saved.cells[differing.index].metadata["twnb"]["rerun"]["reproduced"] is False
    assert cell_text(saved.cells[differing.index]) == "43\n"


def test_a_rerun_keeps_the_show_cells_as_recorded(tmp_path):
    built = build_notebook(_conversation(analysis_round()), tmp_path / "a.ipynb", source_dir=tmp_path)
    show = dict(built.notebook.cells[2])
    rerun_notebook(built.notebook, built.pieces, cwd=tmp_path, options=RerunOptions(timeout=60))
    assert dict(built.notebook.cells[2]) == show and built.notebook.cells[2].execution_count is None


def test_the_kernel_runs_in_the_given_folder(tmp_path):
    (tmp_path / "data.txt").write_text("from the folder")
    conversation = _conversation(
        _round("read", "print(open('data.txt').read())", [_stdout("from the folder\n")])
    )
    built = build_notebook(conversation, tmp_path / "out" / "a.ipynb", source_dir=tmp_path)
    report = rerun_notebook(built.notebook, built.pieces, cwd=tmp_path, options=RerunOptions(timeout=60))
    assert report.ok


def test_a_kernel_that_dies_stops_the_rerun_and_says_where(tmp_path):
    conversation = _conversation(
        _round("die", "import os\nos._exit(3)", []),
        _round("after", "print('never')", [_stdout("never\n")]),
    )
    built = build_notebook(conversation, tmp_path / "a.ipynb", source_dir=tmp_path)
    report = rerun_notebook(built.notebook, built.pieces, cwd=tmp_path, options=RerunOptions(timeout=60))
    assert report.stopped.startswith("the kernel died while running cell 5 (Round 1)")
    assert [c.round_number for c in report.cells] == [1] and report.total == 2


def test_a_cell_that_hangs_is_stopped_after_its_timeout_and_the_next_one_runs(tmp_path):
    conversation = _conversation(
        _round("hang", "import time\ntime.sleep(120)", []),
        _round("after", "print('next')", [_stdout("next\n")]),
    )
    built = build_notebook(conversation, tmp_path / "a.ipynb", source_dir=tmp_path)
    report = rerun_notebook(built.notebook, built.pieces, cwd=tmp_path, options=RerunOptions(timeout=3))
    hung, after = report.cells
    assert hung.comparison.reason == "stopped after its time limit of 3 s"
    assert after.comparison.reproduced


def test_images_compare_by_dimensions_unless_strict():
    import base64
    import struct

    def png(width, height, filler):
        header = b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + struct.pack(">II", width, height)
        return {
            "output_type": "display_data",
            "metadata": {},
            "data": {"image/png": base64.b64encode(header + filler).decode()},
        }

    assert compare_outputs([png(640, 480, b"a")], [png(640, 480, b"b")]).reproduced
    assert not compare_outputs([png(640, 480, b"a")], [png(640, 480, b"b")], strict_images=True).reproduced
    assert not compare_outputs([png(640, 480, b"a")], [png(320, 480, b"a")]).reproduced


def test_ansi_codes_whitespace_and_addresses_do_not_count_as_differences():
    recorded = [_stdout("\x1b[31mobj at 0x7f3a12345678\x1b[0m   done\n")]
    assert compare_outputs(recorded, [_stdout("obj at 0x7f99aaaabbbb done")]).reproduced


def test_taskweaver_result_prose_is_reproduced_when_it_contains_the_new_text():
    recorded = [
        _stdout("The execution of the generated python code above has succeeded\n\nThe result is:\n 42")
    ]
    new = [{"output_type": "execute_result", "metadata": {}, "data": {"text/plain": "42"}}]
    assert compare_outputs(recorded, new, prose=True).reproduced
    assert not compare_outputs(recorded, [_stdout("43")], prose=True).reproduced


def test_what_a_rerun_prints_is_redacted_before_it_is_compared_and_saved(tmp_path, monkeypatch):
    from twnb.session.factory import redactor_for

    secret = "pw-" + "1a2b3c4d" * 3
    monkeypatch.setenv("REPORTING_DB_PASSWORD", secret)  # the kernel inherits it
    redactor = redactor_for(None)
    code = "import os\nprint(os.environ['REPORTING_DB_PASSWORD'])"
    conversation = _conversation(_round("leak", code, [_stdout(f"{secret}\n")]))
    built = build_notebook(
        conversation, tmp_path / "a.ipynb", source_dir=tmp_path, redact=redactor.redact_data
    )
    report = rerun_notebook(
        built.notebook,
        built.pieces,
        cwd=tmp_path,
        options=RerunOptions(timeout=60, redact=redactor.redact_data),
    )
    write_notebook(built.notebook, built.path)
    assert report.ok
    assert secret not in built.path.read_text() and "[redacted]" in built.path.read_text()


def test_the_kernel_a_rerun_started_has_ended_when_it_returns(tmp_path):
    before = running_kernels()
    built = build_notebook(
        _conversation(_round("print", "print(6 * 7)", [_stdout("42\n")])),
        tmp_path / "a.ipynb",
        source_dir=tmp_path,
    )
    report = rerun_notebook(built.notebook, built.pieces, cwd=tmp_path, options=RerunOptions(timeout=60))
    assert (report.summary(), running_kernels() - before) == ("1 of 1 cells reproduced", set())
