"""Content fingerprints: the same content gives the same digest, a change in place of one element gives
another, a frame's columns not asked for do not count, and what cannot be read has none."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd

from twnb.kernel.undo.content_fingerprint import fingerprint


def test_one_element_changed_in_place_changes_the_fingerprint_of_each_kind() -> None:
    for value, change in (
        (pd.DataFrame({"a": [1, 2], "s": ["x", "y"]}), lambda v: v.__setitem__("s", ["x", "z"])),
        (pd.Series([1.0, 2.0]), lambda v: v.__setitem__(1, 3.0)),
        (np.arange(6).reshape(2, 3)[:, ::2], lambda v: v.__setitem__((0, 0), 7)),
        ([1, [2, 3]], lambda v: v[1].append(4)),
        ({"k": "v"}, lambda v: v.__setitem__("k", "w")),
    ):
        before = fingerprint(value)
        assert before is not None and fingerprint(value) == before
        change(value)
        assert fingerprint(value) != before, value


def test_a_frame_fingerprinted_on_some_columns_ignores_the_others_but_not_its_rows() -> None:
    frame = pd.DataFrame({"a": [1, 2], "b": [3, 4]})
    before = fingerprint(frame, ("a",))
    frame.loc[0, "b"] = 9
    assert fingerprint(frame, ("a",)) == before
    frame.index = [5, 6]
    assert fingerprint(frame, ("a",)) != before


def test_an_object_that_cannot_be_pickled_has_no_fingerprint() -> None:
    assert fingerprint({"lock": threading.Lock()}) is None


def test_a_figure_drawn_and_closed_keeps_its_fingerprint_and_what_the_user_draws_changes_it() -> None:
    import io

    import matplotlib

    matplotlib.use("agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2)
    axes[0].plot([1, 2, 3])
    axes[0].scatter([1, 2], [3, 4], c=[1, 2])
    axes[1].imshow(np.eye(3))
    axes[0].legend(["a"])
    before = [fingerprint(v) for v in (fig, axes, axes[0])]
    fig.savefig(io.BytesIO(), format="png")
    plt.close(fig)
    assert [fingerprint(v) for v in (fig, axes, axes[0])] == before
    for change in (
        lambda: axes[0].set_title("mine"),
        lambda: axes[0].plot([3, 1]),
        lambda: axes[1].set_xlim(0, 9),
        lambda: axes[0].lines[0].set_color("red"),
        lambda: axes[0].set_xticks([0, 1]),
    ):
        drawn = fingerprint(axes)
        change()
        assert fingerprint(axes) != drawn
