"""twnb's settings, resolved from every place a user may put them (docs/architecture.md, contract 4).

Highest first: magic flags > ``%config TaskWeaverMagics.*`` > environment > ``.env`` in the notebook's
folder (read without changing ``os.environ``) > ``twnb.yaml`` there > ``~/.config/twnb/config.yaml`` >
defaults. Every value remembers where it came from so ``%taskweaver config`` can say so.

The API key is the exception to that table: it is never a flag, a traitlet or a YAML value, only an
environment (or ``.env``) variable, and it never appears in ``repr``, ``to_dict`` or ``describe()``.
Local OpenAI-compatible servers (Ollama, vLLM, llama.cpp, LM Studio) usually need no key, but the
openai SDK refuses to start without one, so when a non-OpenAI base URL is set and no key is found the
key is :data:`PLACEHOLDER_API_KEY`, which such servers ignore.
"""

from __future__ import annotations

import dataclasses
import os
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from twnb.llm.dotenv import read_dotenv
from twnb.llm.redaction import MIN_SECRET_LENGTH, Redactor, is_secret_name

if TYPE_CHECKING:
    from twnb.llm.client import OpenAIChatClient

__all__ = [
    "DEFAULT_AZURE_API_VERSION",
    "PLACEHOLDER_API_KEY",
    "ResolvedSettings",
    "SettingRow",
    "Settings",
    "SettingsError",
    "Source",
    "make_client",
    "resolve_settings",
]

PLACEHOLDER_API_KEY = "twnb-no-key-needed"
"""Sent as the key to a local server when none is configured; such servers ignore it."""

DEFAULT_AZURE_API_VERSION = "2024-10-21"
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
PROJECT_FILE = "twnb.yaml"
USER_FILE = Path(".config") / "twnb" / "config.yaml"

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


class SettingsError(ValueError):
    """A setting is missing or invalid; the message says what to set and where."""


@dataclass
class Settings:
    """The resolved settings: plain data, no I/O. Build it with :func:`resolve_settings`."""

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False, compare=False)
    api_key_env: str = DEFAULT_API_KEY_ENV
    azure_endpoint: str | None = None
    api_version: str | None = None
    planner_model: str | None = None
    code_model: str | None = None
    session_dir: str = ".twnb"
    verify: bool = True
    max_retries: int = 3
    timeout: float = 600.0
    max_posts: int = 20
    # Record every LLM call to a cassette beside the session's autosaves, or replay one (no model needed).
    record: bool = False
    replay: str | None = None
    # Your own few-shot examples (TaskWeaver conversation YAML) in `planner/` and `code_interpreter/`.
    examples_dir: str | None = None
    # Modules the code may import besides verification's data-analysis allow-list (e.g. polars, duckdb).
    allow_modules: tuple[str, ...] = ()

    @property
    def is_azure(self) -> bool:
        return bool(self.azure_endpoint)

    @property
    def has_real_api_key(self) -> bool:
        return bool(self.api_key) and self.api_key != PLACEHOLDER_API_KEY

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
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "api_key"}
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
        if self.layer == TRAITLET:
            return f"%config TaskWeaverMagics.{self.name}"
        if self.layer == ENVIRONMENT:
            return f"{self.name} (environment)"
        if self.layer in (DOTENV, PROJECT_YAML, USER_YAML):
            return f"{self.name} in {self.path}"
        if self.layer == "placeholder":
            return "placeholder: a local server needs no key"
        if self.name == "model":
            return "default (same as model)"
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
        for f in dataclasses.fields(self.settings):
            source = self.sources.get(f.name, Source(DEFAULT))
            if f.name == "api_key":
                if not self.settings.api_key:
                    rows.append(SettingRow("api_key", "not set", "-"))
                elif source.layer == "placeholder":
                    rows.append(SettingRow("api_key", "placeholder", source.describe()))
                else:
                    rows.append(SettingRow("api_key", "set", f"set from {source.describe()}"))
                continue
            value = getattr(self.settings, f.name)
            if f.name == "base_url" and value is None and not self.settings.is_azure:
                value = "OpenAI's (https://api.openai.com/v1)"
            if isinstance(value, tuple):
                value = ", ".join(value) or None
            rows.append(SettingRow(f.name, "-" if value is None else str(value), source.describe()))
        return rows

    def format_table(self) -> str:
        rows = self.describe()
        width = max(len(r.setting) for r in rows)
        vwidth = max(len(r.value) for r in rows)
        return "\n".join(f"{r.setting:<{width}}  {r.value:<{vwidth}}  {r.source}" for r in rows)


@dataclass(frozen=True)
class _Spec:
    field: str
    traitlet: bool
    env: tuple[str, ...]
    yaml_key: str | None
    kind: type


_SPECS: tuple[_Spec, ...] = (
    _Spec("model", True, ("TWNB_MODEL", "LLM_MODEL"), "llm.model", str),
    _Spec("base_url", True, ("OPENAI_BASE_URL", "LLM_API_BASE"), "llm.api_base", str),
    _Spec("api_key_env", True, (), "llm.api_key_env", str),
    _Spec("azure_endpoint", True, ("AZURE_OPENAI_ENDPOINT",), "llm.azure_endpoint", str),
    _Spec("api_version", True, ("OPENAI_API_VERSION",), "llm.api_version", str),
    _Spec("planner_model", True, ("TWNB_PLANNER_MODEL",), "planner.model", str),
    _Spec("code_model", True, ("TWNB_CODE_MODEL",), "code_interpreter.model", str),
    _Spec("session_dir", True, ("TWNB_SESSION_DIR",), "session.dir", str),
    _Spec("verify", True, (), "code_interpreter.verify", bool),
    _Spec("max_retries", True, (), "code_interpreter.max_retries", int),
    _Spec("timeout", True, (), "code_interpreter.timeout", float),
    _Spec("max_posts", True, (), "session.max_posts", int),
    _Spec("record", True, ("TWNB_RECORD",), "session.record", bool),
    _Spec("replay", True, ("TWNB_REPLAY",), "llm.replay", str),
    _Spec("examples_dir", True, ("TWNB_EXAMPLES_DIR",), "session.examples_dir", str),
    _Spec("allow_modules", True, ("TWNB_ALLOW_MODULES",), "code_interpreter.allow_modules", tuple),
)
_SPEC_BY_FIELD = {s.field: s for s in _SPECS}
_KEY_FIELDS = ("api_key",)
_YAML_KEY_KEYS = ("llm.api_key", "llm.openai.api_key", "llm.azure.api_key")
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def resolve_settings(
    *,
    overrides: Mapping[str, Any] | None = None,
    traitlets: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    workdir: Path | None = None,
    home: Path | None = None,
) -> ResolvedSettings:
    """Resolve every setting by contract 4's precedence.

    ``overrides`` are the magic flags and ``traitlets`` the ``%config`` values, both keyed by setting
    name; ``None`` or ``""`` there means "not set". ``environ`` defaults to ``os.environ`` (only read),
    ``workdir`` to the current directory and ``home`` to the user's home.
    """
    environ = os.environ if environ is None else environ
    workdir = Path.cwd() if workdir is None else Path(workdir)
    home = Path.home() if home is None else Path(home)
    flags = _checked_layer(overrides, "magic flags")
    config = _checked_layer(traitlets, "%config TaskWeaverMagics")
    dotenv_path = workdir / ".env"
    dotenv = read_dotenv(dotenv_path)
    project_path = workdir / PROJECT_FILE
    project = _read_yaml(project_path)
    user_path = home / USER_FILE
    user = _read_yaml(user_path)

    def lookup(spec: _Spec) -> tuple[Any, Source] | None:
        if _is_set(flags.get(spec.field)):
            return flags[spec.field], Source(FLAG, spec.field)
        if spec.traitlet and _is_set(config.get(spec.field)):
            return config[spec.field], Source(TRAITLET, spec.field)
        for layer, values, path in ((ENVIRONMENT, environ, None), (DOTENV, dotenv, dotenv_path)):
            for name in spec.env:
                if _is_set(values.get(name)):
                    return values[name], Source(layer, name, None if path is None else str(path))
        for layer, values, path in ((PROJECT_YAML, project, project_path), (USER_YAML, user, user_path)):
            if spec.yaml_key and _is_set(values.get(spec.yaml_key)):
                return values[spec.yaml_key], Source(layer, spec.yaml_key, str(path))
        return None

    values: dict[str, Any] = {}
    sources: dict[str, Source] = {}
    for spec in _SPECS:
        found = lookup(spec)
        if found is not None:
            raw, source = found
            values[spec.field] = _coerce(spec, raw, source)
            sources[spec.field] = source

    settings = Settings(**values)
    if not settings.planner_model and settings.model:
        settings.planner_model = settings.model
        sources["planner_model"] = Source(DEFAULT, "model")
    if not settings.code_model and settings.model:
        settings.code_model = settings.model
        sources["code_model"] = Source(DEFAULT, "model")
    if settings.is_azure and not settings.api_version:
        settings.api_version = DEFAULT_AZURE_API_VERSION
    _validate(settings, sources)

    key_source = _find_api_key(settings, "api_key_env" in sources, environ, dotenv, dotenv_path)
    if key_source is not None:
        settings.api_key, sources["api_key"] = key_source
    elif _is_local_server(settings):
        settings.api_key = PLACEHOLDER_API_KEY
        sources["api_key"] = Source("placeholder")

    # The same rule the redactor applies to the live environment's variables.
    dotenv_secrets = tuple(v for k, v in dotenv.items() if is_secret_name(k) and len(v) >= MIN_SECRET_LENGTH)
    return ResolvedSettings(settings, sources, workdir, dotenv_secrets)


def make_client(
    settings: Settings | ResolvedSettings, *, redactor: Redactor | None = None, **client_options: Any
) -> OpenAIChatClient:
    """The streaming OpenAI (or Azure, or OpenAI-compatible) client these settings describe.

    With a ``redactor``, server texts quoted in error messages pass through it (the key itself is
    always scrubbed by the client). ``client_options`` go to :class:`twnb.llm.client.OpenAIChatClient`
    (``timeout``, ``max_retries``, ``stream_retries``): HTTP settings, unrelated to the code-execution
    ``timeout`` and the revise ``max_retries`` above. Raises :class:`SettingsError` when no key is
    configured (a local server gets :data:`PLACEHOLDER_API_KEY`).
    """
    workdir = settings.workdir if isinstance(settings, ResolvedSettings) else None
    plain = settings.settings if isinstance(settings, ResolvedSettings) else settings
    api_key = plain.require_api_key(workdir)
    from twnb.llm.client import OpenAIChatClient  # the openai SDK is heavy: import it only when used

    if redactor is not None:
        client_options["redact"] = redactor.redact
    return OpenAIChatClient(
        api_key,
        plain.base_url,
        azure_endpoint=plain.azure_endpoint,
        api_version=plain.api_version,
        **client_options,
    )


def _checked_layer(values: Mapping[str, Any] | None, where: str) -> dict[str, Any]:
    values = dict(values or {})
    for name in values:
        if name in _KEY_FIELDS:
            raise SettingsError(
                f"The API key cannot be set through {where}: it would end up in the notebook. "
                f"Put it in the environment or in a .env file next to the notebook, "
                f"e.g. {DEFAULT_API_KEY_ENV}=..., or name the variable that holds it with api_key_env."
            )
        if name not in _SPEC_BY_FIELD:
            known = ", ".join(s.field for s in _SPECS)
            raise SettingsError(f"Unknown setting {name!r} in {where}; known settings: {known}.")
    return values


def _is_set(value: Any) -> bool:
    return value is not None and value != ""


def _coerce(spec: _Spec, raw: Any, source: Source) -> Any:
    def bad(expected: str) -> SettingsError:
        return SettingsError(f"{spec.field} from {source.describe()} must be {expected}, got {raw!r}.")

    if spec.kind is str:
        if isinstance(raw, (dict, list, bool)):
            raise bad("a string")
        return str(raw).strip()
    if spec.kind is bool:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise bad("true or false")
    if spec.kind is tuple:  # a YAML or traitlet list, or "a, b" from the environment
        items = raw if isinstance(raw, (list, tuple)) else str(raw).split(",")
        names = tuple(str(item).strip() for item in items if str(item).strip())
        if not all(_MODULE_NAME.fullmatch(name) for name in names):
            raise bad("module names such as polars, duckdb")
        return names
    if spec.kind is int:
        if isinstance(raw, bool):
            raise bad("a whole number")
        try:
            return int(str(raw).strip()) if not isinstance(raw, int) else raw
        except ValueError:
            raise bad("a whole number") from None
    if isinstance(raw, bool):
        raise bad("a number of seconds")
    try:
        return float(raw)
    except (TypeError, ValueError):
        raise bad("a number of seconds") from None


def _validate(settings: Settings, sources: dict[str, Source]) -> None:
    def where(name: str) -> str:
        return sources.get(name, Source(DEFAULT)).describe()

    if settings.timeout <= 0:
        raise SettingsError(f"timeout from {where('timeout')} must be more than 0 seconds.")
    if settings.max_retries < 0:
        raise SettingsError(f"max_retries from {where('max_retries')} must be 0 or more.")
    if settings.max_posts < 1:
        raise SettingsError(f"max_posts from {where('max_posts')} must be at least 1.")
    if settings.record and settings.replay:
        raise SettingsError(
            f"record (from {where('record')}) and replay (from {where('replay')}) exclude each other: "
            "a session either records a cassette or replays one. Unset one of them."
        )
    for name in ("base_url", "azure_endpoint"):
        url = getattr(settings, name)
        if url and urlparse(url).scheme not in ("http", "https"):
            raise SettingsError(
                f"{name} from {where(name)} must be an http(s) URL such as "
                f"http://localhost:11434/v1, got {url!r}."
            )


def _find_api_key(
    settings: Settings,
    key_env_is_explicit: bool,
    environ: Mapping[str, str],
    dotenv: Mapping[str, str],
    dotenv_path: Path,
) -> tuple[str, Source] | None:
    if key_env_is_explicit:
        names: tuple[str, ...] = (settings.api_key_env,)
    elif settings.is_azure:
        names = ("AZURE_OPENAI_API_KEY", "OPENAI_API_KEY", "LLM_API_KEY")
    else:
        names = ("OPENAI_API_KEY", "LLM_API_KEY")
    for layer, values, path in ((ENVIRONMENT, environ, None), (DOTENV, dotenv, dotenv_path)):
        for name in names:
            value = values.get(name)
            if value and value.strip():
                return value.strip(), Source(layer, name, None if path is None else str(path))
    return None


def _is_local_server(settings: Settings) -> bool:
    if settings.is_azure or not settings.base_url:
        return False
    host = urlparse(settings.base_url).hostname or ""
    return not host.endswith("openai.com")


def _read_yaml(path: Path) -> dict[str, Any]:
    """A twnb YAML file as flat dotted keys (nested mappings and TaskWeaver's dotted keys both work)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError):
        return {}
    import yaml  # only when a file exists: keeps `import twnb.llm.settings` cheap

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        raise SettingsError(f"{path} is not valid YAML{at}: {getattr(exc, 'problem', exc)}.") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SettingsError(
            f"{path} must be a YAML mapping such as 'llm: {{model: gpt-4o-mini}}', "
            f"not a {type(data).__name__}."
        )
    flat: dict[str, Any] = {}
    _flatten(data, "", flat)
    for key in _YAML_KEY_KEYS:
        if key in flat:
            # Warn rather than fail: the user can still work, and the value is never read or echoed.
            warnings.warn(
                f"{path} holds {key}; twnb never reads API keys from YAML files (they get shared). "
                f"Move it to the environment or a .env file as {DEFAULT_API_KEY_ENV}=...",
                stacklevel=3,
            )
            del flat[key]
    return flat


def _flatten(data: Mapping[Any, Any], prefix: str, out: dict[str, Any]) -> None:
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            _flatten(value, dotted + ".", out)
        else:
            out[dotted] = value


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
