"""Each Round records the user's own cells that ran since the previous Round (Round.extra["user_cells"]),
redacted like everything the session records, and they are saved and loaded with the conversation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from support.session_script import one_step

from twnb.kernel import UserCellLog
from twnb.memory import load_conversation
from twnb.session.autosave import load_autosaved_conversation
from twnb.session.factory import NotebookParts

SECRET = "sk-proj-0123456789abcdefghijklmnopqrstuvwxyzABCD"


@pytest.fixture
def cells(shell: Any) -> Iterator[UserCellLog]:
    log = UserCellLog(shell).start()
    yield log
    log.close()


def users_cell(shell: Any, source: str) -> None:
    shell.run_cell(source, store_history=True)


def test_a_round_records_the_users_cells_that_ran_before_it(make_session, shell, cells):
    session = make_session(one_step("total = prices.sum()\ntotal"), notebook=NotebookParts(user_cells=cells))
    users_cell(shell, "import pandas as pd\nprices = pd.Series([1, 2, 3])")
    round = session.run_round("Add up the prices")
    assert round.state == "finished"
    (recorded,) = round.extra["user_cells"]
    assert recorded["source"] == "import pandas as pd\nprices = pd.Series([1, 2, 3])"
    assert isinstance(recorded["execution_count"], int) and recorded["error"] is None
    assert [v["name"] for v in recorded["variables"]] == ["pd", "prices"]


def test_the_next_round_records_only_the_cells_since_the_previous_one(make_session, fake_llm, shell, cells):
    session = make_session(one_step("a = 1"), notebook=NotebookParts(user_cells=cells))
    users_cell(shell, "first = 1")
    session.run_round("One")
    fake_llm.load(one_step("b = 2"))
    users_cell(shell, "second = 2")
    round = session.run_round("Two")
    assert [c["source"] for c in round.extra["user_cells"]] == ["second = 2"]


def test_a_round_with_no_cells_before_it_records_none(make_session, cells):
    round = make_session(one_step("a = 1"), notebook=NotebookParts(user_cells=cells)).run_round("One")
    assert "user_cells" not in round.extra


def test_a_secret_in_a_users_cell_is_redacted_in_the_record(make_session, shell, cells, workdir):
    session = make_session(one_step("a = 1"), notebook=NotebookParts(user_cells=cells))
    users_cell(shell, f"key = {SECRET!r}")
    round = session.run_round("One")
    assert SECRET not in str(round.extra["user_cells"])
    assert "[redacted]" in round.extra["user_cells"][0]["source"]
    autosaved = (workdir / ".twnb").rglob("*.yaml")
    assert all(SECRET not in path.read_text(encoding="utf-8") for path in autosaved)


def test_the_cells_are_saved_and_loaded_with_the_conversation(make_session, shell, cells, workdir):
    session = make_session(one_step("a = 1"), notebook=NotebookParts(user_cells=cells))
    users_cell(shell, "x = 1\nundefined_thing")
    round = session.run_round("One")
    session.save(workdir / "conv.yaml")
    loaded = load_conversation(workdir / "conv.yaml")
    assert loaded.rounds[0].extra["user_cells"] == round.extra["user_cells"]
    assert loaded.rounds[0].extra["user_cells"][0]["error"].startswith("NameError")
    autosaved = load_autosaved_conversation(session.autosave_dir)
    assert autosaved.rounds[0].extra["user_cells"] == round.extra["user_cells"]
