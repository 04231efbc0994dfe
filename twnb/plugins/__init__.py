"""The plugins layer: TaskWeaver plugins loaded unchanged, the notebook's own functions, and MCP
servers' tools, offered to the CodeInterpreter and callable by name in the kernel (docs/architecture.md,
"Plugins").

Public API (imported lazily: `%load_ext twnb` and `import twnb` load nothing of this layer):
- `plugin`: the `@twnb.plugin` decorator;
- `PluginCatalog`: a session's plugins from every source, their states, the prompt sections, binding
  into the kernel and the record of each run's calls (catalog.py);
- `PluginExecutor`: an Executor that runs code with the plugins bound and records their calls;
- `PluginOffer`, `PluginOffers`: what a Round's prompts describe, and the protocol roles ask it of;
- `PluginState`: one plugin's row in `%taskweaver plugins`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from twnb.plugins.catalog import PluginCatalog, PluginState
    from twnb.plugins.decorator import plugin
    from twnb.plugins.executor import PluginExecutor
    from twnb.plugins.offer import PluginOffer, PluginOffers

__all__ = ["PluginCatalog", "PluginExecutor", "PluginOffer", "PluginOffers", "PluginState", "plugin"]

_WHERE = {
    "PluginCatalog": "twnb.plugins.catalog",
    "PluginState": "twnb.plugins.catalog",
    "PluginExecutor": "twnb.plugins.executor",
    "PluginOffer": "twnb.plugins.offer",
    "PluginOffers": "twnb.plugins.offer",
    "plugin": "twnb.plugins.decorator",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'twnb.plugins' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
