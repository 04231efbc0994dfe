"""Settings as data: the resolved values, where each came from, and the errors that say what to set.

:class:`Settings` has one attribute per row of :mod:`twnb.config.table`; :class:`ResolvedSettings` adds
each value's :class:`Source` and the notebook's folder. Resolution itself is in
:mod:`twnb.config.resolution`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twnb.config.table import DEFAULT_API_KEY_ENV, PLACEHOLDER_API_KEY, SETTINGS, SETTINGS_BY_NAME

__all__ = [
    "DEFAULT",
    "DOTENV",
    "ENVIRONMENT",
    "FLAG",
    "PROJECT_YAML",
    "TRAITLET",
    "USER_YAML",
    "Prices",
    "ResolvedSettings",
    "Servers",
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


def _row(name: str) -> Any:
    """The attribute for one row of the settings table: its default, and the API key kept out of
    ``repr`` and equality (tests/config/test_settings.py checks every row has its attribute)."""
    row = SETTINGS_BY_NAME[name]
    shown = row.kind != "secret"
    return field(default=row.default, repr=shown, compare=shown)


# The types each kind of row holds once resolved (the resolver's coercion makes them).
Servers = dict[str, dict[str, Any]]  # name -> {command, args, env} or {url, headers}, as written
Prices = dict[str, dict[str, float]]  # model -> {"input", "output", "cached"}: per million tokens


@dataclass
class Settings:
    """The resolved settings, one attribute per row of the settings table (twnb/config/table.py, where
    each default, environment name, YAML key and help line is): plain data, no I/O.

    Build it with :func:`twnb.config.resolution.resolve_settings`; ``Settings(model=...)`` gives the
    defaults for everything else. The API key is left out of ``repr``, equality and ``to_dict``.
    """

    model: str | None = _row("model")
    base_url: str | None = _row("base_url")
    api_key: str | None = _row("api_key")
    api_key_env: str = _row("api_key_env")
    azure_endpoint: str | None = _row("azure_endpoint")
    api_version: str | None = _row("api_version")
    planner_model: str | None = _row("planner_model")
    code_model: str | None = _row("code_model")
    session_dir: str = _row("session_dir")
    artifacts_dir: str = _row("artifacts_dir")
    verify: bool = _row("verify")
    allow_active_output: bool = _row("allow_active_output")
    step: str = _row("step")
    strict: bool = _row("strict")
    undo_budget_mb: int = _row("undo_budget_mb")
    max_retries: int = _row("max_retries")
    timeout: float = _row("timeout")
    max_posts: int = _row("max_posts")
    max_reply_chars: int = _row("max_reply_chars")
    llm_timeout_connect: float = _row("llm_timeout_connect")
    llm_timeout_first_byte: float = _row("llm_timeout_first_byte")
    llm_timeout_idle: float = _row("llm_timeout_idle")
    llm_timeout_total: float = _row("llm_timeout_total")
    response_format: str = _row("response_format")
    context_size: int | None = _row("context_size")
    max_tokens: int | None = _row("max_tokens")
    record: bool = _row("record")
    replay: str | None = _row("replay")
    examples_dir: str | None = _row("examples_dir")
    experience_dir: str = _row("experience_dir")
    embedding_model: str | None = _row("embedding_model")
    allow_modules: tuple[str, ...] = _row("allow_modules")
    block_functions: tuple[str, ...] = _row("block_functions")
    taskweaver_verification: bool = _row("taskweaver_verification")
    taskweaver_allowed_modules: tuple[str, ...] | None = _row("taskweaver_allowed_modules")
    taskweaver_blocked_functions: tuple[str, ...] | None = _row("taskweaver_blocked_functions")
    plugin_dirs: tuple[str, ...] = _row("plugin_dirs")
    plugin_config: dict[str, dict[str, Any]] | None = _row("plugin_config")
    plugin_only: bool = _row("plugin_only")
    mcp_servers: Servers | None = _row("mcp_servers")
    mcp_timeout: float = _row("mcp_timeout")
    prices: Prices | None = _row("prices")
    trace: str = _row("trace")
    confine_read: tuple[str, ...] = _row("confine_read")
    confine_write: tuple[str, ...] = _row("confine_write")
    confine_connect: tuple[str, ...] = _row("confine_connect")
    confine_kernels: bool = _row("confine_kernels")

    @property
    def is_azure(self) -> bool:
        return bool(self.azure_endpoint)

    @property
    def has_real_api_key(self) -> bool:
        key = self.api_key
        return bool(key) and key != PLACEHOLDER_API_KEY

    def model_for(self, role: str) -> str:
        """The model (Azure: deployment) a role calls; raises :class:`SettingsError` when unset."""
        per_role = {"Planner": self.planner_model, "CodeInterpreter": self.code_model}.get(role)
        return per_role or self.require_model()

    def require_model(self, workdir: Path | None = None) -> str:
        if not self.model:
            raise SettingsError(_no_model_message(workdir))
        return self.model

    def require_api_key(self, workdir: Path | None = None) -> str:
        if not self.api_key:
            raise SettingsError(_no_key_message(self, workdir))
        return self.api_key

    def to_dict(self) -> dict[str, Any]:
        """Every setting except the API key (only whether one is set)."""
        data = {row.name: getattr(self, row.name) for row in SETTINGS if row.kind != "secret"}
        data["api_key_set"] = self.has_real_api_key
        return data


@dataclass(frozen=True)
class Source:
    """Where one setting's value came from."""

    layer: str
    name: str = ""
    path: str | None = None

    def describe(self) -> str:
        if self.layer == FLAG:
            return f"--{self.name.replace('_', '-')} flag"
        if self.layer == TRAITLET and self.path:  # set otherwise than with %config: how
            return f"TaskWeaverMagics.{self.name} {self.path}"
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


def _no_key_message(settings: Settings, workdir: Path | None) -> str:
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
