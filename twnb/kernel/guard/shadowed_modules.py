"""Module files that would shadow an installed module: part of the trust base (trust_base.py).

An import looks for a top-level name in each folder of `sys.path` in turn and takes the first module
or regular package it finds. A file written into a folder that comes before the one holding an
installed module of that name (`yaml.py`, `pandas/__init__.py`, a sourceless `numpy.pyc`, an extension
module `yaml.cpython-311-x86_64-linux-gnu.so`, a package folder renamed or linked to `pandas`) is what
the next `import` of that name runs: in this kernel for a module not imported yet, in the next kernel
started in the notebook's folder (unguarded until twnb loads, and twnb's own load imports yaml), and in
`python script.py`, `python -m ...` or `python -c` started there.

The order judged is the one those processes use (measured on 3.11: an ipykernel has the working folder,
`''`, after the standard library and before site-packages; `python script.py`, `-m` and `-c` put the
script's folder or the working folder first, before the standard library):
- a folder on `sys.path`: its place there (`''` is the working folder);
- the working folder (now, and the notebook's folder the kernel started in): first, before every folder
  of `sys.path`, as a script started there has it. So a standard library name (`json.py`) is refused
  there too.

A name is shadowed when a module or regular package of that name is found in a later folder, or when
other folders hold it only as a namespace package (folders without `__init__`: a regular package comes
first wherever it is). A name nothing provides is judged too, in any of those folders, when an
installed distribution declares it as a requirement (twnb/base/declared_imports.py): pandas imports
`numexpr` and `bottleneck` at `import pandas` when it finds them, so a `numexpr.py` there runs at the
next kernel's or script's `import pandas`.

Free: names that import nothing today and that no installed library declares (`helpers.py`), a module
the same folder or an earlier one already provides (writing it again changes nothing about what is
imported), built-in modules (found before any folder), and plain folders (`mkdir pandas`: a namespace
portion never comes before a regular package; its `__init__.py` is judged when written). Under a name
only a library declares, a plain folder runs no code either, though the library may fail on the
namespace package it imports (pandas does on a `bottleneck/` at `import pandas`): refusing `mkdir
tables` would cost a common output folder's name to stop a nuisance. A folder moved or linked under an
installed or declared module's name is judged as a package (a link's `__init__.py` could be written
through the folder's other name), under a namespace package's name only when it holds an `__init__`.
A module found by a finder of its own (an editable install) and already imported counts as found after
every folder.

Not judged: sub-modules of a namespace package (`google/protobuf/__init__.py` in the working folder, when
`google` is a namespace package), zip files on `sys.path`, and folders a script elsewhere would start from.

Cost: a write into a folder that is neither on `sys.path` nor the working folder costs a list compare
(has `sys.path` changed?) and a dict lookup. What each folder provides is listed at the first write of a
run (one `stat` per folder of `sys.path`; a folder is listed again, one `scandir` and a `stat` per
sub-folder for its `__init__`, only when its modification time changed), and again when `sys.path` or
the working folder changes. The declared names are read at the first write of a name nothing provides
(187 distributions in ~10 ms, once per process; a `stat` per folder at the next refresh;
bench/bench_declared_imports.py), never for a write of an installed module's name.

Stdlib only (and twnb/base/declared_imports.py, sent with it): sent as source to kernels where twnb is
not installed (kernel_guard.py).
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from twnb.base import DeclaredImports, importers_said

MODULE_SUFFIXES = tuple(importlib.machinery.all_suffixes())
_INIT = "__init__"
# what a folder holds under a name: a module or regular package, or a namespace portion
_REGULAR, _PORTION = 1, 2
_AFTER_ALL = 1 << 30
# what installed distributions declare, read once per process (all ModuleShadows share it)
_DECLARED = DeclaredImports()


def module_name(file_name: str) -> str:
    """The top-level name a file of this name is imported as from its folder, "" when none."""
    if not file_name.endswith(MODULE_SUFFIXES):
        return ""
    for suffix in MODULE_SUFFIXES:
        if file_name.endswith(suffix):
            stem = file_name[: -len(suffix)]
            if stem.isidentifier():
                return stem
    return ""


@dataclass(frozen=True)
class _Listing:
    """What one folder provides, by top-level name, as of its modification time."""

    mtime_ns: int
    names: dict[str, int]


@dataclass(frozen=True)
class _Index:
    """sys.path and the working folder as of one refresh: each folder's place (first occurrence), the
    working folders (placed before all), and where each name is found (folders in sys.path order)."""

    path: list[str]
    cwd: str
    places: dict[str, int]
    working: frozenset[str]
    regular: dict[str, tuple[str, ...]]
    portions: dict[str, tuple[str, ...]]


class ModuleShadows:
    """Whether writing a file would shadow an installed module. `started_in`: the folders the kernel
    runs in (the notebook's), besides the working folder at each refresh."""

    def __init__(
        self, started_in: Iterable[str | os.PathLike[str]] = (), declared: DeclaredImports = _DECLARED
    ) -> None:
        self.started_in = frozenset(os.path.realpath(os.fspath(p)) for p in started_in)
        self.declared = declared
        self._index: _Index | None = None
        self._listings: dict[str, _Listing] = {}
        # the declared names as of one index (read when a name nothing provides is first judged)
        self._declared_for: tuple[_Index, Mapping[str, tuple[str, ...]]] | None = None

    def stale(self) -> None:
        """Look at sys.path, the working folder and the folders' contents again at the next write (a
        new run begins, or the code changed the working folder)."""
        self._index = None

    def shadow(self, real_folder: str, name: str, source: str = "") -> str:
        """What a file `name` made in `real_folder` (a real path) would be imported in place of, said
        as "`yaml` in place of the one in /…/site-packages"; "" when nothing. `source`: what is moved
        or linked there (a folder named as a module is a package)."""
        index = self._index
        if index is None or index.path != sys.path:
            index = self._refresh()
        places, working = index.places, index.working
        if real_folder not in places and real_folder not in working:
            if name.startswith(_INIT) and module_name(name) == _INIT:
                folder, package = os.path.split(real_folder)  # a package's __init__ makes it one
                if folder in places or folder in working:
                    return self._judge(index, folder, package)
            return ""
        top = module_name(name)
        if top:
            return self._judge(index, real_folder, top)
        if source and os.path.isdir(source) and (name in index.regular or self._importers(index, name)):
            return self._judge(index, real_folder, name)  # a folder moved or linked here: a package
        if source and name in index.portions and _provides(source, _INIT):
            return self._judge(index, real_folder, name)  # a package, before namespace portions
        return ""

    def _judge(self, index: _Index, folder: str, name: str) -> str:
        if name == _INIT:
            return ""
        importers = () if name in index.regular else self._importers(index, name)
        if not (importers or name in index.regular or name in index.portions):
            return ""  # imports nothing today, and no installed library tries to
        if _provides(folder, name):
            return ""  # the folder already provides it: nothing changes for an import
        place = -1 if folder in index.working else index.places[folder]
        found = [f for f in index.regular.get(name, ()) if f != folder]
        if any(index.places.get(f, _AFTER_ALL) < place for f in found):
            return ""  # an earlier folder provides it: it still wins
        if found:
            return f"`{name}` in place of the one in {found[0]}"
        if any(f != folder for f in index.portions.get(name, ())):
            return f"`{name}` in place of the namespace package in {index.portions[name][0]}"
        if importers:  # nothing provides it (but namespace portions, here): the library imports this
            return f"`{name}`, which {importers_said(importers)}"
        return ""

    def _importers(self, index: _Index, name: str) -> tuple[str, ...]:
        """The installed distributions that declare `name` (in the folders of sys.path, but the
        working ones: what is written there is no installed distribution)."""
        if not name.isidentifier():
            return ()
        kept = self._declared_for
        if kept is None or kept[0] is not index:
            folders = [folder for folder in index.places if folder not in index.working]
            kept = self._declared_for = (index, self.declared.read(folders))
        return kept[1].get(name, ())

    def _refresh(self) -> _Index:
        path = list(sys.path)
        try:
            cwd = os.path.realpath(os.getcwd())
        except OSError:  # the working folder was removed
            cwd = ""
        places: dict[str, int] = {}
        for place, entry in enumerate(path):
            if not isinstance(entry, str):
                continue
            folder = os.path.realpath(os.path.join(cwd, entry)) if cwd or os.path.isabs(entry) else ""
            if folder and folder not in places:
                places[folder] = place
        working = frozenset(f for f in (*self.started_in, cwd) if f)
        regular: dict[str, list[str]] = {}
        portions: dict[str, list[str]] = {}
        for folder in places:  # in sys.path order
            for name, kind in self._listing(folder).items():
                (regular if kind == _REGULAR else portions).setdefault(name, []).append(folder)
        for name, module in list(sys.modules.items()):
            if "." not in name and name not in regular:
                home = _home(module)
                if home:
                    regular[name] = [home]
        index = _Index(
            path,
            cwd,
            places,
            working,
            {name: tuple(folders) for name, folders in regular.items()},
            {name: tuple(folders) for name, folders in portions.items() if name not in regular},
        )
        self._index = index
        return index

    def _listing(self, folder: str) -> dict[str, int]:
        try:
            mtime_ns = os.stat(folder).st_mtime_ns
        except OSError:
            return {}
        kept = self._listings.get(folder)
        if kept is not None and kept.mtime_ns == mtime_ns:
            return kept.names
        names: dict[str, int] = {}
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    name = entry.name
                    try:
                        is_folder = entry.is_dir()
                    except OSError:
                        continue
                    if is_folder:
                        if name.isidentifier() and name != "__pycache__":
                            kind = _REGULAR if _provides(entry.path, _INIT) else _PORTION
                            if names.get(name) != _REGULAR:
                                names[name] = kind
                    else:
                        top = module_name(name)
                        if top and top != _INIT:
                            names[top] = _REGULAR
        except OSError:  # not a folder (a zip file), or unreadable
            return {}
        self._listings[folder] = _Listing(mtime_ns, names)
        return names


def _provides(folder: str, name: str) -> bool:
    """Whether `folder` holds a module `name` (a file with a module suffix, or a regular package)."""
    base = os.path.join(folder, name)
    for suffix in MODULE_SUFFIXES:
        if os.path.isfile(base + suffix):
            return True
    if name == _INIT:
        return False
    return any(os.path.isfile(os.path.join(base, _INIT + suffix)) for suffix in MODULE_SUFFIXES)


def _home(module: object) -> str:
    """The folder an imported top-level module was found in (for a package, the one holding its
    folder), as a real path; "" for a built-in or frozen module, or one that is not a file."""
    spec = getattr(module, "__spec__", None)
    origin = getattr(spec, "origin", None)
    if not isinstance(origin, str) or not os.path.isabs(origin):
        return ""
    folder = os.path.dirname(origin)
    if getattr(spec, "submodule_search_locations", None) is not None:
        folder = os.path.dirname(folder)
    return os.path.realpath(folder)
