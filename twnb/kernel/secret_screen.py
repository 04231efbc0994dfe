"""Recognising what looks secret, so the kernel layer never hands it to a prompt.

Generated code runs in the process that holds the user's API keys. Names and values are screened by
shape; this guards against accidents, not against code written to exfiltrate.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

_SECRET_NAME = re.compile(r"key|token|secret|passw(or)?d|credential", re.IGNORECASE)
# Key-shaped strings: vendor prefixes, JWTs, long hex or base64 runs.
_SECRET_VALUE = re.compile(
    r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{8,}"
    r"|(?:ghp|gho|ghu|ghs|github_pat|xox[abpr]|hf)_[A-Za-z0-9_]{10,}"
    r"|AKIA[0-9A-Z]{16}"
    r"|AIza[0-9A-Za-z_\-]{20,}"
    r"|eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]*"
    r"|\b[0-9a-fA-F]{32,}\b"
    # A long run of letters and digits mixing all three kinds; identifiers with underscores do not match.
    r"|\b(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*[a-z])[A-Za-z0-9]{32,}\b"
)
_ENV_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
HIDDEN = "[hidden]"


def looks_secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


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
        source = os.environ if environ is None else environ
        values = {v for k, v in source.items() if _ENV_SECRET_NAME.search(k) and len(v) >= 8}
        return cls(tuple(sorted(values, key=len, reverse=True)))  # longest first: no partial replace

    def looks_secret_value(self, text: str) -> bool:
        return bool(_SECRET_VALUE.search(text)) or any(v in text for v in self.environment_values)

    def redact(self, text: str) -> str:
        """`text` with environment secrets and key-shaped strings replaced by "[hidden]"."""
        for value in self.environment_values:
            text = text.replace(value, HIDDEN)
        return _SECRET_VALUE.sub(HIDDEN, text)


def redact_secrets(text: str) -> str:
    """`text` with environment secrets and key-shaped strings replaced by "[hidden]"."""
    return SecretScreen.from_environment().redact(text)
