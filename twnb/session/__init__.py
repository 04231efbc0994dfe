"""session layer: the Round driver, autosave, limits, cancellation.

See docs/architecture.md, "A Round's data flow".

Names are exported lazily so that `import twnb.session.round_bundle` (the notebook's MIME bundle) does
not pull in the roles and the LLM client.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "CodeRequest": "twnb.session.code_request",
    "Session": "twnb.session.session",
    "RoundLimitReached": "twnb.session.session",
    "build_session": "twnb.session.factory",
    "build_live_session": "twnb.session.factory",
    "redactor_for": "twnb.session.factory",
    "load_autosaved_conversation": "twnb.session.autosave",
    "is_autosave_file": "twnb.session.autosave",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'twnb.session' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
