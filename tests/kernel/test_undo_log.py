"""The undo log's bounds: copies within the budget for all snapshots together (the oldest released to
make room, and said so), a file over what is left not copied, snapshots released when let go."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from twnb.kernel import UndoLog
from twnb.kernel.guard.runtime_guard import GuardedRun

MB = 1024 * 1024


def run(log: UndoLog, ns: dict, execution_id: str, code: str) -> None:
    snapshot = log.begin(execution_id, code, ns)
    exec(code, ns)
    log.end(snapshot, ns, hidden={"__builtins__"})


def test_a_new_run_releases_the_oldest_copies_to_stay_within_the_budget(tmp_path: Path) -> None:
    ns: dict = {"a": np.zeros(MB // 8 * 3), "b": np.zeros(MB // 8 * 3)}  # 3 MB each
    log = UndoLog(4, tmp_path, ns)
    run(log, ns, "one", "a[0] = 1")
    run(log, ns, "two", "b[0] = 1")
    assert log.held_bytes == 3 * MB
    report = log.undo(["one"], tmp_path / "moved")
    assert report.restored == [] and ns["a"][0] == 1
    assert report.not_undone == [
        "`a` changed in place cannot be undone (its copy was released to make room within undo_budget_mb)"
    ]
    log.undo(["two"], tmp_path / "moved")
    assert ns["b"][0] == 0


def test_keep_only_releases_the_other_snapshots_references_and_all(tmp_path: Path) -> None:
    ns: dict = {"x": [1]}
    log = UndoLog(10, tmp_path, ns)
    run(log, ns, "one", "x = [2]")
    run(log, ns, "two", "y = 1")
    log.keep_only({"two"})
    assert log.get("one") is None and log.get("two") is not None


def test_a_file_bigger_than_what_the_budget_has_left_is_not_copied(tmp_path: Path) -> None:
    big, small = tmp_path / "big.bin", tmp_path / "small.txt"
    big.write_bytes(b"x" * (2 * MB))
    small.write_text("before")
    log = UndoLog(1, tmp_path / "copies", {})
    snapshot = log.begin("one", "pass", {})
    guarded = GuardedRun(keep_before=snapshot.keep_file)
    from twnb.kernel.guard.guard_events import FileEffect

    guarded.record(FileEffect("write", str(big)))
    guarded.record(FileEffect("write", str(small)))
    assert [(Path(f.path).name, f.copy_path is not None) for f in snapshot.files] == [
        ("big.bin", False),
        ("small.txt", True),
    ]
    assert snapshot.limit_lines() == ["`big.bin` (2.0 MB) overwritten cannot be restored"]
    small.write_text("after")
    log.end(snapshot, {})
    log.undo(["one"], tmp_path / "moved")
    assert small.read_text() == "before"
    assert not (tmp_path / "copies" / "one").exists()  # released once undone


def test_a_frame_whose_rows_changed_behind_its_column_copies_is_left_as_it_is_and_said(
    tmp_path: Path,
) -> None:
    import pandas as pd

    frame = pd.DataFrame({"a": [1, 2, 3]})
    ns: dict = {"df": frame}
    log = UndoLog(10, tmp_path, ns)
    snapshot = log.begin("one", 'df["a"] = 0', ns)
    frame["a"] = 0
    frame.loc[3] = 9  # a row added in place, unseen by the estimate (say, through exec)
    log.end(snapshot, ns)
    report = log.undo(["one"], tmp_path / "moved")
    assert report.not_undone == ["`df` changed in place cannot be undone (its rows changed too)"]
    assert frame["a"].tolist() == [0, 0, 0, 9]


def test_a_change_in_place_after_the_runs_is_seen_in_what_undo_would_put_back(tmp_path: Path) -> None:
    ns: dict = {"items": [1, 2]}
    log = UndoLog(10, tmp_path, ns)
    run(log, ns, "one", "items.append(3)\ntable = {'k': 'v'}")
    ns["items"][0] = 9
    ns["table"]["k"] = "w"
    assert log.changed_since(["one"]) == []  # same types, same lengths
    assert log.changed_in_place_since(["one"]) == ["items", "table"]


def test_a_later_run_of_the_same_undo_changing_the_object_is_not_a_change_since(tmp_path: Path) -> None:
    ns: dict = {}
    log = UndoLog(10, tmp_path, ns)
    run(log, ns, "one", "items = [1, 2]")
    run(log, ns, "two", "items[0] = 9")
    assert log.changed_in_place_since(["one", "two"]) == []


def test_an_edit_to_a_column_undo_does_not_put_back_is_not_a_change_since(tmp_path: Path) -> None:
    import pandas as pd

    ns: dict = {"df": pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})}
    log = UndoLog(10, tmp_path, ns)
    run(log, ns, "one", 'df["a"] = df["a"] * 10\ndf["c"] = 0')
    ns["df"].loc[0, "b"] = "z"  # undo puts back `a` and drops `c` only: this edit stays
    assert log.changed_in_place_since(["one"]) == []
    ns["df"].loc[0, "c"] = 5
    assert log.changed_in_place_since(["one"]) == ["df"]


def test_an_object_over_the_budget_is_not_fingerprinted(tmp_path: Path) -> None:
    ns: dict = {"big": np.zeros(MB // 4), "small": [1]}  # 2 MB, and a little list
    log = UndoLog(1, tmp_path, ns)
    run(log, ns, "one", "big[0] = 1\nsmall.append(2)")
    assert list(log.snapshots["one"].fingerprints) == ["small"]
