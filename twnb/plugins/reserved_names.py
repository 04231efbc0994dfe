"""Names a plugin may not take in the kernel: Python's builtins, IPython's, and the names the user's own
cells use as their own.

A plugin is bound in the user's namespace under its name, where a global hides a builtin: a plugin
named `len` replaced the builtin in the user's own cells. One named like a name the user's cells bind
(a function they define or import, a variable they assign) would stand in for it whenever that name is
not there at the moment (the cell has not run yet, or failed, or the name was deleted). A variable
that is there is the catalog's own rule. A name the user's cells only read is not reserved: it may be
the plugin itself, called by the user. Such a plugin is not bound; its one-line reason is said under
the Round's cell.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Mapping, Sequence
from typing import Any

# What IPython puts in every cell's reach besides Python's builtins.
_IPYTHON_NAMES = frozenset({"get_ipython", "display", "exit", "quit", "In", "Out"})


class ReservedNames:
    """Says why a plugin may not be bound as `name` in `namespace` (the kernel's user namespace),
    reading the user's cells from IPython's `In` list (only the cells added since the last call)."""

    def __init__(self) -> None:
        self._cells_read = 0
        self._used: set[str] = set()

    def reason(self, name: str, namespace: Mapping[str, Any], *, bound: bool = False) -> str | None:
        """Why not, or None. `bound`: the plugin already holds the name (the user's cells written since
        may call the plugin itself)."""
        if name in _IPYTHON_NAMES or hasattr(builtins, name):
            return (
                f"{name} is the name of a Python builtin: as a plugin it would replace {name} in your own "
                "cells; rename the plugin (its spec's name and the class's file)"
            )
        if not bound and name in self._names_used(namespace.get("In")):
            return (
                f"your own cells define {name}: as a plugin it would stand in for what they mean; rename the "
                "plugin, or the name in your cells"
            )
        return None

    def _names_used(self, cells: Any) -> set[str]:
        if not isinstance(cells, Sequence) or isinstance(cells, str):
            return self._used
        if len(cells) < self._cells_read:  # the history was reset
            self._cells_read, self._used = 0, set()
        for source in cells[self._cells_read :]:
            if isinstance(source, str) and source.strip():
                self._used |= _bound_names(source)
        self._cells_read = len(cells)
        return self._used


def _bound_names(source: str) -> set[str]:
    """The names a cell binds: assigned, defined, imported (a name it only reads may be the plugin's)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names
