"""`%taskweaver plugins`: every plugin the notebook has, where it comes from, whether it can be used and
why not, as a table (plain text and Markdown)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from twnb.notebook.history_table import table_bundle
from twnb.render import shorten

if TYPE_CHECKING:
    from twnb.plugins import PluginState

NO_PLUGINS = (
    "No plugins. TaskWeaver plugins go in a plugins/ folder beside the notebook (or the folders of "
    "%config TaskWeaverMagics.plugin_dirs); @twnb.plugin or %taskweaver plugins add NAME makes a "
    "notebook function one; MCP servers' tools come from mcp.servers in twnb.yaml."
)
_COLUMNS = ("plugin", "source", "state", "description or why not loaded", "from")
_TEXT_CHARS = 100
_WHERE_CHARS = 60


def plugins_bundle(states: Sequence[PluginState], redact: Callable[[str], str]) -> dict[str, str]:
    """The table of `states` (PluginState rows); every cell goes through `redact` (a configuration
    or a server's error may quote a secret)."""
    if not states:
        return {"text/plain": NO_PLUGINS, "text/markdown": NO_PLUGINS}
    rows = []
    for state in states:
        about = state.problem if state.problem else (state.entry.description if state.entry else "")
        rows.append(
            tuple(
                redact(cell)
                for cell in (
                    state.name,
                    state.source,
                    state.state,
                    shorten(" ".join(str(about).split()), _TEXT_CHARS),
                    shorten(str(state.where), _WHERE_CHARS),
                )
            )
        )
    bundle = table_bundle(_COLUMNS, rows, code_column=0)
    loaded = sum(1 for state in states if state.usable)
    note = f"\n\n{loaded} of {len(states)} can be used; generated code calls each by its name."
    return {kind: text + note for kind, text in bundle.items()}
