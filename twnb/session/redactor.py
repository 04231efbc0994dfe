"""The one Redactor a session, an export or a saved file uses, from the settings. Apart from the
factory, so writing a conversation (`twnb export x.ipynb -o x.yaml`) loads the redaction rules and
not the kernel layer, the roles and the LLM client the factory builds sessions from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.config import Redactor

if TYPE_CHECKING:
    from twnb.config import ResolvedSettings


def redactor_for(resolved: ResolvedSettings | None) -> Redactor:
    """The Redactor for these settings: the configured key, `.env` secrets, the live environment.
    Without settings (None: they failed to resolve) the environment and the key shapes still count."""
    return Redactor.from_settings(resolved) if resolved is not None else Redactor()
