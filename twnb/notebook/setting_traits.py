"""The ``%config TaskWeaverMagics.*`` traitlets, made from the settings table (never written by hand).

Every row of :mod:`twnb.config.table` that is a traitlet becomes one, of the type its kind needs, with
the row's help. Each defaults to None, meaning "not set here", so the environment, ``.env``,
``twnb.yaml`` and the user config still apply below it. The API key is no row's traitlet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from traitlets import Bool, CaselessStrEnum, Dict, Float, Int, List, TraitType, Unicode, Union

from twnb.config import SETTINGS

__all__ = ["setting_traits"]


Trait = TraitType[Any, Any]

# Each kind of setting as a trait that is None ("not set here") until configured.
_TRAIT_FOR_KIND: dict[str, Callable[[str], Trait]] = {
    "text": lambda help: Unicode(None, allow_none=True, help=help),
    "url": lambda help: Unicode(None, allow_none=True, help=help),
    "bool": lambda help: Bool(None, allow_none=True, help=help),
    "count": lambda help: Int(None, allow_none=True, help=help),
    "seconds": lambda help: Float(None, allow_none=True, help=help),
    "modules": lambda help: List(Unicode(), default_value=None, allow_none=True, help=help),
    "paths": lambda help: List(Unicode(), default_value=None, allow_none=True, help=help),
    "ports": lambda help: List(Unicode(), default_value=None, allow_none=True, help=help),
    "prices": lambda help: Dict(default_value=None, allow_none=True, help=help),
    "mapping": lambda help: Dict(default_value=None, allow_none=True, help=help),
    "servers": lambda help: Dict(default_value=None, allow_none=True, help=help),
}


def setting_traits() -> dict[str, Trait]:
    """One configurable trait per traitlet row, by setting name."""
    traits: dict[str, Trait] = {}
    for row in SETTINGS:
        if row.traitlet:
            help = f"{row.help} Default: {row.describe_default()}."
            if row.kind == "choice" and {"on", "off"} <= set(row.choices):
                # `%config TaskWeaverMagics.step = True` still means on
                choices = CaselessStrEnum(row.choices)
                trait: Trait = Union([Bool(), choices], default_value=None, allow_none=True, help=help)
            elif row.kind == "choice":
                trait = CaselessStrEnum(row.choices, default_value=None, allow_none=True, help=help)
            else:
                trait = _TRAIT_FOR_KIND[row.kind](help)
            traits[row.name] = trait.tag(config=True)
    return traits
