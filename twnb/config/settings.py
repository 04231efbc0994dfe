"""Settings as data: the resolved values, where each came from, and the errors that say what to set.

:class:`Settings` has one attribute per row of :mod:`twnb.config.table`; :class:`ResolvedSettings` adds
each value's :class:`Source` and the notebook's folder. Resolution itself is in
:mod:`twnb.config.resolution`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, make_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twnb.config.table import DEFAULT_API_KEY_ENV, PLACEHOLDER_API_KEY, SETTINGS, Setting

__all__ = [
    "DEFAULT",
    "DOTENV",
    "ENVIRONMENT",
    "FLAG",
    "PROJECT_YAML",
    "TRAITLET",
    "USER_YAML",
    "ResolvedSettings",
    "SettingRow",
    "Settings",
    "SettingsError",
    "Source",
]

# Names that decide which layer a value came from, in precedence order.
FLAG, TRAITLET, ENVIRONMENT, DOTENV, PROJECT_YAML, USER_YAML, DEFAULT = (
    "flag",
    "%config",
    "environment",
    ".env",
    "twnb.yaml",
    "user config",
    "default",
)
PLACEHOLDER = "placeholder"


class SettingsError(ValueError):
    """A setting is missing or invalid; the message says what to set and where."""


class _SettingsMethods:
    """What every Settings object can do besides holding one attribute per row of the table."""

    if TYPE_CHECKING:  # for type checkers: one attribute per row, made at runtime by make_dataclass

        def __init__(self, **values: Any) -> None: ...

        def __getattr__(self, name: str) -> Any: ...

        def __setattr__(self, name: str, value: Any) -> None: ...

    @property
    def is_azure(self) -> bool:
        return bool(self.azure_endpoint)

    @property
    def has_real_api_key(self) -> bool:
        key = self.api_key
        return bool(key) and key != PLACEHOLDER_API_KEY

    def model_for(self, role: str) -> str:
        """The model (Azure: deployment) a role calls; raises :class:`SettingsError` when unset."""
        per_role = {"Planner": "planner_model", "CodeInterpreter": "code_model"}.get(role)
        return (getattr(self, per_role) if per_role else None) or self.require_model()

    def require_model(self, workdir: Path | None = None) -> str:
        model: str | None = self.model
        if not model:
            raise SettingsError(_no_model_message(workdir))
        return model

    def require_api_key(self, workdir: Path | None = None) -> str:
        key: str | None = self.api_key
        if not key:
            raise SettingsError(_no_key_message(self, workdir))
        return key

    def to_dict(self) -> dict[str, Any]:
        """Every setting except the API key (only whether one is set)."""
        data = {row.name: getattr(self, row.name) for row in SETTINGS if row.kind != "secret"}
        data["api_key_set"] = self.has_real_api_key
        return data


def _field(row: Setting) -> tuple[str, Any, Any]:
    secret = row.kind == "secret"
    shown = not secret
    return (row.name, _PYTHON_TYPES[row.kind], field(default=row.default, repr=shown, compare=shown))


_PYTHON_TYPES: dict[str, Any] = {
    "text": "str | None",
    "url": "str | None",
    "secret": "str | None",
    "bool": "bool",
    "count": "int",
    "seconds": "float",
    "modules": "tuple[str, ...]",
    "paths": "tuple[str, ...]",
    "mapping": "dict[str, dict[str, Any]] | None",
    "servers": "dict[str, dict[str, Any]] | None",
    "prices": "dict[str, dict[str, float]] | None",
    "choice": "str",
}

if TYPE_CHECKING:
    Settings = _SettingsMethods
else:
    Settings = make_dataclass(
        "Settings",
        [_field(row) for row in SETTINGS],
        bases=(_SettingsMethods,),
        namespace={"__module__": __name__},
    )
Settings.__doc__ = """The resolved settings, one attribute per row of the settings table: plain data, no I/O.
Build it with :func:`twnb.config.resolution.resolve_settings`; ``Settings(model=...)`` gives the
defaults for everything else. The API key is left out of ``repr``, equality and ``to_dict``."""


@dataclass(frozen=True)
class Source:
    """Where one setting's value came from."""

    layer: str
    name: str = ""
    path: str | None = None

    def describe(self) -> str:
        if self.layer == FLAG:
            return f"--{self.name.replace('_', '-')} flag"
        if self.layer == TRAITLET:
            return f"%config TaskWeaverMagics.{self.name}"
        if self.layer == ENVIRONMENT:
            return f"{self.name} (environment)"
        if self.layer in (DOTENV, PROJECT_YAML, USER_YAML):
            return f"{self.name} in {self.path}"
        if self.layer == PLACEHOLDER:
            return "placeholder: a local server needs no key"
        if self.name:  # a setting that takes another one's value when unset
            return f"default (same as {self.name})"
        return "default"


@dataclass(frozen=True)
class SettingRow:
    """One line of ``%taskweaver config``; never holds the key's value."""

    setting: str
    value: str
    source: str


@dataclass
class ResolvedSettings:
    """Settings plus, per setting, where its value came from."""

    settings: Settings
    sources: dict[str, Source]
    workdir: Path
    # Values of secret-looking names in .env: they are not in os.environ, but the redactor must know them.
    dotenv_secrets: tuple[str, ...] = field(default=(), repr=False, compare=False)

    def require_model(self) -> str:
        return self.settings.require_model(self.workdir)

    def require_api_key(self) -> str:
        return self.settings.require_api_key(self.workdir)

    def describe(self) -> list[SettingRow]:
        rows = []
        for row in SETTINGS:
            source = self.sources.get(row.name, Source(DEFAULT))
            if row.kind == "secret":
                if not self.settings.api_key:
                    rows.append(SettingRow(row.name, "not set", "-"))
                elif source.layer == PLACEHOLDER:
                    rows.append(SettingRow(row.name, "placeholder", source.describe()))
                else:
                    rows.append(SettingRow(row.name, "set", f"set from {source.describe()}"))
                continue
            value = getattr(self.settings, row.name)
            if row.name == "base_url" and value is None and not self.settings.is_azure:
                value = "OpenAI's (https://api.openai.com/v1)"
            if isinstance(value, tuple):
                value = ", ".join(value) or None
            if isinstance(value, dict) and row.kind == "prices":
                value = "; ".join(f"{k}: {_price_text(v)}" for k, v in value.items()) or None
            elif isinstance(value, dict):  # plugin configurations, MCP servers: as written
                value = "; ".join(f"{k}: {v}" for k, v in value.items()) or None
            rows.append(SettingRow(row.name, "-" if value is None else str(value), source.describe()))
        return rows

    def format_table(self) -> str:
        rows = self.describe()
        width = max(len(r.setting) for r in rows)
        vwidth = max(len(r.value) for r in rows)
        return "\n".join(f"{r.setting:<{width}}  {r.value:<{vwidth}}  {r.source}" for r in rows)


def _price_text(price: dict[str, float]) -> str:
    return ", ".join(f"{kind} {amount:g}" for kind, amount in price.items())


def _no_model_message(workdir: Path | None) -> str:
    folder = str(workdir) if workdir is not None else "the notebook's folder"
    return (
        "No model is configured for twnb. Set one in any of these places (highest priority first):\n"
        '  - in the notebook: %config TaskWeaverMagics.model = "gpt-4o-mini"'
        "  (or %%taskweaver --model gpt-4o-mini)\n"
        "  - in the environment: TWNB_MODEL=gpt-4o-mini  (TaskWeaver's LLM_MODEL works too)\n"
        f"  - in {folder}/.env: TWNB_MODEL=gpt-4o-mini\n"
        f"  - in {folder}/twnb.yaml or ~/.config/twnb/config.yaml:  llm: {{model: gpt-4o-mini}}\n"
        "For Azure OpenAI the model is the deployment name. For a local server (Ollama, vLLM, ...) "
        "also set its base URL: OPENAI_BASE_URL=http://localhost:11434/v1 (or llm.api_base)."
    )


def _no_key_message(settings: _SettingsMethods, workdir: Path | None) -> str:
    folder = str(workdir) if workdir is not None else "the notebook's folder"
    if settings.api_key_env != DEFAULT_API_KEY_ENV:
        return (
            f"api_key_env says the API key is in {settings.api_key_env}, but that variable is not set "
            f"in the environment or in {folder}/.env. Set it there (never in the notebook)."
        )
    target = (
        f"Azure OpenAI at {settings.azure_endpoint}" if settings.is_azure else (settings.base_url or "OpenAI")
    )
    azure = "AZURE_OPENAI_API_KEY=... or " if settings.is_azure else ""
    return (
        f"No API key found for {target}. Set {azure}OPENAI_API_KEY=... in the environment or in "
        f"{folder}/.env (TaskWeaver's LLM_API_KEY works too); never put it in the notebook, %config or "
        'twnb.yaml. To read it from another variable: %config TaskWeaverMagics.api_key_env = "MY_VAR". '
        "A local server that needs no key (Ollama, vLLM, ...) only needs its base URL: "
        "OPENAI_BASE_URL=http://localhost:11434/v1."
    )
