"""config layer: the one settings table, its resolution, and the rules that decide what is secret
(docs/architecture.md, "Layers"; contract 4).

`__all__` is the layer's public API. The names load lazily: `%load_ext twnb` reads the settings table
(for the traitlets) and the secret rules, never the resolver, `.env` reading or the redactor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.config.confinement import CONFINED_ENV as CONFINED_ENV
    from twnb.config.confinement import Confinement as Confinement
    from twnb.config.file_trust import FileTrust as FileTrust
    from twnb.config.kernel_end import KernelEnd as KernelEnd
    from twnb.config.kernel_end import elsewhere_line as elsewhere_line
    from twnb.config.kernel_end import quarantine_review as quarantine_review
    from twnb.config.kernel_end import recorded_elsewhere as recorded_elsewhere
    from twnb.config.namespace_processes import has_exited as has_exited
    from twnb.config.namespace_processes import namespace_members as namespace_members
    from twnb.config.quarantine import FolderQuarantine as FolderQuarantine
    from twnb.config.quarantine import LaunchRecord as LaunchRecord
    from twnb.config.quarantine import QuarantineError as QuarantineError
    from twnb.config.redaction import RedactingFilter as RedactingFilter
    from twnb.config.redaction import Redactor as Redactor
    from twnb.config.resolution import resolve_settings as resolve_settings
    from twnb.config.secret_rules import MIN_KEY_LENGTH as MIN_KEY_LENGTH
    from twnb.config.secret_rules import MIN_SECRET_LENGTH as MIN_SECRET_LENGTH
    from twnb.config.secret_rules import REDACTED as REDACTED
    from twnb.config.secret_rules import has_secret_shape as has_secret_shape
    from twnb.config.secret_rules import is_credential_field as is_credential_field
    from twnb.config.secret_rules import is_credential_variable as is_credential_variable
    from twnb.config.secret_rules import is_secret_name as is_secret_name
    from twnb.config.secret_rules import mentions_secret_name as mentions_secret_name
    from twnb.config.secret_rules import redact_shapes as redact_shapes
    from twnb.config.secret_rules import secret_environment_values as secret_environment_values
    from twnb.config.settings import ResolvedSettings as ResolvedSettings
    from twnb.config.settings import Settings as Settings
    from twnb.config.settings import SettingsError as SettingsError
    from twnb.config.settings import Source as Source
    from twnb.config.table import DEFAULT_API_KEY_ENV as DEFAULT_API_KEY_ENV
    from twnb.config.table import DEFAULT_AZURE_API_VERSION as DEFAULT_AZURE_API_VERSION
    from twnb.config.table import PLACEHOLDER_API_KEY as PLACEHOLDER_API_KEY
    from twnb.config.table import SETTINGS as SETTINGS
    from twnb.config.table import SETTINGS_BY_NAME as SETTINGS_BY_NAME
    from twnb.config.table import Setting as Setting
    from twnb.config.tool_settings import settings_at_start as settings_at_start
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
