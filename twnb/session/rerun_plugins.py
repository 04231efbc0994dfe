"""Plugins for recorded code run again: `twnb export --execute` (a fresh kernel) and `%taskweaver load
--rerun` bind the plugins the settings describe before the code runs, as a session does before a
Round, and name in one line each plugin the code calls that is still not there.

Only what the user provides here is bound as a plugin: the TaskWeaver plugin folders (`plugin_dirs`,
or `plugins/` beside the notebook), the MCP servers of twnb.yaml, and in the user's own kernel the
functions they marked with `@twnb.plugin`. A function a recorded cell defines is recorded code like the
rest: it runs as such (under the runtime guard), never with a plugin's trust, since a conversation file
may come from anyone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

__all__ = ["bind_rerun_plugins", "missing_plugin_line", "missing_plugin_lines"]

# Where the catalog a fresh kernel's re-run bound is kept (its plugins and MCP servers live with it).
KEPT_AS = "__twnb_rerun_plugins"


def missing_plugin_line(name: str) -> str:
    """Why a plugin the recorded code calls is not there, and how to provide it (one line)."""
    return (
        f"The plugin {name} that the recorded code calls is not here: put its TaskWeaver plugin folder "
        "in plugin_dirs (or plugins/ beside the notebook), its MCP server in twnb.yaml's mcp.servers, "
        f"or define {name} with @twnb.plugin in a cell first."
    )


def missing_plugin_lines(needed: Iterable[str], namespace: Mapping[str, object]) -> list[str]:
    """One line per plugin in `needed` that `namespace` lacks."""
    return [missing_plugin_line(name) for name in needed if name not in namespace]


def bind_rerun_plugins(shell: InteractiveShell, *, workdir: str, needed: Iterable[str] = ()) -> list[str]:
    """In the kernel of a re-run (before any recorded code runs): bind the plugins the settings of
    `workdir` describe into `shell`'s namespace, and keep them for the kernel's life. Returns one line
    per plugin that could not be loaded and per plugin in `needed` still missing."""
    # lazy: twnb.session.factory (~240 ms, 226 modules) and the settings' resolver (~30 ms), in a
    # re-run's kernel only: missing_plugin_lines needs neither
    from twnb.config import resolve_settings
    from twnb.session.factory import plugin_catalog

    folder = Path(workdir)
    try:
        resolved = resolve_settings(workdir=folder)
    except ValueError as error:
        lines = [f"The plugins were not bound: the settings do not resolve ({' '.join(str(error).split())})."]
        return lines + missing_plugin_lines(needed, shell.user_ns)
    session_dir = Path(resolved.settings.session_dir).expanduser()
    catalog = plugin_catalog(
        resolved,
        workdir=folder,
        session_dir=session_dir if session_dir.is_absolute() else folder / session_dir,
        namespace=shell.user_ns,
        hidden=shell.user_ns_hidden,
        notebook_names=(),
        session_id=lambda: "rerun",
    )
    problems = [f"Plugin {line}" for line in catalog.refresh()]
    shell.user_ns_hidden[KEPT_AS] = catalog
    return problems + missing_plugin_lines(needed, shell.user_ns)
