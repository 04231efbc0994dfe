"""`@` completion as a frontend gets it: a complete_request to a real ipykernel (jupyter_client), where
ipykernel's own namespace and its Jedi-backed completer run, with the user's cells run and twnb loaded.
JupyterLab and Notebook 7 replace the reply's [cursor_start, cursor_end) with the picked text."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

USER_CELL = "import pandas as pd\nsales_2026 = pd.DataFrame({'total': [1.5]})"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A kernel in a folder holding `regions.csv`, the user's cell run and `%load_ext twnb` done."""
    from jupyter_client.manager import KernelManager

    folder: Path = tmp_path_factory.mktemp("mention-kernel")
    (folder / "regions.csv").write_text("region\nnorth\n", encoding="utf-8")
    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(folder), env={**os.environ, "HOME": str(folder)})
    client = km.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        for code in (USER_CELL, "%load_ext twnb"):
            reply = client.execute_interactive(code, timeout=60, store_history=True)
            assert reply["content"]["status"] == "ok", reply["content"]
        yield client
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)


def complete(client: Any, code: str) -> dict[str, Any]:
    """The kernel's complete_reply for the cursor at the end of `code`."""
    msg_id = client.complete(code, len(code))
    while True:
        reply = client.get_shell_msg(timeout=30)
        if reply["parent_header"].get("msg_id") == msg_id:
            return dict(reply["content"])


def test_at_lists_what_the_user_made_then_files_then_cells_and_rounds_and_nothing_else(kernel):
    reply = complete(kernel, "%%taskweaver\nPlot @")
    # before: IPython's own `open` (in every kernel's namespace, hidden from %who) was offered too
    assert reply["matches"] == ["pd", "sales_2026", "regions.csv", "cell ", "round "]


def test_the_replaced_range_is_the_text_after_the_at(kernel):
    code = "%%taskweaver\nPlot @sal"
    reply = complete(kernel, code)
    assert reply["matches"] == ["sales_2026"]
    assert code[reply["cursor_start"] : reply["cursor_end"]] == "sal"  # the `@` stays


def test_a_partial_no_mention_matches_gets_no_python_names(kernel):
    """Before, `@pri` + Tab offered Jedi's `print`: nothing after `@` may be other than a mention."""
    assert complete(kernel, "%%taskweaver\nShow @pri")["matches"] == []
