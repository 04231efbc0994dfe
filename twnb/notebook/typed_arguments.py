"""IPython's magic_arguments, typed: its decorators and parser are not annotated, so a function they
decorate would be untyped to the type checker. Each decorator returns the function it was given.
(magics.py imports these for the type checker only and IPython's own at run time, which `%load_ext`
then loads one module fewer for: they are the same functions.)"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TypeVar, cast

from IPython.core import magic_arguments as _ipython

_F = TypeVar("_F", bound=Callable[..., Any])


def magic_arguments() -> Callable[[_F], _F]:
    return cast("Callable[[_F], _F]", _ipython.magic_arguments())


def argument(*names: str, **options: Any) -> Callable[[_F], _F]:
    """One argument, as `argparse.ArgumentParser.add_argument` takes it."""
    return cast("Callable[[_F], _F]", _ipython.argument(*names, **options))


def parse_argstring(magic: Callable[..., Any], line: str) -> argparse.Namespace:
    parsed: argparse.Namespace = _ipython.parse_argstring(magic, line)
    return parsed
