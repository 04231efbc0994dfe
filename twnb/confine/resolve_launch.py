"""The launcher's settings resolved from twnb's settings (launch_settings.py), and the ready command and
environment that start a confined kernel with them: the process that starts a kernel resolves them
(it has the settings loaded), the launcher only reads them."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from twnb.config import (
    SETTINGS_BY_NAME,
    FileTrust,
    FolderQuarantine,
    ResolvedSettings,
    SettingsError,
    is_secret_name,
    resolve_settings,
)
from twnb.confine.dotenv_key import key_dotenvs, key_notice
from twnb.confine.launch_settings import KEY_ENV, LAUNCH_ENV, LaunchSettings, ModelRoute
from twnb.confine.plan import ConfinementError, is_inside, plan_confinement, real_path

_OPENAI = "https://api.openai.com/v1"
# The confinement's own rules, and whether twnb's kernels are confined at all.
CONFINEMENT_SETTINGS = ("confine_read", "confine_write", "confine_connect", "confine_kernels")


@dataclass(frozen=True)
class ConfinedLaunch:
    """How to start a confined kernel: `argv` (Jupyter's `{connection_file}` in it) in an environment
    of the starter's with `env` on top and `drop` taken out (the secret-named variables: the launcher
    never needs them, the key travels in `KEY_ENV`)."""

    argv: list[str]
    env: dict[str, str]
    drop: tuple[str, ...]

    def environment(self, base: Mapping[str, str]) -> dict[str, str]:
        kept = {name: value for name, value in base.items() if name not in self.drop}
        return {**kept, **self.env}


def refuse_unsafe_sources(resolved: ResolvedSettings) -> None:
    """The confinement's own rules never come from a file the confined kernel can write (the notebook
    folder's twnb.yaml or .env): a Round could widen the next kernel's rules, or switch them off."""
    notebook_dir = real_path(resolved.workdir)
    for name in CONFINEMENT_SETTINGS:
        source = resolved.sources.get(name)
        if source is None or source.path is None:
            continue
        if is_inside(real_path(source.path), [notebook_dir]):
            raise ConfinementError(
                f"{name} is set in {source.path}, which the confined kernel can write; set it in the "
                f"environment (TWNB_{name.upper()}) or in ~/.config/twnb/config.yaml instead."
            )


def launch_settings(
    resolved: ResolvedSettings,
    *,
    write: Iterable[str | os.PathLike[str]] = (),
    read_only: Iterable[str | os.PathLike[str]] = (),
) -> tuple[LaunchSettings, str]:
    """The launcher's settings and the model's key ("" without one). `write`: folders the kernel may
    write besides the settings' (a starter's own artifacts folder); `read_only`: places inside them it
    must not (a session folder the starter writes). Raises ConfinementError (refuse_unsafe_sources)."""
    refuse_unsafe_sources(resolved)
    settings = resolved.settings
    upstream_url: str | None = None
    azure = bool(settings.azure_endpoint)
    if azure:
        upstream_url = settings.azure_endpoint
    elif settings.base_url or settings.api_key:
        upstream_url = settings.base_url or _OPENAI
    key_names: tuple[str, ...] = ()
    if settings.api_key and upstream_url is not None:
        key_names = (*SETTINGS_BY_NAME["api_key"].env, settings.api_key_env)
    base_url_names = SETTINGS_BY_NAME["azure_endpoint" if azure else "base_url"].env
    launch = LaunchSettings(
        artifacts_dir=settings.artifacts_dir,
        confine_read=settings.confine_read,
        confine_write=(*settings.confine_write, *(os.fspath(p) for p in write)),
        confine_connect=settings.confine_connect,
        # plugin folders beside the notebook are loaded as code by twnb, the examples folder into its
        # prompts, and twnb never writes either: never the kernel's to write
        read_only=(
            *(settings.plugin_dirs or ("plugins",)),
            *([settings.examples_dir] if settings.examples_dir else []),
            *(os.fspath(p) for p in read_only),
        ),
        model=ModelRoute(upstream_url, azure, key_names, base_url_names),
        watched=(
            *(settings.plugin_dirs or ("plugins",)),
            *([settings.experience_dir] if settings.experience_dir else []),
        ),
    )
    return launch, settings.api_key or ""


def home_of(environ: Mapping[str, str]) -> Path:
    """The home folder of the kernel's environment (its user settings file and secrets)."""
    return Path(environ.get("HOME") or os.path.expanduser("~"))


def launcher_argv(python: str | None = None) -> list[str]:
    return [python or sys.executable, "-m", "twnb.confine", "-f", "{connection_file}"]


def confined_launch(
    workdir: Path,
    environ: Mapping[str, str],
    *,
    write: Iterable[str | os.PathLike[str]] = (),
    read_only: Iterable[str | os.PathLike[str]] = (),
    resolved: ResolvedSettings | None = None,
) -> ConfinedLaunch:
    """The command and environment that start a confined kernel in `workdir` for a starter whose
    kernel environment is `environ`, the settings resolved here (or `resolved`, when the starter has
    them). Raises ConfinementError, or SettingsError for settings that do not parse."""
    if resolved is None:
        # a twnb.yaml a confined kernel changed is not read (its base URL would get the key): said once
        trust = FileTrust(quarantine=FolderQuarantine(workdir, environ).line)
        resolved = resolve_settings(environ=environ, workdir=workdir, home=home_of(environ), file_trust=trust)
        for line in trust.take_lines():
            print(f"twnb: {line}", file=sys.stderr)
    launch, key = launch_settings(resolved, write=write, read_only=read_only)
    env = {LAUNCH_ENV: launch.to_json()}
    if key:
        env[KEY_ENV] = key
    drop = tuple(name for name in environ if is_secret_name(name) and name not in env)
    return ConfinedLaunch(launcher_argv(), env, drop)


def dotenv_key_notice(
    workdir: Path, environ: Mapping[str, str], launch: ConfinedLaunch | None = None
) -> str | None:
    """The line the launcher of a confined kernel started in `workdir` with `environ` writes to its
    stderr when a `.env` it hides from the kernel holds the model's key (dotenv_key.py), for a
    starter that shows the user its own lines (the kernel's stderr goes to a log there); None when
    none does, or when the settings do not resolve (the launcher then says why it did not start).
    `launch`: the launch the starter gives the launcher (its settings and key), else resolved here
    as the launcher of a kernelspec resolves them.

    Computed here from the same plan rather than read back from the launcher: its stderr is a log
    or a terminal the kernel's own code writes too, and its private folder is the kernel's to write;
    this line needs no channel the confined code could forge, delay or suppress."""
    if launch is None:
        try:
            launch = confined_launch(workdir, environ)
        except (ConfinementError, SettingsError):
            return None
    settings = LaunchSettings.from_json(launch.env[LAUNCH_ENV])
    # the same places as the launcher's plan; its private folder is new and empty, so none is named
    plan = plan_confinement(
        workdir=workdir,
        private_dir=workdir,
        settings=settings,
        home=home_of(environ),
        bind_ports=(),
        proxy_port=None,
    )
    paths = key_dotenvs(plan.hidden, settings.key_names, launch.env.get(KEY_ENV, ""))
    return key_notice(paths, settings.key_names)
