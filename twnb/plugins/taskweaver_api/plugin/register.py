"""`taskweaver.plugin.register`: `@register_plugin`, which hands a plugin class (or a plain function,
wrapped in one) to the runtime loading the file.

The runtime sets `register_plugin_inner` (and `register_plugin_test_inner`) on this module while it
imports a plugin file, as TaskWeaver's runtime does, so the same loader works with TaskWeaver's own
module when TaskWeaver is installed. Imported with no runtime listening, registering says so and does
nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twnb.plugins.taskweaver_api.plugin.base import Plugin

__all__ = ["register_plugin", "test_plugin"]

register_plugin_inner: Callable[[type[Plugin]], None] | None = None
register_plugin_test_inner: Callable[[str, str, Callable[..., Any]], None] | None = None


def register_plugin(func: Any) -> Any:
    """Register a `Plugin` subclass, or a function (called with the plugin's arguments)."""
    if register_plugin_inner is None:
        print("no registry for loading plugin")
    elif isinstance(func, type) and issubclass(func, Plugin):
        register_plugin_inner(func)
    elif callable(func):
        register_plugin_inner(_function_plugin(func))
    else:
        raise TypeError("only a Plugin subclass or a function can be registered as a plugin")
    return func


def _function_plugin(func: Callable[..., Any]) -> type[Plugin]:
    name = getattr(func, "__name__", "function")

    def call(self: Plugin, *args: Any, **kwargs: Any) -> Any:
        self.log("info", f"calling function {name}")
        return func(*args, **kwargs)

    return type(f"FuncPlugin_{name}", (Plugin,), {"__call__": call})


def test_plugin(name: str | None = None, description: str | None = None) -> Callable[[Any], Any]:
    """Register a self-test of the plugin file (run by TaskWeaver's plugin tool; twnb keeps them)."""

    def register(func: Any) -> Any:
        if register_plugin_test_inner is None:
            print("no registry for loading plugin")
        elif callable(func):
            test_name = name if name is not None else func.__name__
            about = description if description is not None else (func.__doc__ or "")
            register_plugin_test_inner(test_name, about, func)
        return func

    return register
