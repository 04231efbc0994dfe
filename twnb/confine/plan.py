"""What a confined kernel may read, write, run and connect to, worked out from the notebook's folder,
the settings and this Python's installation (docs/architecture.md, "Confined kernels")."""

from __future__ import annotations

import os
import site
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from twnb.confine.launch_settings import LaunchSettings

# Read, never written: the system and the devices every program opens.
SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/opt", "/proc", "/sys", "/dev")
SYSTEM_READ_OPTIONAL = ("/run/systemd/resolve", "/var/lib/fontconfig", "/var/cache/fontconfig")
DEVICES_WRITE = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
# Where POSIX shared memory and named semaphores live (multiprocessing's locks, queues and pools): the
# kernel gets a private, size-capped tmpfs there, writable, which no other process sees.
SHARED_MEMORY = "/dev/shm"
# Its cap: ample for semaphores and queues (bytes each) and for tensors a forked data loader shares
# (Docker's 64 MB is known to be too small for those), well short of the host's half of memory.
SHARED_MEMORY_SIZE = "1g"

# In the home folder: secrets a confined kernel never reads, even when a readable folder holds them.
HOME_SECRETS = (
    ".ssh",
    ".aws",
    ".azure",
    ".config",
    ".netrc",
    ".gnupg",
    ".docker",
    ".kube",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
    ".mozilla",
    ".password-store",
    ".local/share/keyrings",
    ".cache/mozilla",
    ".cache/chromium",
    ".cache/google-chrome",
    ".bash_history",
    ".python_history",
    ".zsh_history",
)
# In the home folder: what programs load and obey at start, read-only even inside a writable folder.
HOME_TRUST_BASE = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".pythonrc",
    ".pythonstartup",
    ".ipython",
    ".jupyter",
    ".local/lib",
    ".local/bin",
    ".local/share/jupyter",
    ".condarc",
    ".pip",
    ".gitconfig",  # git obeys it everywhere: core.fsmonitor, core.hooksPath, aliases run commands
)
# In the notebook's folder: twnb's own trust base (settings, plugins, rules), and the `.env` that
# holds the key, emptied.
FOLDER_TRUST_BASE = ("twnb.yaml", "AGENTS.md", "TWNB.md")
FOLDER_SECRETS = (".env",)
# At the top of a writable folder: a repository, whose `config` (core.fsmonitor runs a command at every
# `git status`, which shell prompts, editors and JupyterLab's git extension run on their own, outside
# the confinement) and `hooks/` git obeys. A `.git` file (a worktree, a submodule) names its folder.
GIT_DIR = ".git"
# At the top of a writable folder: what a developer tool started there reads and obeys by running code
# (pytest its addopts' plugins and conftest.py, pdb `.pdbrc`'s lines, VS Code `.vscode`'s tasks and
# interpreter, ...). Made read-only where they exist at the start; one the kernel makes, or one of a
# sub-folder it changes, is the warden's at the end (config/planted.py TOOL_FILES, JUDGED_FILES).
TOOL_CONFIG = (
    "conftest.py",
    "matplotlibrc",
    "mypy.ini",
    ".mypy.ini",
    "pytest.ini",
    ".pytest.ini",
    "pytest.toml",
    ".pytest.toml",
    "tox.ini",
    ".pdbrc",
    "pylintrc",
    ".pylintrc",
    "pylintrc.toml",
    ".pylintrc.toml",
    ".coveragerc",
    ".flake8",
    ".pre-commit-config.yaml",
    ".pre-commit-config.yml",
    "pyproject.toml",
    "setup.cfg",
    ".vscode",
)


class ConfinementError(RuntimeError):
    """The kernel cannot be confined as asked; the message says why and what to do."""


class ConfinementPlan(NamedTuple):  # not a dataclass: the launcher would import dataclasses for it
    notebook_dir: Path
    private_dir: Path
    read: tuple[Path, ...]
    write: tuple[Path, ...]
    execute: tuple[Path, ...]
    connect: tuple[int, ...]
    bind: tuple[int, ...]
    read_only: tuple[Path, ...]  # inside a writable folder: made read-only by a mount
    hidden: tuple[Path, ...]  # inside a readable folder: hidden by a mount
    udp: bool
    shm: Path | None  # a private tmpfs is mounted here (in `write`); None: /dev/shm is only read
    # the home folder's trust base absent at the start inside a writable folder (no mount holds an
    # absent place): what appears there is moved aside by the warden at the kernel's end (planted.py)
    absent_trusted: tuple[Path, ...] = ()


def real_path(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(os.path.expanduser(os.fspath(path))))


def _unique(paths: Iterable[Path]) -> tuple[Path, ...]:
    seen: dict[Path, None] = {}
    for path in paths:
        seen.setdefault(path, None)
    return tuple(seen)


def is_inside(path: Path, folders: Iterable[Path]) -> bool:
    return any(path == folder or path.is_relative_to(folder) for folder in folders)


def python_paths() -> list[Path]:
    """This Python's installation and every folder it imports from."""
    places = [sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable))]
    # `python -m` put the working folder (the notebook's) first: not a library folder
    places += [p for p in sys.path if p and real_path(p) != real_path(os.getcwd())]
    places += site.getsitepackages()
    places.append(site.getusersitepackages())
    return [real_path(p) for p in places if os.path.exists(p)]


def loader_path() -> Path | None:
    """The dynamic loader this process was started by (execve of the kernel needs to run it)."""
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            name = line.rsplit(" ", 1)[-1].strip()
            if "/ld-linux" in name or "/ld-musl" in name or name.endswith("/ld.so.1"):
                return real_path(name)
    return None


def _folders(values: Iterable[str], workdir: Path) -> list[Path]:
    return [real_path(p if os.path.isabs(os.path.expanduser(p)) else workdir / p) for p in values]


def connect_ports(entries: Iterable[str]) -> tuple[int, ...]:
    return tuple(sorted({int(entry.rpartition(":")[2]) for entry in entries}))


def plan_confinement(
    *,
    workdir: Path,
    private_dir: Path,
    settings: LaunchSettings,
    home: Path,
    bind_ports: Iterable[int],
    proxy_port: int | None,
    plugin_dirs: Iterable[Path] = (),
    record_dir: Path | None = None,
) -> ConfinementPlan:
    """`record_dir`: the notebook folder's quarantine record (twnb/config/quarantine.py), which the
    kernel reads (twnb in it asks what may be loaded) and never writes."""
    notebook_dir = real_path(workdir)
    artifacts = Path(os.path.expanduser(settings.artifacts_dir))
    artifacts = real_path(artifacts if artifacts.is_absolute() else notebook_dir / artifacts)
    write = _unique(
        [notebook_dir, artifacts, real_path(private_dir), *_folders(settings.confine_write, notebook_dir)]
    )
    read = _unique(
        [
            *(real_path(p) for p in SYSTEM_READ if os.path.exists(p)),
            *(real_path(p) for p in SYSTEM_READ_OPTIONAL if os.path.exists(p)),
            *python_paths(),
            *_folders(settings.confine_read, notebook_dir),
            *([real_path(record_dir)] if record_dir is not None and os.path.isdir(record_dir) else []),
        ]
    )
    loader = loader_path()
    execute = _unique([real_path(sys.executable), *([loader] if loader else [])])
    reachable = (*read, *write)
    real_home = real_path(home)
    secrets = [real_home / name for name in HOME_SECRETS]
    secrets += [folder / name for folder in (*write, *read) for name in FOLDER_SECRETS if folder != Path("/")]
    hidden = _unique(p for p in secrets if os.path.lexists(p) and is_inside(p, reachable))
    home_trusted = [real_home / name for name in HOME_TRUST_BASE]
    trusted = list(home_trusted)
    trusted += [notebook_dir / name for name in FOLDER_TRUST_BASE]
    trusted += [real_path(p) for p in plugin_dirs]
    trusted += _folders(settings.read_only, notebook_dir)
    trusted += git_places(write)
    trusted += [folder / name for folder in write for name in TOOL_CONFIG]
    trusted += python_paths()
    if record_dir is not None:
        state = real_path(record_dir).parent.parent
        for folder in write:
            if is_inside(folder, [state]):
                raise ConfinementError(
                    f"{folder} is a writable folder of the kernel inside {state}, where twnb keeps the "
                    "record of what later sessions may trust; take it out of confine_write (or set "
                    "XDG_STATE_HOME elsewhere)"
                )
        trusted += _topmost_below(state, write)
    read_only = _unique(
        p for p in trusted if os.path.lexists(p) and is_inside(p, write) and not is_inside(p, hidden)
    )
    # `~/.config` is a secret hidden where it exists; absent, the kernel could make it and, in it, what
    # git (`git/config`), the desktop (`autostart/`) and systemd (`systemd/user/`) obey
    absent_trusted = _unique(
        p for p in (*home_trusted, real_home / ".config") if not os.path.lexists(p) and is_inside(p, write)
    )
    shm = _private_shm_place((*read, *write, *execute))
    connect = set(connect_ports(settings.confine_connect))
    if proxy_port is not None:
        connect.add(proxy_port)
    return ConfinementPlan(
        notebook_dir=notebook_dir,
        private_dir=real_path(private_dir),
        read=read,
        write=write if shm is None else (*write, shm),
        execute=execute,
        connect=tuple(sorted(connect)),
        bind=tuple(sorted(set(bind_ports))),
        read_only=read_only,
        hidden=hidden,
        udp=bool(settings.confine_connect),
        shm=shm,
        absent_trusted=absent_trusted,
    )


def git_places(folders: Iterable[Path]) -> list[Path]:
    """Each folder's `.git` and, where it is a file (`gitdir: PATH`, a worktree's or a submodule's),
    the folder it names and that folder's `commondir` (the main repository's, holding `config` and
    `hooks/`): a look at the top of each folder, nothing walked (docs/architecture.md, "Confined
    kernels": a `.git` the kernel makes is the warden's, at its end)."""
    found: list[Path] = []
    for folder in folders:
        place = folder / GIT_DIR
        if not os.path.lexists(place):
            continue
        found.append(place)
        if os.path.isfile(place):
            named = _git_file_target(place)
            if named is not None:
                found.append(named)
                common = _git_file_target(named / "commondir", prefix="")
                if common is not None:
                    found.append(common)
    return found


def _git_file_target(path: Path, prefix: str = "gitdir:") -> Path | None:
    """The folder a `.git` file (`gitdir: PATH`) or a `commondir` file (`PATH`) names, relative to
    the file's own folder; None when unreadable or not of that form."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read(4096).strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith(prefix):
        return None
    named = text[len(prefix) :].strip()
    return real_path(named if os.path.isabs(named) else path.parent / named) if named else None


def _topmost_below(place: Path, write: Iterable[Path]) -> list[Path]:
    """For a place inside a writable folder, the folder right below that writable one on its way
    (`~/.local` for `~/.local/state/twnb` when the home folder is writable): made read-only there, no
    folder on the way to the place can be renamed away and made again with other content (a mount
    point cannot be renamed; an unmounted folder above one can)."""
    found = []
    for folder in write:
        if place != folder and place.is_relative_to(folder):
            found.append(folder / place.relative_to(folder).parts[0])
    return found


def _private_shm_place(used: Iterable[Path]) -> Path | None:
    """/dev/shm, unless a folder the kernel uses is inside it (a notebook kept there): a private tmpfs
    over it would hide that folder from the kernel."""
    if not os.path.isdir(SHARED_MEMORY):
        return None
    place = real_path(SHARED_MEMORY)
    return None if any(is_inside(path, [place]) for path in used) else place


def kernel_environment(
    environ: Mapping[str, str],
    *,
    plan: ConfinementPlan,
    home: Path,
    key_names: Iterable[str],
    base_url_names: Iterable[str],
    proxy_url: str | None,
    placeholder: str,
) -> dict[str, str]:
    """The kernel's environment: `environ` (the secret-named variables already left out), the key's
    names set to a placeholder, the model's base URL the proxy's, and HOME, TMPDIR and the
    configuration folders of IPython, Jupyter, matplotlib and the caches private."""
    env = dict(environ)
    for name in key_names:
        env[name] = placeholder
    if proxy_url is not None:
        for name in base_url_names:
            env[name] = proxy_url
    private = plan.private_dir
    env.update(
        HOME=str(private / "home"),
        TMPDIR=str(private / "tmp"),
        IPYTHONDIR=str(private / "ipython"),
        MPLCONFIGDIR=str(private / "matplotlib"),
        XDG_CACHE_HOME=str(private / "cache"),
        XDG_CONFIG_HOME=str(private / "config"),
        JUPYTER_CONFIG_DIR=str(private / "jupyter"),
        JUPYTER_RUNTIME_DIR=str(private / "runtime"),
        PYTHONUSERBASE=str(real_path(home) / ".local"),
    )
    env.pop("PYTHONSTARTUP", None)
    return env
