"""The ``%config TaskWeaverMagics.*`` traitlets, made from the settings table (never written by hand).

Every row of :mod:`twnb.config.table` that is a traitlet becomes one, of the type its kind needs, with
the row's help. Each defaults to None, meaning "not set here", so the environment, ``.env``,
``twnb.yaml`` and the user config still apply below it. The API key is no row's traitlet.
"""

from __future__ import annotations

from collections.abc import Callable

from traitlets import Bool, Float, Int, List, TraitType, Unicode

from twnb.config.table import SETTINGS, Setting

__all__ = ["setting_traits"]


def _text(row: Setting, help: str) -> TraitType:
    return Unicode(None, allow_none=True, help=help)


def _modules(row: Setting, help: str) -> TraitType:
    return List(Unicode(), default_value=None, allow_none=True, help=help)


_TRAIT_FOR_KIND: dict[str, Callable[[Setting, str], TraitType]] = {
    "text": _text,
    "url": _text,
    "bool": lambda row, help: Bool(None, allow_none=True, help=help),
    "count": lambda row, help: Int(None, allow_none=True, help=help),
    "seconds": lambda row, help: Float(None, allow_none=True, help=help),
    "modules": _modules,
}


def setting_traits() -> dict[str, TraitType]:
    """One configurable trait per traitlet row, by setting name."""
    traits = {}
    for row in SETTINGS:
        if row.traitlet:
            help = f"{row.help} Default: {row.describe_default()}."
            traits[row.name] = _TRAIT_FOR_KIND[row.kind](row, help).tag(config=True)
    return traits
