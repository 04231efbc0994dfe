"""config layer: the one settings table, its resolution, and the rules that decide what is secret
(docs/architecture.md, "Layers"; contract 4).

`__all__` is the layer's public API. The names load lazily: `%load_ext twnb` reads the settings table
(for the traitlets) and the secret rules, never the resolver, `.env` reading or the redactor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_exports

if TYPE_CHECKING:
    from twnb.config.confinement import CONFINED_ENV, Confinement
    from twnb.config.file_trust import FileTrust
    from twnb.config.redaction import RedactingFilter, Redactor
    from twnb.config.resolution import resolve_settings
    from twnb.config.secret_rules import (
        MIN_KEY_LENGTH,
        MIN_SECRET_LENGTH,
        REDACTED,
        has_secret_shape,
        is_credential_field,
        is_credential_variable,
        is_secret_name,
        mentions_secret_name,
        redact_shapes,
        secret_environment_values,
    )
    from twnb.config.settings import ResolvedSettings, Settings, SettingsError, Source
    from twnb.config.table import (
        DEFAULT_API_KEY_ENV,
        DEFAULT_AZURE_API_VERSION,
        PLACEHOLDER_API_KEY,
        SETTINGS,
        SETTINGS_BY_NAME,
        Setting,
    )

__all__ = [
    "CONFINED_ENV",
    "DEFAULT_API_KEY_ENV",
    "DEFAULT_AZURE_API_VERSION",
    "MIN_KEY_LENGTH",
    "MIN_SECRET_LENGTH",
    "PLACEHOLDER_API_KEY",
    "REDACTED",
    "SETTINGS",
    "SETTINGS_BY_NAME",
    "Confinement",
    "FileTrust",
    "RedactingFilter",
    "Redactor",
    "ResolvedSettings",
    "Setting",
    "Settings",
    "SettingsError",
    "Source",
    "has_secret_shape",
    "is_credential_field",
    "is_credential_variable",
    "is_secret_name",
    "mentions_secret_name",
    "redact_shapes",
    "resolve_settings",
    "secret_environment_values",
]

if not TYPE_CHECKING:  # the type checker reads the imports above, and a name not there is an error
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "CONFINED_ENV": "confinement",
            "Confinement": "confinement",
            "FileTrust": "file_trust",
            "RedactingFilter": "redaction",
            "Redactor": "redaction",
            "resolve_settings": "resolution",
            "MIN_KEY_LENGTH": "secret_rules",
            "MIN_SECRET_LENGTH": "secret_rules",
            "REDACTED": "secret_rules",
            "has_secret_shape": "secret_rules",
            "is_credential_field": "secret_rules",
            "is_credential_variable": "secret_rules",
            "is_secret_name": "secret_rules",
            "mentions_secret_name": "secret_rules",
            "redact_shapes": "secret_rules",
            "secret_environment_values": "secret_rules",
            "ResolvedSettings": "settings",
            "Settings": "settings",
            "SettingsError": "settings",
            "Source": "settings",
            "DEFAULT_API_KEY_ENV": "table",
            "DEFAULT_AZURE_API_VERSION": "table",
            "PLACEHOLDER_API_KEY": "table",
            "SETTINGS": "table",
            "SETTINGS_BY_NAME": "table",
            "Setting": "table",
        },
    )
