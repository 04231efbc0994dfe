"""A plugin never takes a name the user's own cells rely on: Python's builtins, IPython's, or a name the
user's cells use (twnb/plugins/reserved_names.py). Written as a plugin folder a user was handed."""

from __future__ import annotations

from pathlib import Path

SPEC = """name: {name}
enabled: true
required: false
description: {name} counts things.
parameters:
  - name: value
    type: str
    required: true
    description: anything
returns:
  - name: count
    type: int
    description: always 7
"""
CODE = """from taskweaver.plugin import register_plugin


@register_plugin
def {name}(value):
    return 7
"""


def _plugin(folder: Path, name: str) -> None:
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.yaml").write_text(SPEC.format(name=name), encoding="utf-8")
    (folder / f"{name}.py").write_text(CODE.format(name=name), encoding="utf-8")


def _state(catalog, name):
    return next(state for state in catalog.states() if state.name == name)


def test_a_plugin_named_like_a_builtin_is_refused_and_the_users_cells_keep_it(workdir, make_catalog, shell):
    _plugin(workdir / "plugins", "len")
    catalog = make_catalog()
    problems = catalog.refresh()
    assert shell.run_cell("answer = len('abc')").success
    assert shell.user_ns["answer"] == 3
    assert "len" not in shell.user_ns
    assert _state(catalog, "len").state == "not loaded"
    assert [line for line in problems if line.startswith("len: len is the name of a Python builtin")]


def test_a_plugin_named_like_ipythons_display_is_refused(workdir, make_catalog, shell):
    _plugin(workdir / "plugins", "display")
    catalog = make_catalog()
    catalog.refresh()
    assert "display" not in shell.user_ns
    assert "builtin" in _state(catalog, "display").problem


def test_a_plugin_named_like_a_function_the_users_cells_import_is_refused(workdir, make_catalog, shell):
    # the user's own summarize, whose import failed: a plugin must not answer in its place
    shell.run_cell("from twnb_tests_my_tools_not_installed import summarize", store_history=True)
    _plugin(workdir / "plugins", "summarize")
    catalog = make_catalog()
    catalog.refresh()
    assert "summarize" not in shell.user_ns
    assert "your own cells define summarize" in _state(catalog, "summarize").problem


def test_the_users_cells_may_call_a_plugin_by_its_name(workdir, make_catalog, shell):
    shell.run_cell("try:\n    mine = tally('x')\nexcept NameError:\n    pass", store_history=True)
    _plugin(workdir / "plugins", "tally")
    catalog = make_catalog()
    catalog.refresh()
    assert _state(catalog, "tally").state == "loaded"


def test_the_users_cells_may_call_a_plugin_bound_before_them(workdir, make_catalog, shell):
    _plugin(workdir / "plugins", "tally")
    catalog = make_catalog()
    catalog.refresh()
    shell.run_cell("mine = tally('x')", store_history=True)
    catalog.refresh()
    assert _state(catalog, "tally").state == "loaded"
    assert shell.user_ns["mine"] == 7
