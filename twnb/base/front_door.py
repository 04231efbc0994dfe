"""A layer's front door that loads each public name's module only when the name is first used.

A layer whose import time matters (`%load_ext twnb` reads the settings table, never the resolver, the
redactor or the session) names its public API in `__all__`, lists beside it where each name lives, and
gets its module `__getattr__` (PEP 562) from here, as IPython's and AgentScope's packages do by hand.
The type checker reads the same names from the layer's `if TYPE_CHECKING:` imports; tests/test_layers.py
checks that `__all__`, those imports and the list agree.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def lazy_exports(
    package: str, where: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`, whose public names live in the submodules `where`
    names (`{"Settings": "settings"}`: `Settings` is `package.settings.Settings`)."""

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value: object = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)  # later lookups find it without this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__
