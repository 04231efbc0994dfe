"""Making `import taskweaver.plugin` work in a kernel without TaskWeaver, and only there.

A TaskWeaver plugin file begins `from taskweaver.plugin import Plugin, register_plugin`. twnb ships
its own small implementation of that API (`twnb/plugins/taskweaver_api/`) and, the first time it
loads a plugin folder, puts a finder in `sys.meta_path` that answers for `taskweaver` and the modules
below it with that implementation, but only when no other finder can find `taskweaver`: an installed
TaskWeaver is always used as it is (twnb's loader works with either, see loading.py), and the two are
never mixed. A name the implementation does not have (`taskweaver.llm`, say) fails with Python's
usual ModuleNotFoundError. Before a plugin folder is loaded nothing is installed; once installed the
finder stays for the kernel's life (it changes nothing for a name it does not answer).

The finder stands first, not last: the implementation's package has a `__path__`, and a finder
further down would find `taskweaver.plugin.context` there as a file and import it a second time,
under the other name, with classes of its own (a `PluginContext` the `Plugin` class never uses).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

__all__ = ["TaskWeaverFinder", "install_taskweaver_finder"]

TOP = "taskweaver"
IMPLEMENTATION = "twnb.plugins.taskweaver_api"


class TaskWeaverFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers `taskweaver[.x]` with `twnb.plugins.taskweaver_api[.x]` when nothing else did."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != TOP and not fullname.startswith(TOP + "."):
            return None
        if fullname == TOP:
            if self._found_elsewhere(fullname, path, target):
                return None  # TaskWeaver is installed: use it
        elif getattr(sys.modules.get(TOP), "__name__", None) != IMPLEMENTATION:
            return None  # a real TaskWeaver is in use: never mix the two
        ours = IMPLEMENTATION + fullname[len(TOP) :]
        try:
            found = importlib.util.find_spec(ours)
        except ModuleNotFoundError:
            return None
        if found is None:
            return None
        spec = ModuleSpec(fullname, self, is_package=found.submodule_search_locations is not None)
        spec.loader_state = ours
        return spec

    def _found_elsewhere(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None) -> bool:
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            if finder.find_spec(fullname, path, target) is not None:
                return True
        return False

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        # The implementation's own module object: `taskweaver.plugin.Plugin` and
        # `twnb.plugins.taskweaver_api.plugin.Plugin` are one class.
        return importlib.import_module(str(spec.loader_state))

    def exec_module(self, module: ModuleType) -> None:
        """Already executed when it was imported under its own name."""


def install_taskweaver_finder() -> TaskWeaverFinder:
    """Put the finder first in `sys.meta_path`, once; returns the one installed."""
    for finder in sys.meta_path:
        if isinstance(finder, TaskWeaverFinder):
            return finder
    finder = TaskWeaverFinder()
    sys.meta_path.insert(0, finder)
    return finder
