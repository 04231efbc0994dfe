"""The secrets some settings hold: plugin configurations and MCP servers' environments and headers.

A value counts when its key is named like a secret (the same rule as the environment's:
`is_secret_name`, `api_key`, `GITHUB_TOKEN`, `db_password`) or like a credential field
(`Authorization`); a `Bearer ...` value counts whole and without its scheme. The Redactor built from
the settings knows them from the start, so a plugin or a server that prints its key, or an error that
quotes it, never carries it into a prompt, a saved Round or the notebook.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from twnb.config.secret_rules import MIN_SECRET_LENGTH, is_credential_field, is_secret_name

if TYPE_CHECKING:
    from twnb.config.settings import Settings

__all__ = ["settings_secrets"]


def settings_secrets(settings: Settings) -> list[str]:
    """Secret values in `settings.plugin_config` and `settings.mcp_servers` (env and headers)."""
    found: list[str] = []
    for values in (settings.plugin_config or {}).values():
        if isinstance(values, Mapping):
            found.extend(_secret_values(values))
    for server in (settings.mcp_servers or {}).values():
        for key in ("env", "headers"):
            section = server.get(key) if isinstance(server, Mapping) else None
            if isinstance(section, Mapping):
                found.extend(_secret_values(section))
    return found


def _secret_values(values: Mapping[Any, Any]) -> Iterator[str]:
    for key, value in values.items():
        if not isinstance(value, str) or not (is_secret_name(str(key)) or is_credential_field(str(key))):
            continue
        text = value.strip()
        if len(text) >= MIN_SECRET_LENGTH:
            yield text
        scheme, _, token = text.partition(" ")
        if token and scheme.lower() in ("bearer", "basic", "token") and len(token) >= MIN_SECRET_LENGTH:
            yield token.strip()
