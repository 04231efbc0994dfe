"""What a confined kernel may read, write, run and connect to, worked out from the notebook's folder,
the settings and this Python's installation (docs/architecture.md, "Confined kernels")."""

from __future__ import annotations

import os
import site
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from twnb.config import ResolvedSettings

# Read, never written: the system and the devices every program opens.
SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/opt", "/proc", "/sys", "/dev")
SYSTEM_READ_OPTIONAL = ("/run/systemd/resolve", "/var/lib/fontconfig", "/var/cache/fontconfig")
DEVICES_WRITE = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/shm")

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
)
# In the notebook's folder: twnb's own trust base (settings, plugins, rules), and the `.env` that
# holds the key, emptied.
FOLDER_TRUST_BASE = ("twnb.yaml", "AGENTS.md", "TWNB.md")
FOLDER_SECRETS = (".env",)


class ConfinementError(RuntimeError):
    """The kernel cannot be confined as asked; the message says why and what to do."""


@dataclass(frozen=True)
class ConfinementPlan:
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


def _real(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(os.path.expanduser(os.fspath(path))))


def _unique(paths: Iterable[Path]) -> tuple[Path, ...]:
    seen: dict[Path, None] = {}
    for path in paths:
        seen.setdefault(path, None)
    return tuple(seen)


def _inside(path: Path, folders: Iterable[Path]) -> bool:
    return any(path == folder or path.is_relative_to(folder) for folder in folders)


def python_paths() -> list[Path]:
    """This Python's installation and every folder it imports from."""
    places = [sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable))]
    # `python -m` put the working folder (the notebook's) first: not a library folder
    places += [p for p in sys.path if p and _real(p) != _real(os.getcwd())]
    places += site.getsitepackages()
    places.append(site.getusersitepackages())
    return [_real(p) for p in places if os.path.exists(p)]


def loader_path() -> Path | None:
    """The dynamic loader this process was started by (execve of the kernel needs to run it)."""
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            name = line.rsplit(" ", 1)[-1].strip()
            if "/ld-linux" in name or "/ld-musl" in name or name.endswith("/ld.so.1"):
                return _real(name)
    return None


def _folders(resolved: ResolvedSettings, name: str, workdir: Path) -> list[Path]:
    values: tuple[str, ...] = getattr(resolved.settings, name)
    return [_real(p if os.path.isabs(os.path.expanduser(p)) else workdir / p) for p in values]


def connect_ports(entries: Iterable[str]) -> tuple[int, ...]:
    return tuple(sorted({int(entry.rpartition(":")[2]) for entry in entries}))


def plan_confinement(
    *,
    workdir: Path,
    private_dir: Path,
    resolved: ResolvedSettings,
    home: Path,
    bind_ports: Iterable[int],
    proxy_port: int | None,
    plugin_dirs: Iterable[Path] = (),
) -> ConfinementPlan:
    notebook_dir = _real(workdir)
    _refuse_unsafe_sources(resolved, notebook_dir)
    artifacts = Path(os.path.expanduser(resolved.settings.artifacts_dir))
    artifacts = _real(artifacts if artifacts.is_absolute() else notebook_dir / artifacts)
    write = _unique(
        [notebook_dir, artifacts, _real(private_dir), *_folders(resolved, "confine_write", notebook_dir)]
    )
    read = _unique(
        [
            *(_real(p) for p in SYSTEM_READ if os.path.exists(p)),
            *(_real(p) for p in SYSTEM_READ_OPTIONAL if os.path.exists(p)),
            *python_paths(),
            *_folders(resolved, "confine_read", notebook_dir),
        ]
    )
    loader = loader_path()
    execute = _unique([_real(sys.executable), *([loader] if loader else [])])
    reachable = (*read, *write)
    real_home = _real(home)
    secrets = [real_home / name for name in HOME_SECRETS]
    secrets += [folder / name for folder in (*write, *read) for name in FOLDER_SECRETS if folder != Path("/")]
    hidden = _unique(p for p in secrets if os.path.lexists(p) and _inside(p, reachable))
    trusted = [real_home / name for name in HOME_TRUST_BASE]
    trusted += [notebook_dir / name for name in FOLDER_TRUST_BASE]
    trusted += [_real(p) for p in plugin_dirs]
    trusted += python_paths()
    read_only = _unique(
        p for p in trusted if os.path.lexists(p) and _inside(p, write) and not _inside(p, hidden)
    )
    connect = set(connect_ports(resolved.settings.confine_connect))
    if proxy_port is not None:
        connect.add(proxy_port)
    return ConfinementPlan(
        notebook_dir=notebook_dir,
        private_dir=_real(private_dir),
        read=read,
        write=write,
        execute=execute,
        connect=tuple(sorted(connect)),
        bind=tuple(sorted(set(bind_ports))),
        read_only=read_only,
        hidden=hidden,
        udp=bool(resolved.settings.confine_connect),
    )


def _refuse_unsafe_sources(resolved: ResolvedSettings, notebook_dir: Path) -> None:
    """The confinement's own rules never come from a file the confined kernel can write (the notebook
    folder's twnb.yaml or .env): a Round could widen the next kernel's rules."""
    for name in ("confine_read", "confine_write", "confine_connect"):
        source = resolved.sources.get(name)
        if source is None or source.path is None:
            continue
        if _inside(_real(source.path), [notebook_dir]):
            raise ConfinementError(
                f"{name} is set in {source.path}, which the confined kernel can write; set it in the "
                f"environment (TWNB_{name.upper()}) or in ~/.config/twnb/config.yaml instead."
            )


def kernel_environment(
    environ: Mapping[str, str],
    *,
    plan: ConfinementPlan,
    home: Path,
    key_names: Iterable[str],
    base_url_names: Iterable[str],
    proxy_url: str | None,
    placeholder: str,
    is_secret_name: Callable[[str], bool],
) -> dict[str, str]:
    """The kernel's environment: no secret-named variable, the key's names set to a placeholder, the
    model's base URL the proxy's, and HOME, TMPDIR and the configuration folders of IPython, Jupyter,
    matplotlib and the caches private."""
    env = {name: value for name, value in environ.items() if not is_secret_name(name)}
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
        PYTHONUSERBASE=str(_real(home) / ".local"),
    )
    env.pop("PYTHONSTARTUP", None)
    return env
