"""The Python a magic runs as text: `%time body`, `%timeit -n1 -r1 body`, `%%capture` and its cell.

IPython turns `%time body` into `get_ipython().run_line_magic('time', 'body')` and `%%timeit -n1`
into `get_ipython().run_cell_magic('timeit', '-n1', 'cell')`; the body is code like any other, which
sees the names bound before the call. Every judge of code reads it the same way: verification, risk
grades and undo's estimate ask `magic_body(call)` for it, so an option that hides the body from one
(`%timeit -n1 ...` once reached only verification) hides it from none.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

# Magics whose line or cell is Python they run.
TEXT_MAGICS = frozenset({"time", "timeit", "capture", "prun"})
# The options a line magic's body starts with (`%timeit -n1 -r 3 -q body`).
LINE_OPTIONS = re.compile(r"^\s*(?:-(?:[nrp]\s*\S+|[qoc]|t)\s+)*")
_RUNNERS = ("run_line_magic", "run_cell_magic")


@dataclass(frozen=True)
class MagicBody:
    """A magic's Python `text`; `line_offset` added to a line of the text gives the line of the code
    the call is in (a line magic's body is on the call's line, a cell's starts on the next)."""

    magic: str
    text: str
    line_offset: int


def magic_body(call: ast.Call) -> MagicBody | None:
    """The Python `call` runs as text when it is a magic of TEXT_MAGICS written out as strings, else
    None (the name of the magic or its body computed at run time: nothing to read)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in _RUNNERS:
        return None
    texts = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in call.args]
    if len(texts) < 2 or texts[0] not in TEXT_MAGICS or texts[-1] is None:
        return None
    if func.attr == "run_cell_magic":
        return MagicBody(texts[0], texts[-1], call.lineno)
    return MagicBody(texts[0], LINE_OPTIONS.sub("", texts[-1]), call.lineno - 1)
