"""What a confined kernel left in its writable folders that a later program obeys without asking twnb
(docs/architecture.md, "Residual gaps"), found by its warden once no process of the kernel is left:

- a `.git` (a repository's folder, or a `.git` file naming one) made or changed: git runs its
  `config`'s `core.fsmonitor` at every `git status` (shell prompts, editors and JupyterLab's git
  extension run it on their own) and its hooks; those at the top of a writable folder at the start were
  mounted read-only (twnb/confine/plan.py `git_places`) and are left alone;
- a module or package that would shadow an installed one (`yaml.py`, `pandas/__init__.py`,
  `yaml.pyc`, `json.cpython-312-x86_64-linux-gnu.so`): a Python started in that folder (the next plain
  kernel, `python script.py`) puts the folder before site-packages and imports it unconfined; so is
  one of a name nothing installs that an installed library imports if it finds it (`numexpr.py`,
  which `import pandas` runs: twnb/base/declared_imports.py, as the runtime guard judges it);
- a file a developer tool reads from the folder it starts in and obeys by running code: `conftest.py`
  (pytest runs it), `matplotlibrc` (matplotlib imports the backend it names), `mypy.ini` and
  `.mypy.ini` (mypy, which editors run on their own, imports the plugins they name), pytest's own
  configs (`addopts = -p NAME` imports a plugin), `.pdbrc` (pdb runs its lines), pylint's, coverage's,
  flake8's and pre-commit's (TOOL_FILES), those at the top of a writable folder at the start being
  mounted read-only (plan.py `TOOL_CONFIG`) and left alone; a `.vscode` folder made or moved in, or a
  file made or changed in one; a `pyproject.toml` or `setup.cfg`, mounted or not, only when the
  settings in it that make a tool run code differ from those at the start (tool_settings.py: a
  person edits these while the kernel runs, and a save by rename takes the mount away);
- a start-up file of the home folder (`~/.gitconfig`, `~/.bash_profile`, `~/.ipython`: plan.py's
  HOME_TRUST_BASE) that did not exist at the start inside a writable folder (a notebook in the home
  folder): one that exists is mounted read-only, but no mount holds an absent place; the launcher
  records those places, looked at where they are (no walk);
- a file of a folder's trust base (`twnb.yaml`, `AGENTS.md`, `TWNB.md`, and under a folder's `plugins/`
  and `.twnb/experience/`) below the notebook's folder, whose own are watched by baseline: a
  notebook in that sub-folder would load it.

The first four are moved aside where they are (`NAME.twnb-quarantined`: a name neither git nor Python
looks for, on the same file system, so the move is a rename), the fifth is entered as quarantined in
the record of the folder that holds it (the loaders there refuse it, saying so). "Made or changed"
is the entry's status-change time (ctime) at or after the session's start: unlike the modification
time, no process can set it back, and a rename or a new link sets it. The walk stops after
MAX_ENTRIES entries (a data folder may hold 100k files), said in the kernel's log; it does not enter
`.git` folders or symbolic links. A compiled module written in a `__pycache__` since the start is
removed: with a header naming its source's time and size (which the kernel can write) Python runs it
instead of the source, and a removed cache loses nothing (Python compiles the source again).

Run by the warden at a kernel's end and by the next reader that finishes a session left unended:
the standard library only.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from importlib.machinery import BYTECODE_SUFFIXES, EXTENSION_SUFFIXES, SOURCE_SUFFIXES
from typing import NamedTuple

from twnb.config import tool_settings

MAX_ENTRIES = 50_000
MOVED_SUFFIX = ".twnb-quarantined"
TRUST_NAMES = ("twnb.yaml", "AGENTS.md", "TWNB.md")  # quarantine.FOLDER_FILES
TRUST_FOLDERS = (("plugins",), (".twnb", "experience"))  # a folder's default plugin and experience folders
GIT = ".git"
# In a `.git` folder: what git obeys (a change to objects, refs or the index is the user's own git work)
GIT_OBEYED = ("config", "config.worktree", "commondir", "hooks", "info")
# ctime is taken from the coarse clock, behind the real time by at most a tick (4-10 ms)
CLOCK_SLACK_NS = 50_000_000
_SUFFIXES = {*SOURCE_SUFFIXES, *BYTECODE_SUFFIXES, *EXTENSION_SUFFIXES}
_MODULE_SUFFIXES = tuple(sorted(_SUFFIXES, key=len, reverse=True))  # the longest first: `.cpython-...so`
GIT_FOLDER = "a repository's .git (git runs its config and hooks)"
GIT_FILE = "a .git file (git runs the config of the folder it names)"
HOME_START_FILE = "a home folder start-up file absent at the start (a shell, git, Python or Jupyter obeys it)"
# What a tool started in the folder (or, for conftest.py, collecting tests below it) runs, by name
_MYPY_CONFIG = "a mypy config (mypy, which editors run on their own, imports the plugins it names)"
_PYTEST_CONFIG = "a pytest config (pytest, started here, imports the plugins its addopts and pythonpath name)"
_PYLINT_CONFIG = "a pylint config (pylint runs its init-hook and imports the plugins it names)"
TOOL_FILES = {
    "conftest.py": "a conftest.py (pytest runs it when it collects tests in its folder or below)",
    "matplotlibrc": "a matplotlibrc (matplotlib imports the backend it names at the next plot)",
    "mypy.ini": _MYPY_CONFIG,
    ".mypy.ini": _MYPY_CONFIG,
    "pytest.ini": _PYTEST_CONFIG,
    ".pytest.ini": _PYTEST_CONFIG,
    "pytest.toml": _PYTEST_CONFIG,
    ".pytest.toml": _PYTEST_CONFIG,
    "tox.ini": "a tox.ini (pytest imports the plugins its [pytest] names, tox runs its commands)",
    ".pdbrc": "a .pdbrc (pdb and IPython's %debug run its lines as Python when they start here)",
    "pylintrc": _PYLINT_CONFIG,
    ".pylintrc": _PYLINT_CONFIG,
    "pylintrc.toml": _PYLINT_CONFIG,
    ".pylintrc.toml": _PYLINT_CONFIG,
    ".coveragerc": "a .coveragerc (coverage imports the plugins it names)",
    ".flake8": "a .flake8 (flake8 imports the local plugins it names)",
    ".pre-commit-config.yaml": "a pre-commit config (its local hooks run their commands at git commit)",
    ".pre-commit-config.yml": "a pre-commit config (its local hooks run their commands at git commit)",
}
# Judged by their code-loading settings, not their name (tool_settings.py): a person edits them while
# a kernel runs, and a save by rename takes the read-only mount away
_JUDGED = (
    "with changed settings that make {tools} run code (addopts, pythonpath, plugins, init-hook, ...); "
    "any edit of yours is in the moved file"
)
JUDGED_FILES = {
    "pyproject.toml": "a pyproject.toml " + _JUDGED.format(tools="pytest, mypy, coverage, pylint or tox"),
    "setup.cfg": "a setup.cfg " + _JUDGED.format(tools="pytest, mypy, coverage, pylint, flake8 or tox"),
}
# VS Code obeys the files of a folder's `.vscode` as it opens the folder: the interpreter to run
# (settings.json), tasks that run on opening (tasks.json), MCP servers it starts (mcp.json)
EDITOR_FOLDER = ".vscode"
EDITOR_FOLDER_WHAT = (
    "a .vscode folder (VS Code runs the interpreter, tasks and servers it names on opening it)"
)
EDITOR_FILE_WHAT = "a file of a .vscode folder (VS Code runs the interpreter, tasks and servers it names)"


class Planted(NamedTuple):
    path: str  # absolute
    what: str  # what it is, in the record and in `twnb trust`'s list
    holder: str | None  # None: moved aside; else the folder in whose record it is quarantined


class Found(NamedTuple):
    planted: list[Planted]
    cut: bool  # the walk stopped at MAX_ENTRIES
    # compiled modules written in a `__pycache__` since the start: Python runs one instead of its
    # source when its header names the source's time and size, which the kernel can write; removed
    # (Python compiles the source again), never listed
    caches: list[str]


def module_name(name: str, is_dir: bool) -> str | None:
    """The top-level module an entry of a folder on sys.path provides, None when none."""
    if is_dir:
        return name if name.isidentifier() else None
    for suffix in _MODULE_SUFFIXES:
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            return stem if stem.isidentifier() else None
    return None


class LaterImports(Mapping[str, str]):
    """The top-level names a later program imports, each with why, said after "a module that": those
    this Python installs ("would shadow the installed yaml") and those nothing installs that an
    installed distribution declares as a requirement ("pandas imports if it finds it"). The declared
    names are read at the first look-up of a name not installed (~12 ms: a kernel's end that left no
    such module pays nothing for them)."""

    def __init__(
        self, installed: Iterable[str], declared: Callable[[], Mapping[str, tuple[str, ...]]] = dict
    ) -> None:
        self.installed = frozenset(installed)
        self._declare = declared
        self._declared: Mapping[str, tuple[str, ...]] | None = None

    def __getitem__(self, name: str) -> str:
        if name in self.installed:
            return f"would shadow the installed {name}"
        if self._declared is None:
            self._declared = self._declare()
        importers = self._declared.get(name)
        if not importers:
            raise KeyError(name)
        from twnb.base import importers_said  # lazy: declared_imports (~2 ms): not for an end that left none

        return importers_said(importers)

    def __iter__(self) -> Iterator[str]:
        if self._declared is None:
            self._declared = self._declare()
        return iter(self.installed | {name for name, importers in self._declared.items() if importers})

    def __len__(self) -> int:
        return sum(1 for _ in self)


def installed_modules(exclude: Iterable[str]) -> LaterImports:
    """The names a later program imports (LaterImports): those this Python imports from its own
    folders (the standard library and every sys.path entry outside the `exclude` folders), but the
    built-in ones, which no file shadows, and those the distributions installed there declare."""
    excluded = [os.path.realpath(folder) for folder in exclude]
    names = set(sys.stdlib_module_names)
    folders = []
    for entry in sys.path:
        if not entry:
            continue
        real = os.path.realpath(entry)
        if any(real == folder or real.startswith(folder + os.sep) for folder in excluded):
            continue
        folders.append(real)
        try:
            with os.scandir(real) as entries:
                for each in entries:
                    found = module_name(each.name, each.is_dir())
                    if found is not None:
                        names.add(found)
        except OSError:
            continue
    return LaterImports(names - set(sys.builtin_module_names), lambda: _declared(folders))


def _declared(folders: list[str]) -> Mapping[str, tuple[str, ...]]:
    from twnb.base import DeclaredImports  # lazy: declared_imports (~2 ms): the end waits for it

    return DeclaredImports().read(folders)


def _changed(path: str, since_ns: int) -> bool:
    try:
        return os.lstat(path).st_ctime_ns >= since_ns - CLOCK_SLACK_NS
    except OSError:
        return False


def _tree_changed(path: str, since_ns: int, budget: list[int]) -> bool:
    """Whether the entry, or anything under it (a package), changed since the start."""
    if _changed(path, since_ns):
        return True
    if os.path.islink(path) or not os.path.isdir(path):
        return False
    for parent, dirs, files in os.walk(path):
        budget[0] -= len(dirs) + len(files)
        if budget[0] < 0:
            return True  # too large to tell: taken as changed (moved aside, restorable)
        if any(_changed(os.path.join(parent, name), since_ns) for name in (*dirs, *files)):
            return True
    return False


def _git_changed(path: str, since_ns: int, budget: list[int]) -> bool:
    """Whether a `.git` was made, moved in, or what git obeys in it changed. A `.git` folder's own
    ctime alone is not enough: every `git status` renames `index.lock` over `index` in it (a person
    working in a repository below a writable home folder); one made or renamed in changes its parent
    folder too."""
    if os.path.islink(path) or not os.path.isdir(path):
        return _changed(path, since_ns)
    if any(_tree_changed(os.path.join(path, name), since_ns, budget) for name in GIT_OBEYED):
        return True
    return _made_here(path, since_ns)


def _made_here(path: str, since_ns: int) -> bool:
    """Whether a folder was made or moved in since the start: its own ctime and its parent's (a new
    entry); a file changed inside it changes neither."""
    return _changed(path, since_ns) and _changed(os.path.dirname(path), since_ns)


def _is_package(path: str) -> bool:
    try:
        return any(module_name(name, False) == "__init__" for name in os.listdir(path))
    except OSError:
        return False


def _trust_holder(relative: list[str]) -> int | None:
    """For a file's path (components below a writable folder), how many of them name the folder whose
    trust base it is part of, None when it is part of none."""
    if relative[-1] in TRUST_NAMES:
        return len(relative) - 1
    for index in range(len(relative) - 1):
        for place in TRUST_FOLDERS:
            if tuple(relative[index : index + len(place)]) == place and len(relative) > index + len(place):
                return index
    return None


def find_planted(
    folders: Iterable[str],
    *,
    notebook_dir: str,
    since_ns: int,
    fixed: Iterable[str],
    installed: LaterImports,
    absent: Iterable[str] = (),
    settings_at_start: Mapping[str, object] | None = None,
) -> Found:
    """What the kernel left in `folders` since `since_ns`; `fixed`: places mounted read-only at the
    start (left alone); `installed`: the module names a later program imports (installed_modules);
    `absent`: the home folder's trust-base places that did not exist at the start (looked at where they
    are, then left out of the walk); `settings_at_start`: the kept text of the JUDGED_FILES at the
    folders' tops then (tool_settings.py; a file of those names changed since is moved aside only when
    its code-loading settings differ, mounted read-only or not: a save from outside takes the mount
    away); the notebook folder's own trust base is the baseline's (quarantine.py)."""
    at_start = settings_at_start or {}
    fixed_paths = {os.path.realpath(p) for p in fixed}
    planted: list[Planted] = []
    for place in absent:
        if _changed(place, since_ns):  # a folder (`~/.ipython`) is moved whole
            planted.append(Planted(place, HOME_START_FILE, None))
            fixed_paths.add(os.path.realpath(place))
    caches: list[str] = []
    budget = [MAX_ENTRIES]
    roots = list(dict.fromkeys(os.path.realpath(folder) for folder in folders))
    # a folder inside another (the artifacts folder in the notebook's) is walked once, with it
    roots = [root for root in roots if not any(root.startswith(other + os.sep) for other in roots)]
    for root in roots:
        for parent, dirs, files in os.walk(root):
            budget[0] -= len(dirs) + len(files)
            if budget[0] < 0:
                return Found(planted, True, caches)
            # a package's own modules (`mypkg/logging.py`, `mypkg/yaml/`) are imported as
            # `mypkg.logging`: no shadow
            in_package = parent != root and any(module_name(name, False) == "__init__" for name in files)
            kept = []
            for name in dirs:
                path = os.path.join(parent, name)
                if name.endswith(MOVED_SUFFIX) or MOVED_SUFFIX + "-" in name:
                    continue  # moved aside before: out of every program's reach already
                if name == "__pycache__" and path not in fixed_paths:
                    caches += _new_caches(path, since_ns, budget)
                    continue
                # made or moved in: moved whole; else its files are looked at one by one
                if name == EDITOR_FOLDER and path not in fixed_paths and _made_here(path, since_ns):
                    planted.append(Planted(path, EDITOR_FOLDER_WHAT, None))
                    continue
                if path in fixed_paths or name in (GIT, "__pycache__"):
                    if name == GIT and path not in fixed_paths and _git_changed(path, since_ns, budget):
                        planted.append(Planted(path, GIT_FOLDER, None))
                    continue
                # a name only declared: looked up for a package changed since the start only (every
                # folder walked would read the declared names otherwise)
                shadows = not in_package and (
                    (name in installed.installed and _is_package(path))
                    or (_changed(path, since_ns) and _is_package(path) and name in installed)
                )
                if shadows and _tree_changed(path, since_ns, budget):
                    planted.append(Planted(path, f"a package that {installed[name]}", None))
                    continue
                kept.append(name)
            dirs[:] = sorted(kept)
            in_editor_folder = os.path.basename(parent) == EDITOR_FOLDER
            for name in files:
                path = os.path.join(parent, name)
                if name in JUDGED_FILES and _changed(path, since_ns):
                    if tool_settings.changed(path, at_start):
                        planted.append(Planted(path, JUDGED_FILES[name], None))
                    continue
                if path in fixed_paths or not _changed(path, since_ns):
                    continue
                if in_editor_folder:
                    planted.append(Planted(path, EDITOR_FILE_WHAT, None))
                    continue
                if name == GIT:
                    planted.append(Planted(path, GIT_FILE, None))
                    continue
                if name in TOOL_FILES:  # in a package too: pytest loads a package's conftest.py
                    planted.append(Planted(path, TOOL_FILES[name], None))
                    continue
                module = module_name(name, False)
                if module is not None and module in installed and not in_package:
                    planted.append(Planted(path, f"a module that {installed[module]}", None))
                    continue
                relative = os.path.relpath(path, root).split(os.sep)
                holder_depth = _trust_holder(relative)
                if holder_depth is None:
                    continue
                holder = os.path.join(root, *relative[:holder_depth])
                if holder != os.path.realpath(notebook_dir):
                    planted.append(Planted(path, "a file of that folder's trust base", holder))
    return Found(planted, False, caches)


def _new_caches(folder: str, since_ns: int, budget: list[int]) -> list[str]:
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    budget[0] -= len(names)
    return [
        os.path.join(folder, name)
        for name in names
        if name.endswith(tuple(BYTECODE_SUFFIXES)) and _changed(os.path.join(folder, name), since_ns)
    ]


def remove_caches(paths: Iterable[str]) -> int:
    """Remove the compiled modules; how many were."""
    removed = 0
    for path in paths:
        try:
            os.unlink(path)
            removed += 1
        except OSError:
            continue
    return removed


def move_aside(path: str) -> str:
    """Rename the entry beside itself to a name neither git nor Python looks for; the new path."""
    target = path + MOVED_SUFFIX
    count = 1
    while os.path.lexists(target):
        count += 1
        target = f"{path}{MOVED_SUFFIX}-{count}"
    os.rename(path, target)
    return target
