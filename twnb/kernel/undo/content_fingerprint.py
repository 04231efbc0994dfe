"""A digest of an object's content, to see at undo time whether something changed it in place since.

A signature (variables.py: type, shape, dtype, identity) cannot see `df.loc[0, 'a'] = 1`, `lst[0] = 9`
or `d['k'] = 'v'`; undo would then silently put the Round's "before" over the user's later edit. So
right after a run, undo_log.py fingerprints each object undo would act on, and again at undo time:

- a numpy array or a numeric pandas column or index: its bytes, read from its buffer (no copy when
  contiguous); a RangeIndex by its bounds;
- a categorical column: its codes' buffer and its categories;
- other pandas columns and indexes (strings, nullable numbers): the pickle of their values (slower:
  some 20 ms a million short strings);
- a matplotlib figure, axes or artist (and an array, list or tuple of them, `plt.subplots(2, 2)`'s
  axes): what the user drew, read through its getters (figure_content.py), since drawing and closing
  a figure changes its pickle and nothing a user would call a change;
- anything else: its pickle (a builtin container, a plain object); an object that cannot be pickled
  has no fingerprint (None) and only its signature is compared.

A DataFrame can be fingerprinted on some columns only (`columns`): those undo would put back or drop;
a change to another column is kept by undo anyway. Its index is always part of it.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Iterable
from typing import Any

from twnb.kernel.undo.figure_content import feed_figure_content, is_matplotlib

Fingerprint = str


def fingerprint(value: Any, columns: Iterable[str] | None = None) -> Fingerprint | None:
    """The digest of `value`'s content (of those of `columns` a DataFrame has, and its index), or None
    when it cannot be taken without side effects we would not want (not picklable, say)."""
    # Not for security: what a later edit changed, at the speed of the fastest digest hashlib has here.
    digest = hashlib.sha1(usedforsecurity=False)
    try:
        _feed(digest, value, columns)
    except Exception:
        return None
    return digest.hexdigest()


def _feed(digest: Any, value: Any, columns: Iterable[str] | None) -> None:
    module = (getattr(type(value), "__module__", "") or "").split(".")[0]
    name = type(value).__name__
    digest.update(f"{module}.{name}\x00".encode())
    if module == "pandas" and name == "DataFrame":
        _feed_index(digest, value.index)
        digest.update(repr([str(c) for c in value.columns]).encode())
        chosen = list(value.columns) if columns is None else [c for c in columns if c in value.columns]
        for column in chosen:
            digest.update(f"\x00{column}\x00".encode())
            _feed_series(digest, value[column])
        return
    if module == "pandas" and name == "Series":
        _feed_index(digest, value.index)
        digest.update(repr(value.name).encode())
        _feed_series(digest, value)
        return
    if module == "pandas" and hasattr(value, "is_unique") and hasattr(value, "names"):
        _feed_index(digest, value)
        return
    if module == "matplotlib":
        feed_figure_content(digest, value, _feed_array)
        return
    if _holds_figures(value):
        for item in value.ravel().tolist() if module == "numpy" else value:
            _feed(digest, item, None)
        return
    if module == "numpy" and name == "ndarray":
        _feed_array(digest, value)
        return
    digest.update(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def _holds_figures(value: Any) -> bool:
    """An array of objects, a list or a tuple holding a matplotlib object: fed item by item."""
    if isinstance(value, (list, tuple)):
        items: list[Any] = list(value)
    elif type(value).__name__ == "ndarray" and getattr(getattr(value, "dtype", None), "kind", "") == "O":
        items = value.ravel().tolist()
    else:
        return False
    return any(is_matplotlib(item) for item in items[:64])


def _feed_array(digest: Any, array: Any) -> None:
    """A numpy array's bytes from its buffer (copied only when not contiguous); an array of Python
    objects by its pickle."""
    digest.update(f"{array.dtype.str}{array.shape}".encode())
    if array.dtype.kind not in "biufcmM":
        digest.update(pickle.dumps(array, protocol=pickle.HIGHEST_PROTOCOL))
        return
    if not array.flags.c_contiguous:
        array = array.copy(order="C")
    digest.update(array.view("u1").reshape(-1) if array.size else b"")


def _feed_series(digest: Any, series: Any) -> None:
    digest.update(str(series.dtype).encode())
    if str(series.dtype) == "category":  # its codes' buffer and its categories, not a value per row
        _feed_array(digest, series.cat.codes.to_numpy(copy=False))
        _feed_array(digest, series.cat.categories.to_numpy())
        digest.update(repr(series.cat.ordered).encode())
        return
    # A numeric column's own buffer; other columns (strings, nullable numbers) as Python objects.
    _feed_array(digest, series.to_numpy(copy=False))


def _feed_index(digest: Any, index: Any) -> None:
    if type(index).__name__ == "RangeIndex":
        digest.update(f"range({index.start},{index.stop},{index.step})".encode())
        return
    digest.update(repr(list(index.names)).encode())
    digest.update(str(getattr(index, "dtype", "")).encode())
    _feed_array(digest, index.to_numpy())
