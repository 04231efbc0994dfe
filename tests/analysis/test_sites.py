"""Where the code binds each name, as the positions from which each binding holds."""

from __future__ import annotations

import ast

from twnb.analysis import analyse, binding_sites


def sites(code: str) -> list[tuple[str, tuple[int, int]]]:
    tree = ast.parse(code)
    return [(name, position) for name, position, _ in binding_sites(tree, analyse(tree).parents)]


def test_an_assignment_holds_after_its_statement() -> None:
    assert sites("x = x") == [("x", (1, 5))]


def test_parameters_hold_from_the_start_of_the_body_after_their_defaults() -> None:
    assert ("e", (2, 4)) in sites("def f(e=exec):\n    e('1')")


def test_a_loop_variable_holds_in_the_body() -> None:
    assert ("item", (1, 8)) in sites("for item in items:\n    pass")
