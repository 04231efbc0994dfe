"""`@twnb.plugin`: make one of the notebook's functions a plugin for the next Round.

    @twnb.plugin
    def top_customers(df: pd.DataFrame, n: int = 5) -> list[str]:
        \"\"\"The n customers with the highest revenue.\"\"\"

The decorator only marks the function (and returns it unchanged): at the start of each Round twnb
looks for marked functions in the notebook's namespace, so running the cell again with a new
definition updates the plugin, and deleting the name removes it. Its spec comes from the signature,
the type hints and the docstring (function_spec.py). Options: `description` (instead of the
docstring's first paragraph), `required` (always described to the CodeInterpreter), `plugin_only`
(offered in plugin-only mode). Importing this costs nothing: `%load_ext twnb` stays fast.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any, TypeVar, overload

__all__ = ["MARK", "plugin", "plugin_options"]

MARK = "__twnb_plugin__"
F = TypeVar("F", bound=Callable[..., Any])


@overload
def plugin(function: F, /) -> F: ...


@overload
def plugin(
    *, description: str | None = None, required: bool = False, plugin_only: bool = False
) -> Callable[[F], F]: ...


def plugin(
    function: Any = None,
    /,
    *,
    description: str | None = None,
    required: bool = False,
    plugin_only: bool = False,
) -> Any:
    """Mark `function` as a plugin (usable bare, `@twnb.plugin`, or with options)."""
    options = {"description": description, "required": bool(required), "plugin_only": bool(plugin_only)}

    def mark(target: F) -> F:
        if not callable(target) or isinstance(target, type):
            raise TypeError(f"@twnb.plugin goes on a function, not on {type(target).__name__}")
        try:
            setattr(target, MARK, options)
        except (AttributeError, TypeError):
            raise TypeError(
                f"@twnb.plugin cannot mark {target!r}: define a function with def and decorate that"
            ) from None
        return target

    return mark(function) if function is not None else mark


def plugin_options(value: Any) -> dict[str, Any] | None:
    """The options `@twnb.plugin` left on a plain function, or None (never runs the object's code:
    only a function's own `__dict__` is read)."""
    if type(value) is not types.FunctionType:
        return None
    options = value.__dict__.get(MARK)
    return options if isinstance(options, dict) else None
