"""plugins layer: TaskWeaver plugins loaded unchanged, the notebook's own functions, and MCP servers'
tools, offered to the CodeInterpreter and callable by name in the kernel (docs/architecture.md,
"Plugins").

Public API (loaded lazily: `%load_ext twnb` and `import twnb` load nothing of this layer):
- `plugin`: the `@twnb.plugin` decorator;
- `PluginCatalog`: a session's plugins from every source, their states, the prompt sections, binding
  into the kernel and the record of each run's calls (catalog.py);
- `PluginExecutor`: an Executor that runs code with the plugins bound and records their calls;
- `PluginOffer`, `PluginOffers`, `NO_PLUGINS`: what a Round's prompts describe, the protocol roles ask
  it of, and the offer of a session without plugins;
- `PluginState`: one plugin's row in `%taskweaver plugins`;
- `McpTools`: the MCP servers' clients, on a loop of their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.plugins.catalog import PluginCatalog as PluginCatalog
    from twnb.plugins.catalog import PluginState as PluginState
    from twnb.plugins.decorator import plugin as plugin
    from twnb.plugins.executor import PluginExecutor as PluginExecutor
    from twnb.plugins.mcp_tools import McpTools as McpTools
    from twnb.plugins.offer import NO_PLUGINS as NO_PLUGINS
    from twnb.plugins.offer import PluginOffer as PluginOffer
    from twnb.plugins.offer import PluginOffers as PluginOffers
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
