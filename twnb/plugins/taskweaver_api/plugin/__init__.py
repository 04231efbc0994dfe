"""`taskweaver.plugin`: the base class and the decorator a plugin file imports."""

from twnb.plugins.taskweaver_api.plugin.base import Plugin
from twnb.plugins.taskweaver_api.plugin.register import register_plugin, test_plugin

__all__ = ["Plugin", "register_plugin", "test_plugin"]
