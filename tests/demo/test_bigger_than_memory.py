"""notebooks/bigger-than-memory.ipynb runs offline in a real kernel: a Dask LocalCluster, 16 million
events written as Parquet by its workers, and two Rounds that finish (scripted replies, bundled cassette)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from twnb.demo.bigger_than_memory import BIGGER_THAN_MEMORY, build_bigger_than_memory_notebook
from twnb.demo.runner import run_demo
from twnb.memory import AttachmentType, load_conversation

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")
pytestmark = pytest.mark.slow

SAVED = Path(__file__).resolve().parents[2] / "notebooks" / "bigger-than-memory.ipynb"


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory):
    saved = nbformat.read(SAVED, as_version=4)
    for cell in saved.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    out = tmp_path_factory.mktemp("bigger-than-memory")
    return run_demo(out, demo=BIGGER_THAN_MEMORY, notebook=saved, progress=lambda line: None)


def test_the_saved_notebook_is_the_one_twnb_builds():
    saved = nbformat.read(SAVED, as_version=4)
    built = build_bigger_than_memory_notebook()
    assert [(c.cell_type, c.source) for c in saved.cells] == [(c.cell_type, c.source) for c in built.cells]


def test_both_rounds_finish_offline(ran):
    assert ran.round_states == ["finished", "finished"], ran.failures


def test_the_dataset_is_written_as_parquet_partitions_at_run_time(ran):
    assert len(list((ran.out_dir / "events").glob("*.parquet"))) == 32


def test_each_rounds_code_computes_once_at_the_end(ran):
    codes = [
        str(attachment.content)
        for round_ in load_conversation(ran.conversation).rounds
        for post in round_.post_list
        for attachment in post.get_attachment(AttachmentType.reply_content)
    ]
    assert len(codes) == 2
    assert [code.count(".compute()") for code in codes] == [1, 1]


def test_a_missing_library_is_named_with_how_to_install_it_before_any_kernel_starts(tmp_path):
    from dataclasses import replace

    from twnb.demo.runner import DemoError

    needs_more = replace(BIGGER_THAN_MEMORY, requires=("dask.dataframe", "twnb_no_such_module"))
    with pytest.raises(DemoError, match=r"needs twnb_no_such_module: pip install \"dask\[dataframe\]\""):
        run_demo(tmp_path / "out", demo=needs_more, progress=lambda line: None)
    assert not (tmp_path / "out" / "kernel.log").exists()
