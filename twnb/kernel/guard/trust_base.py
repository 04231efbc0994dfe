"""The trust base: the files and folders whose content decides what twnb, Python, IPython and Jupyter
trust, which generated code may never write, whatever the route.

A Round that could write `twnb.yaml` (`code_interpreter: {verify: false}`), a plugin, an MCP server
entry, a `.pth` file in site-packages or an IPython start-up file would switch the guard off for every
later Round, or run its code unguarded in the next kernel. So, for an armed thread that refuses
(runtime_guard.py), every file event whose target resolves (symlinks and `..` followed, a hard link
recognised by its inode) into the trust base is refused:

- twnb's own places, given by the session: the settings files (`twnb.yaml` beside the notebook,
  `~/.config/twnb/`), `.env`, the plugin folders, the examples folder, the session folder (autosaves,
  cassettes, undo copies), the replayed cassette;
- where Python starts from: site-packages (global and the user's, `.pth` files), the standard library,
  the interpreter's scripts folder and `pyvenv.cfg`, and files named `sitecustomize.py` or
  `usercustomize.py` anywhere;
- IPython's folder (profiles, start-up files, extensions) and config files named as IPython and
  Jupyter look for them in the working folder (`ipython_config.py`, `jupyter_*_config.py`);
- Jupyter's config and data folders (kernelspecs, server and lab settings);
- the shell's start-up files (`~/.bashrc`, `~/.profile`, ...) and `PYTHONSTARTUP`;
- a module file or package that an import would find instead of an installed module of that name
  (`yaml.py` in the notebook's folder: shadowed_modules.py says which, and in what order), or of a
  name an installed library imports if it finds it (`numexpr.py`, which `import pandas` runs);
- git's: anything in a `.git` folder (or file) wherever it is, the repository folder a `.git` file of
  the working folder or one of its parents points to (a worktree's, a submodule's, and its common
  folder), `GIT_DIR`, and the user's git settings (`~/.gitconfig`, `~/.config/git/`). A repository's
  config runs commands at git's next command (`core.fsmonitor`, at each `git status` a shell prompt,
  an editor or jupyterlab-git runs), and so do its hooks.

`twnb.yaml` and `.env` are refused by name in every folder (a notebook in another folder reads its
own), and so are `matplotlibrc` (matplotlib reads the working folder's first: a backend it names is
imported by the next script's first plot), `conftest.py` (pytest imports it before any test) and
`mypy.ini`/`.mypy.ini` (mypy imports the plugins they name; editors run mypy as a file opens), and the
files other developer tools started in a folder obey by running code (TOOL_NAMES: pytest's configs,
`setup.cfg` and `pyproject.toml` among them, `.pdbrc`, pylint's, coverage's, flake8's and pre-commit's),
a `.vscode` folder and what is in one: refused with TOOL_HINT (tell the user what to change).
A `.pyc` in any `__pycache__` folder (or under `sys.pycache_prefix`) is denied with a plain
`PermissionError` and no refusal: the next import of the module it stands for, the user's own
`helpers.py` too, takes it for the source when its header's mtime and size match the source's (which
code can copy: the source stays untouched, so no diff shows it); the import system and libraries that
cache bytecode (numba) catch the error and go on without a cache, and the code the model wrote mostly
never meant it. A `__pycache__` that is a link elsewhere is refused as the trust base.

Changing the environment variables twnb reads (`TWNB_*`, `OPENAI_*`, `LLM_*`, `AZURE_*`) is refused
here too (rule `settings`): they are settings, changed by the user's hand only.

The checks cost nothing for events that are not file writes, moves, removals or environment changes
(the hook's set lookup decides), and a `realpath` (one `lstat` per path component) per write, plus
for a write that creates a file a dict lookup (is its folder one imports look in?) and, in such a
folder, a look at the name (shadowed_modules.py).

Stdlib only (IPython and jupyter_core are asked when present): sent as source to kernels where twnb is
not installed (kernel_guard.py).
"""

from __future__ import annotations

import contextlib
import errno
import os
import site
import stat
import sys
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from twnb.kernel.guard.guard_events import FileEffect
from twnb.kernel.guard.shadowed_modules import ModuleShadows

# Environment variables twnb reads its settings and keys from.
SETTINGS_ENV_PREFIXES = ("TWNB_", "OPENAI_", "LLM_", "AZURE_")
# Files refused by name wherever they are: twnb's settings, and what Python, IPython and Jupyter load
# from any folder they start in.
PROTECTED_NAMES = frozenset(
    {
        "twnb.yaml",
        ".env",
        "sitecustomize.py",
        "usercustomize.py",
        "ipython_config.py",
        "ipython_kernel_config.py",
        # matplotlib reads ./matplotlibrc first: the backend it names is imported at the next plot
        "matplotlibrc",
        # pytest imports it from the folder it starts in, before any test
        "conftest.py",
        # mypy imports the plugins they name, when an editor runs it on opening a file too
        "mypy.ini",
        ".mypy.ini",
    }
)
# Files a developer tool started in their folder reads and obeys by running code, refused by name
# wherever they are: pytest imports the plugins `addopts = -p NAME` names (with `pythonpath = .`, a
# module of the folder), pdb and IPython's %debug run `.pdbrc`'s lines, pylint runs `init-hook`,
# coverage, flake8 and mypy import the plugins their sections name, pre-commit runs a `repo: local`
# hook's command at `git commit`, VS Code runs a `.vscode` folder's tasks and interpreter as it
# opens it (the folder's name is held too: a folder made elsewhere and renamed to it).
TOOL_NAMES = frozenset(
    {
        "pytest.ini",
        ".pytest.ini",
        "pytest.toml",
        ".pytest.toml",
        "tox.ini",
        "setup.cfg",
        "pyproject.toml",
        ".pdbrc",
        "pylintrc",
        ".pylintrc",
        "pylintrc.toml",
        ".pylintrc.toml",
        ".coveragerc",
        ".flake8",
        ".pre-commit-config.yaml",
        ".pre-commit-config.yml",
    }
)
EDITOR_FOLDER = ".vscode"
# Events that are not file effects (guard_events.file_effect) but change the trust base.
TRUST_ONLY_EVENTS = frozenset({"os.mkdir", "os.chmod", "os.chown"})
_ENV_EVENTS = frozenset({"os.putenv", "os.unsetenv"})
# Events after which a path may resolve elsewhere than before.
_CHANGING_EVENTS = frozenset({"os.rename", "os.remove", "os.rmdir", "shutil.rmtree", "os.symlink", "os.link"})
_FOLDERS_KEPT = 4096
_SHELL_FILES = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".kshrc",
    ".cshrc",
    ".tcshrc",
    ".pythonrc",
    ".pythonrc.py",
)

TRUST_BASE_HINT = (
    "Write results into the notebook's folder or a sub-folder of it (outputs/, say). twnb's settings, "
    "plugins and MCP servers, and the files Python, IPython and Jupyter load at start, are changed by "
    "the user only."
)
GIT_FOLDER = "a git repository's folder (.git), whose config and hooks run commands at git's next command"
BYTECODE_CACHE = "compiled bytecode that the next import of a module takes in place of its source"
GIT_SETTINGS = "the user's git settings, which run commands at git's next command"
SHADOW_HINT = (
    "Give your own module a name no installed module has and no installed library imports "
    "(`my_yaml_tools.py`, say): a module of such a name would be imported in its place, or by the "
    "library, in this kernel and the next."
)
GIT_HINT = (
    "Leave the git repository to the user: write results into the notebook's folder and tell the user "
    "what to commit or configure."
)
TOOL_HINT = (
    "Leave the project's tool settings to the user: say what you would change in that file and let "
    "the user make the change; other files (data, reports, your own modules) may be written as ever."
)
SETTINGS_HINT = (
    "Generated code may not change twnb's settings or the variables twnb reads them from; pass values "
    "to the functions that need them instead, and tell the user which setting to change."
)


@dataclass(frozen=True)
class TrustBase:
    """The places of one process's trust base, as real paths: `folders` (everything below them) and
    `files`, each with what it is (said in the refusal); `identities`: (device, inode) of the
    protected files that exist, so a hard link to one is recognised."""

    folders: tuple[tuple[str, str], ...]
    files: dict[str, str] = field(default_factory=dict)
    identities: frozenset[tuple[int, int]] = frozenset()
    # the folders themselves, by real path (a write that names one: `mkdir plugins`)
    _exact: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    # which module files would shadow an installed module (shadowed_modules.py)
    shadows: ModuleShadows = field(default_factory=ModuleShadows, compare=False, repr=False)
    # caches: a folder's real path, and what the trust base holds there ("" when nothing)
    _real_folders: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    _verdicts: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._exact.update(self.folders)

    @classmethod
    def build(
        cls,
        twnb_folders: Iterable[str | os.PathLike[str]] = (),
        twnb_files: Iterable[str | os.PathLike[str]] = (),
        working_folders: Iterable[str | os.PathLike[str]] = (),
    ) -> TrustBase:
        """This process's trust base: Python's, IPython's, Jupyter's, git's and the shell's places, plus
        twnb's folders and files (given by the session: plugin folders, the session folder, ...).
        `working_folders`: where the kernel works (the notebook's folder), besides the working folder
        now: their git repositories, and the modules an import would find there first."""
        folders: dict[str, str] = {}
        files: dict[str, str] = {}

        def folder(path: Any, what: str) -> None:
            if path:
                folders.setdefault(os.path.realpath(os.fspath(path)), what)

        def file(path: Any, what: str) -> None:
            if path:
                files.setdefault(os.path.realpath(os.fspath(path)), what)

        for path in twnb_folders:
            folder(path, "one of twnb's own folders (settings, plugins, examples, sessions)")
        for path in twnb_files:
            file(path, "one of twnb's settings files")
        home = os.path.expanduser("~")
        folder(os.path.join(home, ".config", "twnb"), "twnb's user settings")
        _python_places(folder, file)
        _ipython_places(folder)
        _jupyter_places(folder)
        for name in _SHELL_FILES:
            file(os.path.join(home, name), "a shell start-up file")
        folder(os.path.join(home, ".config", "fish"), "the fish shell's start-up files")
        file(os.environ.get("PYTHONSTARTUP"), "Python's start-up file (PYTHONSTARTUP)")
        working = [os.fspath(p) for p in working_folders]
        with contextlib.suppress(OSError):  # the working folder was removed
            working.insert(0, os.getcwd())
        _git_places(folder, file, working)
        identities = set()
        for path in files:
            try:
                info = os.stat(path)
            except OSError:
                continue
            identities.add((info.st_dev, info.st_ino))
        # the innermost folder first: a write into site-packages is named as site-packages, not as
        # the standard library folder that holds it
        ordered = tuple(sorted(folders.items(), key=lambda item: (-len(item[0]), item[0])))
        return cls(ordered, files, frozenset(identities), shadows=ModuleShadows(working))

    def holds(self, path: str) -> str:
        """What the trust base place holding `path` (absolute) is, "" when it is not in it. Symlinks
        and `..` are resolved; a hard link to a protected file is one."""
        return self._holds(path, None)[0]

    def _holds(self, path: str, source: str | None) -> tuple[str, str]:
        """(what holds `path`, the hint for the code), ("", "") when nothing. `source`: not None when
        the act creates a file at `path` (what is moved or linked there, "" for a write): then a module
        that would shadow an installed one is held too.

        Per write: one `lstat` of the file; its folder's real path and verdict are kept (the code
        writing thousands of files into one folder pays for the folder once), and forgotten whenever
        the code moves, removes or links anything (`judge`), which is how a folder on the way could
        come to resolve elsewhere (a link into the trust base is refused where it is made)."""
        folder, name = os.path.split(path)
        if _protected_name(name):
            return f"a settings file Python, IPython, Jupyter or twnb loads ({name})", ""
        if _tool_file(folder, name):
            return _tool_what(name), TOOL_HINT
        if _GIT_PART in path or path.endswith(_GIT_END):
            return GIT_FOLDER, GIT_HINT
        try:
            info: os.stat_result | None = os.lstat(path)
        except OSError:
            info = None
        named_folder = ""
        if info is not None and stat.S_ISLNK(info.st_mode):
            real = os.path.realpath(path)
            folder, name = os.path.split(real)
            if _protected_name(name):
                return f"a settings file Python, IPython, Jupyter or twnb loads ({name})", ""
            if _tool_file(folder, name):
                return _tool_what(name), TOOL_HINT
            real_folder = folder
            named_folder = self._real_folders.get(os.path.dirname(path)) or self._real_folder(
                os.path.dirname(path)
            )
            try:
                info = os.stat(real)
            except OSError:
                info = None
        else:
            real_folder = self._real_folders.get(folder) or self._real_folder(folder)
            real = os.path.join(real_folder, name)
        if _GIT_PART in real or real.endswith(_GIT_END):
            return GIT_FOLDER, GIT_HINT
        if _bytecode_cache(path) or _bytecode_cache(real):
            return BYTECODE_CACHE, ""
        what = self.files.get(real) or self._exact.get(real) or self._folder_verdict(real_folder)
        if what:
            return what, _hint(what)
        if info is not None and info.st_nlink > 1 and (info.st_dev, info.st_ino) in self.identities:
            return "a hard link to one of the settings or start-up files", ""
        if source is not None:
            shadowed = self.shadows.shadow(real_folder, name, source)
            if not shadowed and named_folder:  # a link named as a module: an import follows it
                shadowed = self.shadows.shadow(named_folder, os.path.basename(path), source or real)
            if shadowed:
                return f"a module Python would import as {shadowed}", SHADOW_HINT
        return "", ""

    def _real_folder(self, folder: str) -> str:
        """`folder`'s real path, kept (callers look in `_real_folders` first: the per-write path)."""
        if len(self._real_folders) > _FOLDERS_KEPT:
            self._real_folders.clear()
        real_folder = self._real_folders[folder] = os.path.realpath(folder)
        return real_folder

    def _folder_verdict(self, real_folder: str) -> str:
        verdict = self._verdicts.get(real_folder)
        if verdict is None:
            if len(self._verdicts) > _FOLDERS_KEPT:
                self._verdicts.clear()
            verdict = self._verdicts[real_folder] = next(
                (what for root, what in self.folders if _under(real_folder, root)), ""
            )
        return verdict

    def holds_below(self, path: str) -> str:
        """What the trust base holds inside folder `path` (or `path` itself), "" when nothing."""
        inside = self.holds(path)
        if inside:
            return inside
        real = os.path.realpath(path).rstrip(os.sep) + os.sep
        for place, what in (*self.folders, *self.files.items()):
            if place.startswith(real):
                return what
        return ""

    def judge(self, event: str, args: tuple[Any, ...], effect: FileEffect | None) -> Verdict | None:
        """Whether generated code may do what `event` says; None when it may."""
        if event in _CHANGING_EVENTS:
            self._real_folders.clear()  # a folder on the way may resolve elsewhere from now on
        if event in _ENV_EVENTS:
            name = args[0] if args else ""
            text = os.fsdecode(name) if isinstance(name, str | bytes) else str(name)
            if text.upper().startswith(SETTINGS_ENV_PREFIXES):
                verb = "setting" if event == "os.putenv" else "removing"
                return Verdict(
                    "settings",
                    text,
                    f"{verb} the environment variable {text} is not allowed for generated code: twnb reads "
                    "its settings from it, and they change by the user's hand only.",
                )
            return None
        if event == "os.chdir":
            self.shadows.stale()  # which folder imports look in first has changed
            return None
        # (path, what the code does to it, when it makes a file there: what is moved or linked there)
        targets: list[tuple[str, str, str | None]] = []
        if effect is not None:
            if effect.kind == "remove_tree":
                what = self.holds_below(effect.path)
                return self._verdict(effect.path, "removing", what, _hint(what)) if what else None
            verbs = {"write": "writing", "maybe_write": "opening a database at", "move": "moving a file to"}
            linked = ""
            if event in ("os.symlink", "os.link") and len(args) >= 2:
                linked = _absolute(args[0], effect.path if event == "os.symlink" else "")
            made = (effect.source or linked) if effect.kind in verbs else None
            targets.append((effect.path, verbs.get(effect.kind, "removing"), made))
            if effect.source:
                targets.append((effect.source, "moving away", None))
            if linked:
                link = "a symbolic link to" if event == "os.symlink" else "a hard link to"
                targets.append((linked, f"making {link}", None))
        elif event in TRUST_ONLY_EVENTS and args:
            path = _absolute(args[0], "")
            if path:
                verb = "making the folder" if event == "os.mkdir" else "changing the permissions of"
                targets.append((path, verb, None))
        for path, verb, made in targets:
            what, hint = self._holds(path, made)
            if what:
                return self._verdict(path, verb, what, hint)
        return None

    def new_run(self) -> None:
        """A run begins: what sys.path's folders hold is looked at again at its first write."""
        self.shadows.stale()

    @staticmethod
    def _verdict(path: str, verb: str, what: str, hint: str = "") -> Verdict:
        parts = os.path.realpath(path).split(os.sep)
        if "__pycache__" in parts or _in_cache_prefix(path):
            return Verdict("cache", path, "")
        return Verdict(
            "trust-base",
            path,
            f"{verb} {path} is not allowed for generated code: it is {what}, part of what twnb, Python, "
            "IPython and Jupyter trust.",
            hint,
        )


@dataclass(frozen=True)
class Verdict:
    """What the trust base says of an event: `kind` "trust-base" or "settings" (a refusal: `subject`,
    `message`, `hint`), or "cache" (a bytecode cache write in the trust base: denied as a PermissionError)."""

    kind: str
    subject: str
    message: str
    hint: str = ""  # what the code may do instead, when the trust base's general hint does not say it

    def denial(self) -> OSError:
        return PermissionError(
            errno.EACCES, "twnb: the trust base is not writable by generated code", self.subject
        )


def settings_environment(environ: Any = None) -> dict[str, str]:
    """The environment variables twnb reads (by prefix) and their values, to compare after a run."""
    environ = os.environ if environ is None else environ
    return {k: v for k, v in environ.items() if k.upper().startswith(SETTINGS_ENV_PREFIXES)}


def restore_settings_environment(before: dict[str, str]) -> list[str]:
    """Put the settings' environment variables back as they were in `before`; the names changed."""
    now = settings_environment()
    changed = sorted(k for k in set(before) | set(now) if before.get(k) != now.get(k))
    for name in changed:
        if name in before:
            os.environ[name] = before[name]
        else:
            os.environ.pop(name, None)
    return changed


def _bytecode_cache(path: str) -> bool:
    """A `.pyc` in a `__pycache__` folder or under `sys.pycache_prefix` (PYTHONPYCACHEPREFIX): the next
    import of the module it stands for takes it for the source when its header's mtime and size match
    the source's, which the code can copy."""
    folder, name = os.path.split(path)
    return name.endswith(".pyc") and (os.path.basename(folder) == "__pycache__" or _in_cache_prefix(path))


def _in_cache_prefix(path: str) -> bool:
    prefix = sys.pycache_prefix
    return prefix is not None and _under(os.path.realpath(path), os.path.realpath(prefix))


def _protected_name(name: str) -> bool:
    return name in PROTECTED_NAMES or (
        name.startswith("jupyter_") and name.endswith(("_config.py", "_config.json"))
    )


def _tool_file(folder: str, name: str) -> bool:
    """A file a developer tool obeys by running code (TOOL_NAMES), a `.vscode` folder or a file in one."""
    return name in TOOL_NAMES or name == EDITOR_FOLDER or os.path.basename(folder) == EDITOR_FOLDER


def _tool_what(name: str) -> str:
    if name in TOOL_NAMES:
        return f"a file developer tools started in its folder obey by running the code it names ({name})"
    return "VS Code's settings for the folder, whose tasks and interpreter it runs on opening it (.vscode)"


# a path is a `.git` folder or file, or inside one
_GIT_END = os.sep + ".git"
_GIT_PART = _GIT_END + os.sep


def _hint(what: str) -> str:
    """The hint for a place whose refusal the trust base's general hint does not say well."""
    return GIT_HINT if what in (GIT_FOLDER, GIT_SETTINGS) else ""


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root if root == os.sep else root + os.sep)


def _absolute(path: Any, beside: str) -> str:
    """An event's path argument as an absolute path ("" for a descriptor or anything unreadable); a
    relative symlink target is read from the link's folder (`beside`)."""
    if isinstance(path, int) or path is None:
        return ""
    try:
        text = os.fsdecode(os.fspath(path))
    except (TypeError, ValueError):
        return ""
    if beside and not os.path.isabs(text):
        text = os.path.join(os.path.dirname(beside), text)
    return os.path.abspath(text)


def _python_places(folder: Any, file: Any) -> None:
    packages = "site-packages, whose .pth files Python runs at start"
    with contextlib.suppress(AttributeError):  # an old virtualenv's site module has neither
        for path in site.getsitepackages():
            folder(path, packages)
    with contextlib.suppress(AttributeError):
        folder(site.getusersitepackages(), packages)
    paths = sysconfig.get_paths()
    for key in ("purelib", "platlib"):
        folder(paths.get(key), packages)
    for key in ("stdlib", "platstdlib"):
        folder(paths.get(key), "Python's standard library")
    folder(paths.get("scripts"), "the Python environment's programs folder")
    file(os.path.join(sys.prefix, "pyvenv.cfg"), "the Python environment's settings (pyvenv.cfg)")


def _git_places(folder: Any, file: Any, working: list[str]) -> None:
    """git's places besides every `.git` (held by name): the repository folder a `.git` file of a
    working folder or one of its parents names (`gitdir: ...`, a worktree's or a submodule's) and
    that one's common folder, `GIT_DIR`, and the user's git settings."""
    for start in working:
        here = os.path.abspath(start)
        while True:
            dot_git = os.path.join(here, ".git")
            gitdir = _gitdir_named(dot_git, here)
            common = _gitdir_named(os.path.join(gitdir, "commondir"), gitdir, prefix="") if gitdir else ""
            for repository in (gitdir, common):
                folder(repository, GIT_FOLDER)
            for repository in (dot_git, gitdir, common):
                if repository:  # its config by inode too: a hard link made to it elsewhere is seen
                    file(os.path.join(repository, "config"), GIT_FOLDER)
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
    for variable in ("GIT_DIR", "GIT_COMMON_DIR"):
        value = os.environ.get(variable)
        if value:
            folder(os.path.abspath(value), GIT_FOLDER)
    home = os.path.expanduser("~")
    file(os.path.join(home, ".gitconfig"), GIT_SETTINGS)
    file(os.environ.get("GIT_CONFIG_GLOBAL"), GIT_SETTINGS)
    config_home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    folder(os.path.join(config_home, "git"), GIT_SETTINGS)


def _gitdir_named(pointer: str, beside: str, prefix: str = "gitdir:") -> str:
    """The folder a git pointer file names (`.git` file: "gitdir: PATH"; `commondir`: "PATH"), read
    from `beside` when relative; "" when `pointer` is not such a file."""
    try:
        if not os.path.isfile(pointer):
            return ""
        with open(pointer, encoding="utf-8") as f:
            text = f.read(4096).strip()
    except (OSError, UnicodeDecodeError):
        return ""
    if not text.startswith(prefix):
        return ""
    named = text[len(prefix) :].strip()
    return os.path.normpath(os.path.join(beside, named)) if named else ""


def _ipython_places(folder: Any) -> None:
    what = "IPython's folder (profiles, start-up files, extensions)"
    try:
        from IPython.paths import get_ipython_dir  # lazy: IPython (~170 ms), absent in some kernels

        folder(get_ipython_dir(), what)
    except Exception:  # no IPython here, or it could not say
        pass
    folder(os.environ.get("IPYTHONDIR"), what)
    folder(os.path.join(os.path.expanduser("~"), ".ipython"), what)


def _jupyter_places(folder: Any) -> None:
    config = "one of Jupyter's config folders"
    data = "one of Jupyter's data folders (kernelspecs, extensions)"
    try:
        from jupyter_core import paths  # lazy: ~40 ms, absent in some kernels

        for path in paths.jupyter_config_path():
            folder(path, config)
        for path in paths.jupyter_path():
            folder(path, data)
        folder(paths.jupyter_config_dir(), config)
        folder(paths.jupyter_data_dir(), data)
    except Exception:  # no jupyter_core here: its defaults
        pass
    home = os.path.expanduser("~")
    folder(os.environ.get("JUPYTER_CONFIG_DIR") or os.path.join(home, ".jupyter"), config)
    folder(os.environ.get("JUPYTER_DATA_DIR") or os.path.join(home, ".local", "share", "jupyter"), data)
    for variable, what in (("JUPYTER_PATH", data), ("JUPYTER_CONFIG_PATH", config)):
        for path in (os.environ.get(variable) or "").split(os.pathsep):
            folder(path, what)
