"""A layer's front door that loads each public name's module only when the name is first used.

A layer whose import time matters (`%load_ext twnb` reads the settings table, never the resolver, the
redactor or the session) names each public name once, under `if TYPE_CHECKING:`, as an explicit
re-export (`from twnb.config.settings import Settings as Settings`), and gets its module `__getattr__`
and `__dir__` (PEP 562) from `lazy_front_door`:

    if TYPE_CHECKING:
        from twnb.config.settings import Settings as Settings
    else:
        __getattr__, __dir__ = lazy_front_door(__name__, __file__)

The type checker reads those imports; at run time `lazy_front_door` reads the same lines from the
`__init__.py` (on the first name looked up, never at import) and loads a name's module when the name is
first used, as IPython's and AgentScope's packages do by hand and scientific Python's `lazy_loader` does
from a stub. `__all__` is those names, and the public names the front door imports or defines itself.
tests/test_layers.py checks each front door the same way.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def lazy_front_door(package: str, init_file: str) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`, whose public names are the `if TYPE_CHECKING:`
    imports of its `__init__.py`, `init_file`."""
    found: list[tuple[dict[str, str], list[str]]] = []

    def names() -> tuple[dict[str, str], list[str]]:
        if not found:
            with open(init_file, encoding="utf-8") as source:
                found.append(_front_door_names(source.read(), package))
        return found[0]

    return lazy_exports(package, lambda: names()[0], lambda: names()[1])


def lazy_exports(
    package: str,
    where: Mapping[str, str] | Callable[[], Mapping[str, str]],
    public: Callable[[], list[str]] | None = None,
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`, whose lazy names live in the modules `where` names
    (`{"Settings": "twnb.config.settings"}`, or a submodule's name relative to `package`,
    `{"Settings": "settings"}`); `public()`, when given, is `__all__`."""

    def lookup() -> Mapping[str, str]:
        return where() if callable(where) else where

    def __getattr__(name: str) -> object:
        if name == "__all__" and public is not None:
            value: object = public()
        else:
            module = lookup().get(name)
            if module is None:
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            if not module.startswith(f"{package}."):
                module = f"{package}.{module}"
            value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # later lookups find it without this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(lookup()))

    return __getattr__, __dir__


def _front_door_names(source: str, package: str) -> tuple[dict[str, str], list[str]]:
    """The names an `__init__.py` re-exports lazily (name -> module), and its `__all__`: those, and the
    public names it imports from its package's modules or defines itself."""
    import ast  # lazy: ast (~1.5 ms) parsed once, at the first name looked up, never at `import twnb`

    lazy: dict[str, str] = {}
    eager: set[str] = set()

    def own_imports(body: list[ast.stmt]) -> dict[str, str]:
        return {
            alias.asname or alias.name: node.module or ""
            for node in body
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(f"{package}.")
            for alias in node.names
        }

    body = ast.parse(source).body
    for node in body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            lazy.update(own_imports(node.body))
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            eager.add(node.name)
    eager.update(own_imports(body))
    public = {name for name in set(lazy) | eager if _is_public(name)}
    if package != __name__.rpartition(".")[0]:
        public.discard(lazy_front_door.__name__)  # what the front door is built with, not its API
    return lazy, sorted(public)


def _is_public(name: str) -> bool:
    """`plugin`, `__version__`; not `_jupyter_labextension_paths`."""
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))
