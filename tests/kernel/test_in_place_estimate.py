"""Before code runs: which of the user's objects it may change in place, their sizes, the undo budget."""

from __future__ import annotations

import numpy as np
import pandas as pd

from twnb.kernel import estimate_in_place


def names(code: str, namespace: dict[str, object], budget_mb: float = 100) -> list[str]:
    return [t.name for t in estimate_in_place(code, namespace, budget_mb).targets]


def test_a_frame_changed_by_column_assignment_or_inplace_drop_is_a_target() -> None:
    df = pd.DataFrame({"a": range(10)})
    assert names('df["b"] = 1', {"df": df}) == ["df"]
    assert names('df.drop(columns=["a"], inplace=True)', {"df": df}) == ["df"]


def test_reading_a_frame_is_not_a_change() -> None:
    df = pd.DataFrame({"a": range(10)})
    assert names('print(df.head(), df["a"].mean())\nsummary = df.describe()', {"df": df}) == []


def test_list_append_and_dict_mutation_are_targets_but_reads_are_not() -> None:
    namespace = {"lst": [1], "d": {"k": [1]}, "r": [2]}
    assert names("lst.append(2)\nd['k'].append(3)\nn = r.count(2)", namespace) == ["lst", "d"]


def test_an_alias_or_a_loop_variable_leads_back_to_the_named_object() -> None:
    namespace = {"df": pd.DataFrame({"a": [1]}), "rows": [[1], [2]]}
    assert names('x = df\nx["b"] = 2\nfor row in rows:\n    row.append(0)', namespace) == ["df", "rows"]


def test_a_name_rebound_before_the_change_is_a_new_object() -> None:
    assert names('df = df.copy()\ndf["b"] = 2', {"df": pd.DataFrame({"a": [1]})}) == []


def test_a_function_changing_a_global_is_a_target_but_its_own_locals_are_not() -> None:
    code = "def add(items):\n    local = []\n    local.append(1)\n    seen.add(1)\nadd(lst)"
    assert names(code, {"seen": set(), "lst": [], "local": []}) == ["seen"]


def test_immutable_values_are_never_targets() -> None:
    assert names("n += 1\ns += 'x'", {"n": 1, "s": "a"}) == []


def test_an_object_over_the_budget_is_named_with_its_size() -> None:
    namespace = {"big": np.zeros(2 * 1024 * 1024), "small": [1]}  # 16 MB
    estimate = estimate_in_place("big[0] = 1\nsmall.append(2)", namespace, 10)
    assert [t.name for t in estimate.copied] == ["small"]
    assert estimate.exceeds_budget
    assert estimate.over_budget_lines() == ["`big` (16.0 MB) changed in place cannot be undone"]


def test_a_zero_budget_copies_nothing() -> None:
    estimate = estimate_in_place("lst.append(1)", {"lst": [0]}, 0)
    assert estimate.copied == () and [t.name for t in estimate.over_budget] == ["lst"]


def test_a_frame_changed_in_other_ways_is_copied_whole() -> None:
    df = pd.DataFrame({"a": np.arange(1000, dtype="float64"), "b": np.arange(1000)})
    (target,) = estimate_in_place('df["a"] = 0\ndf.drop(index=[0], inplace=True)', {"df": df}, 100).targets
    assert target.columns == ()
    assert target.size_bytes == int(df.memory_usage(index=True, deep=False).sum())


def test_a_frame_changed_only_column_by_column_costs_only_the_columns_it_had() -> None:
    df = pd.DataFrame({"a": np.arange(1000, dtype="float64"), "b": np.arange(1000), "c": np.arange(1000)})
    code = 'df["a"] = 0\ndf["new"] = 1\ndel df["b"]'
    (target,) = estimate_in_place(code, {"df": df}, 100).targets
    assert target.columns == ("a", "new", "b")
    assert target.size_bytes == df["a"].nbytes + df["b"].nbytes


def test_a_name_passed_to_a_function_the_code_defines_is_changed_as_its_body_changes_the_parameter() -> None:
    code = (
        "def clean(frame, log=None):\n"
        "    frame.dropna(inplace=True)\n"
        "    if log is not None:\n"
        "        log.append('cleaned')\n"
        "    return frame.head()\n"
        "clean(sales, log=steps)\n"
        "clean(other.copy())\n"
        "def show(frame):\n"
        "    return frame.describe()\n"
        "show(untouched)\n"
    )
    namespace = {
        "sales": pd.DataFrame({"a": [1.0, None]}),
        "steps": [],
        "other": pd.DataFrame({"a": [1.0]}),
        "untouched": pd.DataFrame({"a": [1.0]}),
    }
    assert names(code, namespace) == ["sales", "steps"]


def test_queries_and_fetches_on_database_connections_and_cursors_are_reads() -> None:
    import sqlite3

    import duckdb

    db = sqlite3.connect(":memory:")
    namespace = {"db": db, "cursor": db.cursor(), "duck": duckdb.connect()}
    code = (
        "db.execute('select 1')\ncursor.execute('select 2')\nrows = cursor.fetchall()\nduck.sql('select 3')"
    )
    assert names(code, namespace) == []


def test_a_statement_that_writes_or_is_not_spelled_out_changes_the_connection() -> None:
    import sqlite3

    namespace = {"db": sqlite3.connect(":memory:"), "other": sqlite3.connect(":memory:")}
    assert names("db.execute('delete from t')\nother.execute(statement)", namespace) == ["db", "other"]
