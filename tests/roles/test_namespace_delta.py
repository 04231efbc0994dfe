"""The namespace summary's changes since a snapshot: what the last message of a prompt says."""

from __future__ import annotations

from twnb.roles.namespace_delta import (
    CHANGES_HEADER,
    EXTENDED_HEADER,
    SNAPSHOT_HEADER,
    NamespaceSnapshot,
    summary_changes,
)

BEFORE = "Variables in the kernel:\n- df: DataFrame, shape (10, 2)\n- n: int = 3"


def test_an_unchanged_summary_has_no_changes():
    assert summary_changes(BEFORE, BEFORE) == ""


def test_new_and_changed_variables_are_listed_with_their_new_lines():
    after = "Variables in the kernel:\n- df: DataFrame, shape (12, 2)\n- n: int = 3\n- top: Series, length 5"
    assert summary_changes(BEFORE, after) == (
        f"{CHANGES_HEADER}\n- df: DataFrame, shape (12, 2)\n- top: Series, length 5"
    )


def test_a_deleted_variable_is_named_as_no_longer_defined():
    after = "Variables in the kernel:\n- df: DataFrame, shape (10, 2)"
    assert summary_changes(BEFORE, after) == f"{CHANGES_HEADER}\nNo longer defined: n"


def test_a_summary_cut_at_its_limit_does_not_call_the_names_it_left_out_deleted():
    after = (
        "Variables in the kernel:\n[... 1 older names not shown: summary limit of 4000 characters]\n"
        "- n: int = 3\n- m: int = 4"
    )
    changes = summary_changes(BEFORE, after)
    assert "No longer defined" not in changes and "- m: int = 4" in changes


def test_the_snapshot_is_kept_while_the_layout_key_stays_and_extended_when_it_changes():
    snapshot = NamespaceSnapshot()
    first, _ = snapshot.split("layout-1", BEFORE)
    changed = BEFORE.replace("n: int = 3", "n: int = 4")
    kept, changes = snapshot.split("layout-1", changed)
    extended, none = snapshot.split("layout-2", changed)
    assert kept == first and changes.endswith("- n: int = 4")
    assert extended == f"{first}\n{EXTENDED_HEADER}\n- n: int = 4" and none == ""


def test_new_names_continue_the_list_without_a_header():
    snapshot = NamespaceSnapshot()
    first, _ = snapshot.split("layout-1", BEFORE)
    extended, changes = snapshot.split("layout-2", BEFORE + "\n- m: int = 4")
    assert extended == f"{first}\n- m: int = 4" and changes == ""


def test_a_namespace_that_only_grows_keeps_each_snapshot_as_the_start_of_the_next():
    # What a provider's prompt cache needs: however often the layout changes while the user only adds
    # variables, no snapshot rewrites what the previous one said.
    snapshot = NamespaceSnapshot()
    summary = BEFORE
    previous, _ = snapshot.split("layout-0", summary)
    for step in range(1, 13):
        summary += "".join(f"\n- name_{step}_{i}: int = {i}" for i in range(4))
        current, changes = snapshot.split(f"layout-{step}", summary)
        assert current.startswith(previous) and changes == ""
        previous = current


def test_an_extension_keeps_the_snapshot_as_the_cached_prefix_and_the_changes_are_against_it():
    snapshot = NamespaceSnapshot()
    first, _ = snapshot.split("layout-1", BEFORE)
    extended, _ = snapshot.split("layout-2", BEFORE + "\n- m: int = 4")
    _, changes = snapshot.split("layout-2", BEFORE + "\n- m: int = 4\n- k: int = 1")
    assert extended.startswith(first) and changes == f"{CHANGES_HEADER}\n- k: int = 1"


def test_an_extension_says_the_names_no_longer_defined_but_not_a_summarys_cut():
    snapshot = NamespaceSnapshot()
    snapshot.split("layout-1", BEFORE)
    extended, _ = snapshot.split("layout-2", "Variables in the kernel:\n- df: DataFrame, shape (10, 2)")
    assert extended.endswith(f"{EXTENDED_HEADER}\nNo longer defined: n")
    cut = (
        "Variables in the kernel:\n[... 1 older names not shown: summary limit of 4000 characters]\n"
        "- m: int = 4"
    )
    extended, _ = snapshot.split("layout-3", cut)
    assert "[... " not in extended and extended.endswith(f"{EXTENDED_HEADER}\n- m: int = 4")


def test_the_snapshot_is_taken_again_when_its_extensions_would_outgrow_twice_the_summary():
    snapshot = NamespaceSnapshot()
    snapshot.split("layout-1", BEFORE)
    once = BEFORE.replace("shape (10, 2)", "shape (11, 2)")
    extended, _ = snapshot.split("layout-2", once)
    twice = BEFORE.replace("shape (10, 2)", "shape (12, 2)")
    retaken, changes = snapshot.split("layout-3", twice)
    assert EXTENDED_HEADER in extended
    assert retaken == f"{SNAPSHOT_HEADER}\n{twice}" and EXTENDED_HEADER not in retaken and changes == ""


def test_the_changes_follow_each_new_summary_under_the_same_snapshot():
    snapshot = NamespaceSnapshot()
    snapshot.split("layout-1", BEFORE)
    _, first = snapshot.split("layout-1", BEFORE + "\n- m: int = 4")
    _, again = snapshot.split("layout-1", BEFORE + "\n- m: int = 4")
    _, next_ = snapshot.split("layout-1", BEFORE + "\n- m: int = 5")
    assert first == again == f"{CHANGES_HEADER}\n- m: int = 4"
    assert next_ == f"{CHANGES_HEADER}\n- m: int = 5"


def test_the_changes_are_against_a_retaken_snapshot_even_for_a_summary_seen_before():
    snapshot = NamespaceSnapshot()
    snapshot.split("layout-1", BEFORE)
    _, before_retake = snapshot.split("layout-1", BEFORE + "\n- m: int = 4")
    snapshot.split("layout-2", BEFORE + "\n- m: int = 5")
    _, after_retake = snapshot.split("layout-2", BEFORE + "\n- m: int = 4")
    assert before_retake == f"{CHANGES_HEADER}\n- m: int = 4"
    assert after_retake == f"{CHANGES_HEADER}\n- m: int = 4"
    _, back = snapshot.split("layout-2", BEFORE + "\n- m: int = 5")
    assert back == ""


def test_a_snapshot_made_with_a_text_gives_the_changes_against_that_text():
    snapshot = NamespaceSnapshot(key="layout-1", text=BEFORE)
    _, changes = snapshot.split("layout-1", BEFORE + "\n- m: int = 4")
    assert changes == f"{CHANGES_HEADER}\n- m: int = 4"
