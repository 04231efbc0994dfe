"""Resolving every setting of the table from every place a user may put it.

Highest first (docs/architecture.md, contract 4): magic flags > ``%config TaskWeaverMagics.*`` >
environment > ``.env`` in the notebook's folder (read without changing ``os.environ``) > ``twnb.yaml``
there > ``~/.config/twnb/config.yaml`` > defaults. Every value remembers where it came from so
``%taskweaver config`` can say so.

The API key is the exception: it is never a flag, a traitlet or a YAML value, only an environment (or
``.env``) variable, and it never appears in ``repr``, ``to_dict`` or ``describe()``. Local
OpenAI-compatible servers (Ollama, vLLM, llama.cpp, LM Studio) usually need no key, but the openai SDK
refuses to start without one, so when a non-OpenAI base URL is set and no key is found the key is
:data:`~twnb.config.table.PLACEHOLDER_API_KEY`, which such servers ignore.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from twnb.config.dotenv import read_dotenv
from twnb.config.file_trust import FileTrust
from twnb.config.secret_rules import MIN_SECRET_LENGTH, is_secret_name
from twnb.config.settings import (
    DEFAULT,
    DOTENV,
    ENVIRONMENT,
    FLAG,
    PLACEHOLDER,
    PROJECT_YAML,
    TRAITLET,
    USER_YAML,
    ResolvedSettings,
    Settings,
    SettingsError,
    Source,
)
from twnb.config.table import (
    DEFAULT_API_KEY_ENV,
    DEFAULT_AZURE_API_VERSION,
    PLACEHOLDER_API_KEY,
    SETTINGS,
    SETTINGS_BY_NAME,
    Setting,
)

__all__ = ["PROJECT_FILE", "USER_FILE", "resolve_settings"]

PROJECT_FILE = "twnb.yaml"
USER_FILE = Path(".config") / "twnb" / "config.yaml"

_YAML_KEY_KEYS = ("llm.api_key", "llm.openai.api_key", "llm.azure.api_key")
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_PORT = re.compile(r"([A-Za-z0-9.\-]+:|\[[0-9A-Fa-f:.]+\]:)?[0-9]{1,5}")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def resolve_settings(
    *,
    overrides: Mapping[str, Any] | None = None,
    traitlets: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    workdir: Path | None = None,
    home: Path | None = None,
    file_trust: FileTrust | None = None,
    traitlet_origins: Mapping[str, str] | None = None,
) -> ResolvedSettings:
    """Resolve every setting of the table by precedence.

    ``overrides`` are the magic flags and ``traitlets`` the ``%config`` values, both keyed by setting
    name; ``None`` or ``""`` there means "not set". ``environ`` defaults to ``os.environ`` (only read),
    ``workdir`` to the current directory and ``home`` to the user's home. ``file_trust`` (the
    notebook's) keeps out a settings file generated code wrote (file_trust.py);
    ``traitlet_origins`` says how each traitlet was set, when not with ``%config``.
    """
    environ = os.environ if environ is None else environ
    workdir = Path.cwd() if workdir is None else Path(workdir)
    home = Path.home() if home is None else Path(home)
    flags = _checked_layer(overrides, "magic flags")
    config = _checked_layer(traitlets, "%config TaskWeaverMagics")
    origins = dict(traitlet_origins or {})

    def allowed(path: Path) -> bool:
        return file_trust is None or file_trust.allows(path, "settings")

    dotenv_path = workdir / ".env"
    dotenv = read_dotenv(dotenv_path) if allowed(dotenv_path) else {}
    project_path = workdir / PROJECT_FILE
    project = _read_yaml(project_path) if allowed(project_path) else {}
    user_path = home / USER_FILE
    user = _read_yaml(user_path) if allowed(user_path) else {}

    def lookup(row: Setting) -> tuple[Any, Source] | None:
        if _is_set(flags.get(row.name)):
            return flags[row.name], Source(FLAG, row.name)
        if row.traitlet and _is_set(config.get(row.name)):
            return config[row.name], Source(TRAITLET, row.name, origins.get(row.name))
        for layer, values, path in ((ENVIRONMENT, environ, None), (DOTENV, dotenv, dotenv_path)):
            for name in row.env:
                if _is_set(values.get(name)):
                    return values[name], Source(layer, name, None if path is None else str(path))
        for layer, values, path in ((PROJECT_YAML, project, project_path), (USER_YAML, user, user_path)):
            if row.yaml_key and _is_set(values.get(row.yaml_key)):
                return values[row.yaml_key], Source(layer, row.yaml_key, str(path))
        return None

    values: dict[str, Any] = {}
    sources: dict[str, Source] = {}
    for row in SETTINGS:
        found = None if row.kind == "secret" else lookup(row)
        if found is not None:
            raw, source = found
            values[row.name] = _coerce(row, raw, source)
            sources[row.name] = source

    settings = Settings(**values)
    for row in SETTINGS:
        if row.same_as and row.name not in sources and getattr(settings, row.same_as):
            setattr(settings, row.name, getattr(settings, row.same_as))
            sources[row.name] = Source(DEFAULT, row.same_as)
    if settings.is_azure and not settings.api_version:
        settings.api_version = DEFAULT_AZURE_API_VERSION
    _validate(settings, sources)

    key_source = _find_api_key(settings, "api_key_env" in sources, environ, dotenv, dotenv_path)
    if key_source is not None:
        settings.api_key, sources["api_key"] = key_source
    elif _is_local_server(settings):
        settings.api_key = PLACEHOLDER_API_KEY
        sources["api_key"] = Source(PLACEHOLDER)

    # The same rule the redactor applies to the live environment's variables.
    dotenv_secrets = tuple(v for k, v in dotenv.items() if is_secret_name(k) and len(v) >= MIN_SECRET_LENGTH)
    return ResolvedSettings(settings, sources, workdir, dotenv_secrets)


def _checked_layer(values: Mapping[str, Any] | None, where: str) -> dict[str, Any]:
    values = dict(values or {})
    for name in values:
        row = SETTINGS_BY_NAME.get(name)
        if row is not None and row.kind == "secret":
            raise SettingsError(
                f"The API key cannot be set through {where}: it would end up in the notebook. "
                f"Put it in the environment or in a .env file next to the notebook, "
                f"e.g. {DEFAULT_API_KEY_ENV}=..., or name the variable that holds it with api_key_env."
            )
        if row is None:
            known = ", ".join(r.name for r in SETTINGS if r.kind != "secret")
            raise SettingsError(f"Unknown setting {name!r} in {where}; known settings: {known}.")
    return values


def _is_set(value: Any) -> bool:
    return value is not None and value != ""


def _coerce(row: Setting, raw: Any, source: Source) -> Any:
    def bad(expected: str) -> SettingsError:
        return SettingsError(f"{row.name} from {source.describe()} must be {expected}, got {raw!r}.")

    if row.kind in ("text", "url"):
        if isinstance(raw, (dict, list, bool)):
            raise bad("a string")
        text = str(raw).strip()
        if row.kind == "url" and urlparse(text).scheme not in ("http", "https"):
            raise bad("an http(s) URL such as http://localhost:11434/v1")
        return text
    if row.kind == "bool":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise bad("true or false")
    if row.kind == "modules":  # a YAML or traitlet list, or "a, b" from the environment
        items = raw if isinstance(raw, (list, tuple)) else str(raw).split(",")
        names = tuple(str(item).strip() for item in items if str(item).strip())
        if not all(_MODULE_NAME.fullmatch(name) for name in names):
            raise bad("module names such as polars, duckdb (functions: os.remove)")
        return names
    if row.kind == "paths":  # a YAML or traitlet list, or "a:b" (os.pathsep) from the environment
        items = raw if isinstance(raw, (list, tuple)) else str(raw).split(os.pathsep)
        if isinstance(raw, (dict, bool)) or not all(isinstance(item, (str, os.PathLike)) for item in items):
            raise bad(f"folders, e.g. ['plugins'] (or 'plugins{os.pathsep}more' in the environment)")
        return tuple(str(item).strip() for item in items if str(item).strip())
    if row.kind == "ports":  # a YAML or traitlet list, or "8080, db.example.com:5432" from the environment
        items = raw if isinstance(raw, (list, tuple)) else str(raw).split(",")
        if isinstance(raw, (dict, bool)):
            raise bad("ports such as 5432 or db.example.com:5432")
        ports = tuple(str(item).strip() for item in items if str(item).strip())
        if not all(_PORT.fullmatch(port) and 0 < int(port.rpartition(":")[2]) < 65536 for port in ports):
            raise bad("ports such as 5432 or db.example.com:5432")
        return ports
    if row.kind == "prices":
        return _prices(raw, bad)
    if row.kind == "mapping":
        return _mapping(raw, bad)
    if row.kind == "servers":
        return _servers(raw, bad)
    if row.kind == "choice":
        if isinstance(raw, bool) and {"on", "off"} <= set(row.choices):
            raw = "on" if raw else "off"  # YAML reads a bare on/off as a boolean
        text = str(raw).strip().lower()
        if {"on", "off"} <= set(row.choices) and not isinstance(raw, dict | list):
            # TWNB_STEP=1 is on, as it was when step was a yes-or-no setting
            text = {"1": "on", "true": "on", "0": "off", "false": "off"}.get(text, text)
        if isinstance(raw, (dict, list, bool)) or text not in row.choices:
            raise bad("one of " + ", ".join(row.choices))
        return text
    if row.kind == "count":
        if isinstance(raw, bool):
            raise bad("a whole number")
        try:
            number = int(str(raw).strip()) if not isinstance(raw, int) else raw
        except ValueError:
            raise bad("a whole number") from None
        if row.minimum is not None and number < row.minimum:
            raise bad(f"at least {row.minimum}")
        return number
    if isinstance(raw, bool):
        raise bad("a number of seconds")
    try:
        seconds = float(raw)
    except (TypeError, ValueError):
        raise bad("a number of seconds") from None
    if seconds <= 0:
        raise bad("more than 0 seconds")
    return seconds


PRICE_KINDS = ("input", "output", "cached")


def _prices(raw: Any, bad: Any) -> dict[str, dict[str, float]]:
    """model -> {input, output[, cached]} per million tokens, from a mapping or its JSON/YAML text."""
    expected = (
        'prices per million tokens by model, e.g. {"gpt-4o-mini": {"input": 0.15, "output": 0.6, '
        '"cached": 0.075}}'
    )
    if isinstance(raw, str):
        # lazy: yaml (~12 ms, 27 modules) loads when a settings file exists or a setting is given as text
        import yaml  # JSON is YAML

        try:
            raw = yaml.safe_load(raw)
        except yaml.YAMLError:
            raise bad(expected) from None
    if not isinstance(raw, Mapping):
        raise bad(expected)
    prices: dict[str, dict[str, float]] = {}
    for model, price in raw.items():
        if not isinstance(price, Mapping) or not {"input", "output"} <= set(price):
            raise bad(f"{expected}; {model!r} needs an input and an output price")
        unknown = set(price) - set(PRICE_KINDS)
        if unknown:
            raise bad(f"{expected}; {model!r} has {', '.join(sorted(map(str, unknown)))}")
        entry: dict[str, float] = {}
        for kind in PRICE_KINDS:
            if kind in price:
                amount = price[kind]
                if isinstance(amount, bool) or not isinstance(amount, (int, float)) or amount < 0:
                    raise bad(f"{expected}; {model!r} {kind} must be a number of at least 0")
                entry[kind] = float(amount)
        prices[str(model)] = entry
    return prices


def _as_mapping(raw: Any, bad: Any, expected: str) -> Mapping[Any, Any]:
    if isinstance(raw, str):
        import yaml  # JSON is YAML

        try:
            raw = yaml.safe_load(raw)
        except yaml.YAMLError:
            raise bad(expected) from None
    if not isinstance(raw, Mapping):
        raise bad(expected)
    return raw


def _mapping(raw: Any, bad: Any) -> dict[str, dict[str, Any]]:
    """name -> {key: value}, from a mapping or its JSON/YAML text."""
    expected = 'a mapping of names to mappings, e.g. {"sql_pull_data": {"sqlite_db_path": "sales.db"}}'
    result: dict[str, dict[str, Any]] = {}
    for name, values in _as_mapping(raw, bad, expected).items():
        if not isinstance(values, Mapping):
            raise bad(f"{expected}; {name!r} is not a mapping")
        result[str(name)] = {str(key): value for key, value in values.items()}
    return result


MCP_STDIO_KEYS = ("command", "args", "env", "cwd")
MCP_HTTP_KEYS = ("url", "headers")


def _servers(raw: Any, bad: Any) -> dict[str, dict[str, Any]]:
    """MCP servers: name -> {command, args, env, cwd} (stdio) or {url, headers} (streamable HTTP)."""
    expected = (
        'MCP servers by name, e.g. {"files": {"command": "python", "args": ["server.py"], "env": {}}} '
        'or {"search": {"url": "http://localhost:8000/mcp"}}'
    )
    servers: dict[str, dict[str, Any]] = {}
    for name, server in _as_mapping(raw, bad, expected).items():
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", name):
            raise bad(f"{expected}; a server's name is a word such as files or web_search, got {name!r}")
        if not isinstance(server, Mapping):
            raise bad(f"{expected}; {name!r} is not a mapping")
        keys = set(map(str, server))
        if ("command" in keys) == ("url" in keys):
            raise bad(f"{expected}; {name!r} needs a command (stdio) or a url (streamable HTTP), not both")
        allowed = MCP_STDIO_KEYS if "command" in keys else MCP_HTTP_KEYS
        unknown = sorted(keys - set(allowed))
        if unknown:
            raise bad(f"{expected}; {name!r} has {', '.join(unknown)} (it may have {', '.join(allowed)})")
        entry: dict[str, Any] = {}
        for key in ("command", "cwd", "url"):
            if key in server:
                if not isinstance(server[key], str) or not server[key].strip():
                    raise bad(f"{expected}; {name!r} {key} must be text")
                entry[key] = server[key].strip()
        if "url" in entry and urlparse(entry["url"]).scheme not in ("http", "https"):
            raise bad(f"{expected}; {name!r} url must be an http(s) URL")
        args = server.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str | int | float) for a in args):
            raise bad(f"{expected}; {name!r} args must be a list of strings")
        if "command" in entry:
            entry["args"] = [str(a) for a in args]
        for key in ("env", "headers"):
            values = server.get(key)
            if values is None:
                continue
            if not isinstance(values, Mapping) or not all(
                isinstance(v, str | int | float) and not isinstance(v, bool) for v in values.values()
            ):
                raise bad(f"{expected}; {name!r} {key} must map names to strings")
            entry[key] = {str(k): str(v) for k, v in values.items()}
        servers[name] = entry
    return servers


def _validate(settings: Settings, sources: dict[str, Source]) -> None:
    """Rules that involve more than one setting (each value alone was checked by `_coerce`)."""

    def where(name: str) -> str:
        return sources.get(name, Source(DEFAULT)).describe()

    if Path(settings.artifacts_dir).expanduser() == Path("."):
        raise SettingsError(
            f"artifacts_dir (from {where('artifacts_dir')}) is the notebook's folder itself: the files "
            "twnb saves need a folder of their own (the scan for files the code wrote skips it). "
            "Choose a sub-folder, e.g. twnb-artifacts."
        )
    hidden = _hidden_part(settings.artifacts_dir)
    if hidden is not None:
        raise SettingsError(
            f"artifacts_dir {settings.artifacts_dir!r} (from {where('artifacts_dir')}) is inside the hidden "
            f"folder {hidden!r}: Jupyter does not serve hidden folders, so links to the files would not "
            "open. Choose a visible folder, e.g. twnb-artifacts."
        )
    if settings.record and settings.replay:
        raise SettingsError(
            f"record (from {where('record')}) and replay (from {where('replay')}) exclude each other: "
            "a session either records a cassette or replays one. Unset one of them."
        )


def _hidden_part(path: str) -> str | None:
    """The first hidden folder name in `path` (".twnb"), or None; "." and ".." are not hidden."""
    for part in Path(path).expanduser().parts:
        if part.startswith(".") and part not in (".", ".."):
            return part
    return None


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
    import yaml

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


# Settings whose value is itself a mapping (model names may hold dots: never flattened below the key).
_MAPPING_KEYS = frozenset(
    row.yaml_key for row in SETTINGS if row.kind in ("prices", "mapping", "servers") and row.yaml_key
)


def _flatten(data: Mapping[Any, Any], prefix: str, out: dict[str, Any]) -> None:
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and dotted not in _MAPPING_KEYS:
            _flatten(value, dotted + ".", out)
        else:
            out[dotted] = value
