"""Where the code binds each name, as positions: from which point in the text a binding holds.

A name assigned holds after the statement that binds it (`x = x` reads the old `x`); a loop variable
in the loop's body, after the target; a `with ... as` name after its item; a function's parameters
from the start of its body (their defaults are read before); a function, class or import after its
statement; `except ... as e` in the handler's body. Verification uses these to tell a blocked builtin
from a name the code bound before reading it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

Position = tuple[int, int]


def binding_sites(tree: ast.AST, parents: dict[ast.AST, ast.AST]) -> Iterator[tuple[str, Position, ast.AST]]:
    """Every name the code binds (syntactically, wherever it is), with the position from which the
    binding holds and the node that binds it."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            yield node.id, _after_statement(node, parents), node
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name, end_of(node), node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    yield alias.asname or alias.name.split(".")[0], end_of(node), node
        elif isinstance(node, ast.ExceptHandler) and node.name:
            yield node.name, start_of(node.body[0]), node
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            yield node.name, end_of(node), node
        elif isinstance(node, ast.MatchMapping) and node.rest:
            yield node.rest, end_of(node), node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            start = start_of(node.body[0] if isinstance(node.body, list) else node.body)
            arguments = node.args
            for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
                yield arg.arg, start, arg
            for extra in (arguments.vararg, arguments.kwarg):
                if extra is not None:
                    yield extra.arg, start, extra


def _after_statement(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> Position:
    current = node
    while current in parents and not isinstance(current, ast.stmt | ast.comprehension | ast.NamedExpr):
        current = parents[current]
    if isinstance(current, ast.For | ast.AsyncFor | ast.comprehension):
        return end_of(node)  # the loop variable holds in the body, which comes after it
    if isinstance(current, ast.With | ast.AsyncWith):
        return end_of(parents.get(node, node))
    return end_of(current)


def start_of(node: ast.AST) -> Position:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def end_of(node: ast.AST) -> Position:
    return (getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0)
