"""The tests mirror the package: a folder of tests/ per layer of twnb/, beside the few that serve them all,
and no test reaches into another folder by editing the import path or loading a file by its path (a
helper two folders share lives in tests/support, importable through pytest's `pythonpath`)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
PACKAGE = TESTS.parent / "twnb"
# Folders that test no one layer: shared helpers, the fake LLM server, the browser tests (the
# JupyterLab extension and the notebook in Chromium), and data files.
SHARED = {"support", "fakellm", "browser", "data"}


def folders_without_a_layer(tests: Path, package: Path) -> list[str]:
    layers = {p.name for p in package.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    return sorted(
        p.name
        for p in tests.iterdir()
        if p.is_dir() and not p.name.startswith((".", "_")) and p.name not in layers | SHARED
    )


def import_path_edits(tests: Path) -> list[str]:
    """`sys.path` changed, or a module loaded from a file path, in any Python file under `tests`."""
    found = []
    for path in sorted(tests.rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            # Unparsed only where a hit can be (`x.f()` with a plain name `x` is neither): unparsing
            # every call of every test file took most of this test's 12 s.
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if isinstance(node.func.value, ast.Name) and node.func.attr != "spec_from_file_location":
                    continue
                target = ast.unparse(node.func)
                if target.startswith("sys.path.") or target.endswith("spec_from_file_location"):
                    found.append(f"{path.relative_to(tests)}:{node.lineno}: {target}(...)")
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(_is_sys_path(t) for t in targets):
                    found.append(f"{path.relative_to(tests)}:{node.lineno}: sys.path assigned")
    return found


def _is_sys_path(target: ast.expr) -> bool:
    return (
        isinstance(target, ast.Attribute)
        and target.attr == "path"
        and isinstance(target.value, ast.Name)
        and target.value.id == "sys"
    )


def test_each_test_folder_is_a_layer_of_the_package_or_serves_them_all():
    assert folders_without_a_layer(TESTS, PACKAGE) == []


def test_no_test_edits_the_import_path_or_loads_a_file_by_its_path():
    assert import_path_edits(TESTS) == []


def test_a_folder_named_for_no_layer_is_reported(tmp_path):
    (tmp_path / "twnb" / "kernel").mkdir(parents=True)
    (tmp_path / "twnb" / "kernel" / "__init__.py").write_text("")
    for name in ("kernel", "support", "step_mode"):
        (tmp_path / "tests" / name).mkdir(parents=True)

    assert folders_without_a_layer(tmp_path / "tests", tmp_path / "twnb") == ["step_mode"]


def test_an_import_path_edit_and_a_load_by_path_are_reported_with_their_line(tmp_path):
    (tmp_path / "a.py").write_text("import sys\n\nsys.path.insert(0, 'x')\n")
    (tmp_path / "b.py").write_text(
        "import importlib.util\nimportlib.util.spec_from_file_location('c', 'c.py')\n"
    )
    (tmp_path / "c.py").write_text("import sys\nsys.path += ['x']\n")
    (tmp_path / "d.py").write_text(
        "CODE = 'import sys; sys.path.insert(0, \"/x\")'  # a string, not an edit\n"
    )

    assert import_path_edits(tmp_path) == [
        "a.py:3: sys.path.insert(...)",
        "b.py:2: importlib.util.spec_from_file_location(...)",
        "c.py:2: sys.path assigned",
    ]
