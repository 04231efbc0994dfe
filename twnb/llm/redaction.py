"""The redactor and the secret rules, as the LLM layer has always exported them.

Both live in `twnb.config` (one set of rules for the redactor and the kernel's screen); importing them
from here keeps older code and notebooks working.
"""

from __future__ import annotations

from twnb.config.redaction import RedactingFilter, Redactor
from twnb.config.secret_rules import (
    MIN_KEY_LENGTH,
    MIN_SECRET_LENGTH,
    REDACTED,
    is_credential_field,
    is_secret_name,
)

__all__ = [
    "MIN_KEY_LENGTH",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "RedactingFilter",
    "Redactor",
    "is_credential_field",
    "is_secret_name",
]
