"""The one pass that resolves names: what each name the code reads may hold there."""

from __future__ import annotations

import ast

from twnb.analysis import (
    COMPREHENSION,
    FUNCTION,
    LOOP,
    PARAMETER,
    CodeFacts,
    analyse,
)


def facts_of(code: str) -> CodeFacts:
    return analyse(ast.parse(code))


def reads(facts: CodeFacts, name: str) -> list[ast.Name]:
    return [node for node in facts.meanings if node.id == name]


def dotted_calls(code: str) -> list[str | None]:
    facts = facts_of(code)
    return [facts.dotted(call.func) for call in facts.calls]


def test_an_import_alias_names_its_module() -> None:
    assert dotted_calls("import os as o\no.remove('a')") == ["os.remove"]


def test_a_from_import_under_another_name_names_the_module_path_as_written() -> None:
    assert dotted_calls("from os import path as p\np.join('a', 'b')") == ["os.path.join"]


def test_a_module_bound_to_a_name_is_followed_through_chains_of_names() -> None:
    assert dotted_calls("import os\nm = os\ne = m.environ\ne.pop('A')") == ["os.environ.pop"]


def test_a_free_name_is_asked_of_the_namespace() -> None:
    facts = facts_of("os.remove('a')")
    (call,) = facts.calls
    assert facts.dotted(call.func) is None
    assert facts.dotted(call.func, {"os": "os"}.get) == "os.remove"


def test_a_name_rebound_at_the_top_no_longer_names_the_module() -> None:
    assert dotted_calls("import os\nos = make()\nos.remove('a')") == [None, None]


def test_a_binding_that_may_not_run_is_added_to_what_the_name_held() -> None:
    facts = facts_of("import os\nif flag:\n    os = make()\nos.remove('a')")
    last = reads(facts, "os")[-1]
    assert [b.kind for b in facts.reaching(last)] == ["import", "assign"]


def test_a_name_bound_only_where_it_may_not_run_may_still_be_free() -> None:
    facts = facts_of("if flag:\n    df = other\ndf.drop(columns='a', inplace=True)")
    (read,) = reads(facts, "df")
    assert [b.kind for b in facts.reaching(read)] == ["free", "assign"]
    assert facts.may_be_free(read)


def test_a_loop_variable_holds_an_item_of_its_iterable() -> None:
    facts = facts_of("path = 'a.csv'\nfor path in paths:\n    open(path)")
    (inner,) = [n for n in reads(facts, "path")]
    binding = facts.latest(inner)
    assert binding is not None and binding.kind == LOOP
    assert isinstance(binding.iterable, ast.Name) and binding.iterable.id == "paths"


def test_a_comprehension_variable_is_its_own_and_does_not_leak() -> None:
    facts = facts_of("[open(p) for p in paths]\nopen(p)")
    inner, outer = reads(facts, "p")
    assert [b.kind for b in facts.reaching(inner)] == [COMPREHENSION]
    assert facts.reaching(outer) == ()


def test_a_parameter_shadows_the_namespace_inside_its_function_only() -> None:
    facts = facts_of("def save(path):\n    open(path, 'w')\nopen(path, 'w')")
    inner, outer = reads(facts, "path")
    assert [b.kind for b in facts.reaching(inner)] == [PARAMETER]
    assert facts.reaching(outer) == ()


def test_the_codes_own_function_is_known_at_its_calls() -> None:
    facts = facts_of("def clean(d):\n    d.dropna(inplace=True)\nclean(sales)")
    call = facts.calls[-1]
    function = facts.own_function(call.func)
    assert function is not None and function.name == "clean"
    assert [b.kind for b in facts.reaching(call.func)] == [FUNCTION]  # type: ignore[arg-type]


def test_a_value_is_read_before_the_name_it_is_bound_to() -> None:
    facts = facts_of("import os\nos = os.path")
    (read,) = reads(facts, "os")
    assert [b.kind for b in facts.reaching(read)] == ["import"]
    assert dotted_calls("import os\nos = os.path\nos.join('a')") == ["os.path.join"]


def test_global_binds_in_the_module_and_may_not_have_run() -> None:
    facts = facts_of("import os\ndef f():\n    global os\n    os = 1\nos.remove('a')")
    last = reads(facts, "os")[-1]
    assert [b.kind for b in facts.reaching(last)] == ["import", "assign"]


def test_a_walrus_in_a_comprehension_binds_in_the_scope_around_it() -> None:
    facts = facts_of("[y := f(x) for x in xs]\nprint(y)")
    (read,) = reads(facts, "y")
    assert [b.kind for b in facts.reaching(read)] == ["free", "walrus"]  # it may loop zero times


def test_code_a_call_runs_as_text_sees_the_names_bound_before_the_call_only() -> None:
    facts = facts_of("import os\nrun('os.remove(1)')\nimport sys")
    (call,) = facts.calls
    assert [b.module for b in facts.bound_before_call("os", call)] == ["os"]
    assert facts.bound_before_call("sys", call) == []


def builtin_calls(code: str) -> list[str | None]:
    facts = facts_of(code)
    return [facts.builtin(call.func) for call in facts.calls]


def test_a_builtin_is_itself_under_any_name_it_is_bound_to() -> None:
    code = "g = getattr\nfrom builtins import setattr as s\ngetattr(a, 'b')\ng(a, 'b')\ns(a, 'b', 1)"
    assert builtin_calls(code) == ["getattr", "getattr", "setattr"]


def test_a_builtin_name_the_code_binds_holds_what_it_was_bound_to() -> None:
    code = "def getattr(a, b):\n    return b\ngetattr(1, 2)\nlen = str\nlen(3)\nx = 1\nx()"
    assert builtin_calls(code) == [None, "str", None]
