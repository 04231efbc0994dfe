"""twnb's settings as the running session holds them, put back when a Round's code changed them.

Settings change by the user's hand only. Generated code runs in the notebook's own process, where the
session's objects are within reach (`get_ipython().magics_manager.registry['TaskWeaverMagics']`, the
executor, the CodeInterpreter's verification): the traitlets refuse a change from generated code as it
is made (notebook/magics.py), and this watch catches what went round that (a trait's stored value
written directly, an attribute of the session's objects). Each place is (holder, attribute, name); its
value is kept when the Round starts (a shallow copy, so a change made in place is seen too) and
compared after each run; what changed is put back and said, one line each.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any


@dataclass
class SettingsWatch:
    places: list[tuple[Any, str, str]] = field(default_factory=list)
    _kept: list[tuple[Any, str, str, Any, str]] = field(default_factory=list)

    def watch(self, holder: Any, attribute: str, name: str) -> None:
        self.places.append((holder, attribute, name))

    def start(self) -> None:
        """Keep the values of every place as they are now (the user's)."""
        self._kept = []
        for holder, attribute, name in self.places:
            value = getattr(holder, attribute, None)
            self._kept.append((holder, attribute, name, _copy(value), _shown(value)))

    def check(self) -> list[str]:
        """Put back what changed since `start`; one line for each."""
        lines = []
        for holder, attribute, name, kept, shown in self._kept:
            value = getattr(holder, attribute, None)
            if _shown(value) == shown and type(value) is type(kept):
                continue
            restore = getattr(holder, "_twnb_restore", None)  # one that tells a put-back from a change
            try:
                if callable(restore):
                    restore(attribute, _copy(kept))
                else:
                    setattr(holder, attribute, _copy(kept))
            except Exception:  # a holder that refuses: said all the same
                pass
            lines.append(
                f"Generated code changed the setting {name} while it ran; twnb put it back (settings "
                "change by the user's hand only)."
            )
        return lines


def _copy(value: Any) -> Any:
    try:
        return copy.copy(value)
    except Exception:
        return value


def _shown(value: Any) -> str:
    try:
        return repr(value)
    except Exception:
        return object.__repr__(value)
