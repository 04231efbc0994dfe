"""What a user would call a matplotlib figure's content, fed to a content digest.

A figure's pickle is no measure of change: drawing it (the inline backend does, at the end of a cell)
creates tick objects, moves titles and spines, computes colour maps, and closing it drops its manager,
so `fig, ax` pickle differently after a Round that plotted and nothing else. Undo would then refuse with
"changed since the Round". Here a figure, an axes or any artist is read through the getters that say what
the user drew (the data of lines and collections, texts, colours, limits, scales, visibility), walking
the artist tree, and not through what drawing computes (positions of titles, ticks, legends, spines'
paths, the renderer's caches). A new line, a title set, changed limits still give another digest.
"""

from __future__ import annotations

from typing import Any

# Getters read on every artist that has them: what the user sets, never what drawing computes.
_GETTERS = (
    "get_visible",
    "get_label",
    "get_text",
    "get_xydata",
    "get_offsets",
    "get_sizes",
    "get_array",
    "get_extent",
    "get_linestyle",
    "get_linewidth",
    "get_marker",
    "get_markersize",
    "get_alpha",
    "get_zorder",
    "get_hatch",
    "get_xlim",
    "get_ylim",
    "get_xscale",
    "get_yscale",
    "get_xlabel",
    "get_ylabel",
    "get_size_inches",
    "get_fontsize",
)
# Colours: a collection mapped through a colour map gets its face colours when drawn.
_COLOUR_GETTERS = ("get_color", "get_facecolor", "get_edgecolor")
# Artists whose own geometry drawing rewrites (a spine's path follows the view limits), or whose
# children drawing creates (an axis's ticks): only the getters above are read, no children.
_NOT_WALKED = ("XAxis", "YAxis", "ZAxis", "Spine", "Tick", "XTick", "YTick")


def is_matplotlib(value: Any) -> bool:
    return (getattr(type(value), "__module__", "") or "").split(".")[0] == "matplotlib"


def feed_figure_content(digest: Any, artist: Any, feed_array: Any) -> None:
    """Feed `artist` (a Figure, an Axes or any matplotlib Artist) and what it holds into `digest`;
    `feed_array(digest, array)` feeds a numpy array's bytes."""
    seen: set[int] = set()
    stack: list[Any] = [artist]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        name = type(current).__name__
        digest.update(f"\x01{name}\x00".encode())
        _feed_getters(digest, current, feed_array)
        if name in ("XAxis", "YAxis", "ZAxis"):
            _feed_axis(digest, current, feed_array)
        if name in _NOT_WALKED:
            continue
        children = getattr(current, "get_children", None)
        if callable(children):
            stack.extend(reversed(list(children())))


def _feed_getters(digest: Any, artist: Any, feed_array: Any) -> None:
    mapped = _mapped_array(artist)
    getters = _GETTERS if mapped else (*_GETTERS, *_COLOUR_GETTERS)
    for getter_name in getters:
        getter = getattr(artist, getter_name, None)
        if not callable(getter):
            continue
        try:
            value = getter()
        except Exception:
            continue
        digest.update(f"{getter_name}=".encode())
        _feed_value(digest, value, feed_array)
    if mapped:
        cmap = getattr(artist, "get_cmap", None)
        digest.update(f"cmap={getattr(cmap(), 'name', '') if callable(cmap) else ''}".encode())


def _mapped_array(artist: Any) -> bool:
    get_array = getattr(artist, "get_array", None)
    try:
        return callable(get_array) and get_array() is not None
    except Exception:
        return False


def _feed_axis(digest: Any, axis: Any, feed_array: Any) -> None:
    """An axis by its label, scale and the kinds of its locator and formatter, with the ticks and
    labels set by hand (set_xticks, set_xticklabels); not by its tick objects, nor by the ticks a
    locator chooses, which follow the axes' size on screen (drawing applies an image's aspect)."""
    for part in (
        lambda: axis.get_label().get_text(),
        axis.get_scale,
        lambda: type(axis.get_major_locator()).__name__,
        lambda: getattr(axis.get_major_locator(), "locs", None),
        lambda: type(axis.get_major_formatter()).__name__,
        lambda: getattr(axis.get_major_formatter(), "seq", None),
    ):
        try:
            _feed_value(digest, part(), feed_array)
        except Exception:
            digest.update(b"?")


def _feed_value(digest: Any, value: Any, feed_array: Any) -> None:
    if is_matplotlib(value):  # an artist a getter returns (an axis's label) is walked on its own
        digest.update(f"{type(value).__name__};".encode())
        return
    if hasattr(value, "dtype") and hasattr(value, "shape") and hasattr(value, "tolist"):
        if hasattr(value, "mask") and hasattr(value, "filled"):  # a masked array: its values, its mask
            _feed_value(digest, value.mask, feed_array)
            value = value.data
        if value.dtype.kind in "biufcmM":
            feed_array(digest, value)
            digest.update(b";")
            return
        value = value.tolist()
    digest.update(f"{value!r};".encode())
