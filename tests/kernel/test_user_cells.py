"""The user's own cells, as a real InteractiveShell runs them: `UserCellLog` records each cell's source,
execution count, whether it raised and the variables it made; not generated code, silent runs or
twnb's own commands; within its bounds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from support.shell_reset import reset_shell

from twnb.kernel import UserCellLog, is_twnb_command, run_cell_guarded


@pytest.fixture
def ip() -> Iterator[Any]:
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    reset_shell(shell)
    yield shell
    reset_shell(shell)


@pytest.fixture
def log(ip: Any) -> Iterator[UserCellLog]:
    started = UserCellLog(ip).start()
    yield started
    started.close()


def cell(ip: Any, source: str) -> Any:
    """A cell as a frontend runs it: with store_history, numbered."""
    return ip.run_cell(source, store_history=True)


def test_a_cell_is_recorded_with_its_source_count_and_the_variables_it_made(ip, log):
    result = cell(ip, "import math\nradius = 2.0")
    (recorded,) = log.take().cells
    assert recorded.source == "import math\nradius = 2.0"
    assert recorded.execution_count == result.execution_count
    assert recorded.error is None
    assert [(v.name, v.kind, v.type) for v in recorded.variables] == [
        ("math", "created", "module"),
        ("radius", "created", "float"),
    ]


def test_a_cell_that_raised_says_so(ip, log):
    cell(ip, "total = 1\nmissing_name")
    (recorded,) = log.take().cells
    assert recorded.error == "NameError: name 'missing_name' is not defined"
    assert [v.name for v in recorded.variables] == ["total"]


def test_a_rebound_and_a_deleted_variable_are_recorded_as_such(ip, log):
    cell(ip, "a = [1]\nb = 2")
    cell(ip, "a = [1, 2]\ndel b")
    recorded = log.take().cells[1]
    assert sorted((v.name, v.kind) for v in recorded.variables) == [("a", "rebound"), ("b", "deleted")]


def test_take_hands_over_the_cells_since_the_last_take(ip, log):
    cell(ip, "x = 1")
    assert [c.source for c in log.take().cells] == ["x = 1"]
    cell(ip, "y = 2")
    cell(ip, "z = 3")
    assert [c.source for c in log.take().cells] == ["y = 2", "z = 3"]
    assert log.take().cells == []


def test_generated_code_run_without_history_is_not_recorded(ip, log):
    ip.run_cell("generated = 1", store_history=False)
    assert log.take().cells == []


def test_nested_code_run_inside_a_users_cell_leaves_the_cell_recorded(ip, log):
    cell(ip, "get_ipython().run_cell('inner = 1')\nouter = 2")
    (recorded,) = log.take().cells
    assert recorded.source.endswith("outer = 2")
    assert {v.name for v in recorded.variables} == {"inner", "outer"}


def test_a_cell_generated_code_begins_is_not_the_users(ip, log):
    # The code asks for history, as a frontend does for the user's cells: it is still the code's.
    _, refusals = run_cell_guarded(ip, "get_ipython().run_cell('planted = 1', store_history=True)")
    assert refusals == [] and ip.user_ns["planted"] == 1
    cell(ip, "mine = 2")
    assert [c.source for c in log.take().cells] == ["mine = 2"]


def test_a_cell_start_generated_code_makes_up_is_not_the_users(ip, log):
    fake = (
        "from IPython.core.interactiveshell import ExecutionInfo\n"
        "get_ipython().events.trigger('pre_run_cell', ExecutionInfo('planted = 1', True, False, True, None))"
    )
    run_cell_guarded(ip, fake)
    cell(ip, "mine = 2")
    assert [c.source for c in log.take().cells] == ["mine = 2"]


@pytest.mark.parametrize("result", ["None", "get_ipython().run_cell('inner = 1')"], ids=["none", "nested"])
def test_cell_ends_generated_code_makes_up_end_no_cell_of_the_users(ip, log, result):
    # The user's cell runs generated code (as `%%taskweaver` does) that ends cells twice by hand.
    fake = f"get_ipython().events.trigger('post_run_cell', {result})\n" * 2
    cell(
        ip, f"from twnb.kernel import run_cell_guarded\nrun_cell_guarded(get_ipython(), {fake!r})\nafter = 1"
    )
    (recorded,) = log.take().cells
    assert recorded.source.endswith("after = 1")
    assert "after" in {v.name for v in recorded.variables}


def test_the_users_own_nested_cell_with_history_is_still_recorded(ip, log):
    cell(ip, "get_ipython().run_cell('inner = 1', store_history=True)\nouter = 2")
    assert [c.source for c in log.take().cells] == [
        "inner = 1",
        "get_ipython().run_cell('inner = 1', store_history=True)\nouter = 2",
    ]


def test_a_silent_execution_is_not_recorded(ip, log):
    ip.run_cell("quiet = 1", store_history=True, silent=True)
    assert log.take().cells == []


@pytest.mark.parametrize(
    "source",
    [
        "%%taskweaver\nPlot it.",
        "%taskweaver save conversation.yaml",
        "%load_ext twnb",
        "# set up\n%config TaskWeaverMagics.model = 'gpt-4o-mini'\n%taskweaver history",
    ],
)
def test_twnb_commands_are_not_analysis(source):
    assert is_twnb_command(source)


@pytest.mark.parametrize("source", ["x = 1", "%load_ext twnb\nx = 1", "%matplotlib inline", "%taskweaverx"])
def test_cells_with_code_of_their_own_are_analysis(source):
    assert not is_twnb_command(source)


def test_a_source_over_the_bound_is_clipped_and_marked(ip):
    log = UserCellLog(ip, max_source_chars=20).start()
    try:
        cell(ip, "value = 1  # " + "x" * 100)
    finally:
        log.close()
    (recorded,) = log.take().cells
    assert recorded.clipped and len(recorded.source) == 20
    assert recorded.to_dict()["clipped"] is True


def test_older_cells_beyond_the_bound_are_dropped_and_counted(ip):
    log = UserCellLog(ip, max_cells=2).start()
    try:
        for number in range(5):
            cell(ip, f"n{number} = {number}")
    finally:
        log.close()
    taken = log.take()
    assert [c.source for c in taken.cells] == ["n3 = 3", "n4 = 4"]
    assert taken.omitted == 3


def test_the_characters_waiting_are_bounded_too(ip):
    log = UserCellLog(ip, max_chars=30).start()
    try:
        cell(ip, "a = 'first cell, twenty chars'")
        cell(ip, "b = 'second'")
    finally:
        log.close()
    taken = log.take()
    assert [c.source for c in taken.cells] == ["b = 'second'"] and taken.omitted == 1


def test_a_namespace_that_cannot_be_signed_costs_the_variables_not_the_cell(ip, log):
    # A key that is not a name (globals()[42]) breaks the signature scan: the cell is still recorded.
    result = cell(ip, "globals()[42] = 'not a name'\nafter = 1")
    ip.user_ns.pop(42)
    assert result.success and ip.user_ns["after"] == 1
    (recorded,) = log.take().cells
    assert recorded.source.startswith("globals()[42]") and recorded.variables == []


def test_a_closed_log_records_nothing(ip):
    log = UserCellLog(ip).start()
    log.close()
    cell(ip, "x = 1")
    assert log.take().cells == []


def test_the_record_keeps_only_the_facts_a_change_has(ip, log):
    cell(ip, "count = 3")
    (recorded,) = log.take().cells
    assert recorded.to_dict() == {
        "source": "count = 3",
        "execution_count": recorded.execution_count,
        "error": None,
        "variables": [{"name": "count", "kind": "created", "type": "int"}],
    }


def test_what_ran_at_the_top_level_between_two_cells_is_not_the_next_cells(ip, log):
    cell(ip, "first = 1")
    ip.run_cell("made_elsewhere = 2", store_history=True, silent=True)  # as a Round or a frontend's request
    cell(ip, "second = 3")
    assert [[v.name for v in c.variables] for c in log.take().cells] == [["first"], ["second"]]


def test_a_frame_rebound_is_recorded_without_reading_its_shape(ip, log):
    cell(ip, "import pandas as pd\nframe = pd.DataFrame({'a': [1, 2]})")
    cell(ip, "frame = frame.assign(b=3)")
    rebound = log.take().cells[1].variables
    assert [(v.name, v.kind, v.type, v.shape) for v in rebound] == [("frame", "rebound", "DataFrame", None)]
