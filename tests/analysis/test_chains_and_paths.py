"""Dotted paths judged from the module they reach, and what a path expression names."""

from __future__ import annotations

import ast
import io
from pathlib import Path

from twnb.analysis import NOT_A_PATH, UNKNOWN, ChainRules, PathGuess, PathReader, analyse, resolve_path

RULES = ChainRules(reachable=frozenset({"os", "sys"}), module_names={"os": "os"})


def test_a_chain_through_another_module_is_judged_from_the_module_it_reaches() -> None:
    resolved = resolve_path("pathlib.os.system", known_module=False, rules=RULES)
    assert (resolved.canonical, resolved.reached) == ("os.system", "os")


def test_a_builtin_under_another_name_is_that_builtin() -> None:
    assert resolve_path("io.open", known_module=False, rules=RULES).canonical == "open"


def test_without_rules_a_chain_keeps_its_spelling() -> None:
    resolved = resolve_path("pathlib.os.system", known_module=False, rules=ChainRules())
    assert (resolved.canonical, resolved.reached) == ("pathlib.os.system", None)


def last_argument(code: str, values: dict[str, object] | None = None) -> PathGuess:
    facts = analyse(ast.parse(code))
    call = [c for c in facts.calls if isinstance(c.func, ast.Name) and c.func.id == "w"][-1]
    return PathReader(facts, values).path_of(call.args[-1])


def test_paths_built_with_pathlib_os_path_and_concatenation_are_read() -> None:
    assert last_argument("from pathlib import Path as P\np = P('out') / 'a.csv'\nw(p)").text == "out/a.csv"
    assert last_argument("import os.path\nw(os.path.join('out', 'a.csv'))").text == "out/a.csv"
    assert last_argument("w('out/' + 'a.csv')").text == "out/a.csv"


def test_an_f_string_gives_its_constant_start() -> None:
    assert last_argument("w(f'out/{name}.csv')") == PathGuess(prefix="out/")


def test_a_name_the_code_did_not_bind_is_read_from_the_namespace() -> None:
    assert last_argument("w(target)", {"target": Path("x.csv")}).text == "x.csv"
    assert last_argument("w(target)", None) == UNKNOWN


def test_a_loop_variable_or_parameter_is_unknown_whatever_the_namespace_holds() -> None:
    values = {"target": "x.csv"}
    assert last_argument("for target in names:\n    w(target)", values) == UNKNOWN
    assert last_argument("def f(target):\n    w(target)", values) == UNKNOWN


def test_open_files_and_buffers_are_no_paths() -> None:
    assert last_argument("import io\nb = io.BytesIO()\nw(b)") == NOT_A_PATH
    facts = analyse(ast.parse("w(f)"))
    reader = PathReader(facts, {"f": io.StringIO()})
    assert reader.is_handle(facts.calls[0].args[0])
