"""Recognising what looks secret, so the kernel layer never hands it to a prompt.

Generated code runs in the process that holds the user's API keys. Names and values are screened by
the rules of `twnb.config.secret_rules` (the same the redactor uses); this guards against accidents,
not against code written to exfiltrate.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from twnb.config import (
    has_secret_shape,
    is_credential_variable,
    is_secret_name,
    mentions_secret_name,
    redact_shapes,
    secret_environment_values,
)

HIDDEN = "[hidden]"

__all__ = [
    "HIDDEN",
    "SecretScreen",
    "looks_secret_name",
    "mentions_secret_name",
    "redact_secrets",
    "secret_variable_values",
]


def looks_secret_name(name: str) -> bool:
    """True for a variable name whose value is a secret (`api_key`, `dbPassword`, `GITHUB_TOKEN`)."""
    return is_secret_name(name)


@dataclass(frozen=True)
class SecretScreen:
    """The environment's secret values, read once, and the checks that use them.

    Reading `os.environ` costs far more than one regex search; a caller screening many texts (the
    namespace summary: one per variable) builds one screen and reuses it. Build a new one per call so a
    key set in `os.environ` meanwhile is screened too.
    """

    environment_values: tuple[str, ...] = ()

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> SecretScreen:
        # Values of variables such as OPENAI_API_KEY: a user variable holding one must not leak by value.
        values = secret_environment_values(os.environ if environ is None else environ)
        return cls(tuple(sorted(values, key=len, reverse=True)))  # longest first: no partial replace

    def looks_secret_value(self, text: str) -> bool:
        return has_secret_shape(text) or any(v in text for v in self.environment_values)

    def redact(self, text: str) -> str:
        """`text` with environment secrets and secret-shaped strings replaced by "[hidden]"."""
        for value in self.environment_values:
            text = text.replace(value, HIDDEN)
        return redact_shapes(text, HIDDEN)


def redact_secrets(text: str) -> str:
    """`text` with environment secrets and secret-shaped strings replaced by "[hidden]"."""
    return SecretScreen.from_environment().redact(text)


# A secret is a key, a password, a PEM block: a longer text under a secret name (`token_counts_report`)
# is data, and the redactor looks for each secret it knows in every spelling.
MAX_SECRET_VARIABLE_CHARS = 8192


def secret_variable_values(namespace: Mapping[str, object]) -> list[str]:
    """The text values of the namespace's credential variables (`hf_token`, `dbPassword`, by
    `is_credential_variable`): the redactor keeps them as secrets after the variable is deleted or
    rebound."""
    values = []
    for name, value in list(namespace.items()):
        if (
            not isinstance(value, str | bytes)
            or len(value) > MAX_SECRET_VARIABLE_CHARS
            or name.startswith("_")
        ):
            continue
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if is_credential_variable(name, text):
            values.append(text)
    return values
