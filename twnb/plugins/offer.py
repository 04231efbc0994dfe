"""What a Round's prompts are told of the plugins: `PluginOffer`, and the protocol the roles ask it of.

The CodeInterpreter gets TaskWeaver's Python stubs of the plugins offered (signature, description,
arguments, returns: `PluginEntry.format_prompt`), the Planner one line each (TaskWeaver's
`plugin_description`). Both go in a section of their own at the end of the system message, so the
prompt's prefix stays the same from call to call while the plugins offered do (a new plugin, or a
different choice for a new request, changes it once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from twnb.memory import PluginOfferRecord

__all__ = ["NO_PLUGINS", "PluginOffer", "PluginOffers"]


@dataclass(frozen=True)
class PluginOffer:
    """`stubs` for the CodeInterpreter, `planner_lines` for the Planner ("" when there is no plugin),
    `functions`: the names offered (all generated code may call in plugin-only mode), `record`: what
    the Round keeps of the choice."""

    stubs: str = ""
    planner_lines: str = ""
    functions: tuple[str, ...] = ()
    plugin_only: bool = False
    record: PluginOfferRecord = field(
        default_factory=lambda: PluginOfferRecord(described=[], available=0, chosen_by="all", scores={})
    )


NO_PLUGINS = PluginOffer()


class PluginOffers(Protocol):
    """Whatever gives a Round's roles their plugins (the session's PluginCatalog)."""

    def offer(self, round_id: str, request: str, plugin_only: bool) -> PluginOffer:
        """The plugins to describe in Round `round_id` for `request` (the same answer for every call of
        one Round)."""
        ...
