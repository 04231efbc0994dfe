"""Layers the code keeps: every import in twnb/ is one docs/architecture.md's layer table allows, and no
modules import each other in a circle.

The table is read from the document itself, so changing what a layer may import means changing the
documentation. Imports are found with `ast` wherever they are: at the top, inside functions, under
`if TYPE_CHECKING:`, relative (`from . import x`) and `importlib.import_module("twnb....")` with a
constant name.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"


@dataclass(frozen=True)
class Layer:
    name: str
    paths: tuple[str, ...]  # "twnb/memory/" (a folder) or "twnb/cli.py" (a file), relative to the repo
    may_import: frozenset[str]


@dataclass(frozen=True)
class Import:
    source: str  # module that imports, e.g. "twnb.notebook.magics"
    target: str  # module imported, e.g. "twnb.memory.logs"
    where: str  # "twnb/notebook/magics.py:12"


def read_layer_table(markdown: str) -> list[Layer]:
    """The rows of the table under '## Layers': name, backticked paths, and the layers it may import."""
    section = markdown.split("\n## Layers", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    assert header[0] == "layer" and header[-1] == "may import", f"unexpected layer table header {header}"
    parsed = []
    for line in rows[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        parsed.append((cells[0], tuple(re.findall(r"`([^`]+)`", cells[1])), cells[-1]))
    names = {name for name, _, _ in parsed}
    return [
        Layer(name, paths, frozenset(word.strip() for word in allowed.split(",")) & names)
        for name, paths, allowed in parsed
    ]


def module_name(path: Path, repo: Path) -> str:
    parts = path.relative_to(repo).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def find_imports(path: Path, repo: Path, modules: set[str]) -> list[Import]:
    """Every import of a package module in `path`, resolved to the module it loads."""
    source = module_name(path, repo)
    package = source if path.name == "__init__.py" else source.rpartition(".")[0]
    rel = path.relative_to(repo)
    found = []

    def add(target: str, node: ast.AST) -> None:
        if target in modules:
            found.append(Import(source, target, f"{rel}:{node.lineno}"))

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(_nearest_module(alias.name, modules), node)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            for alias in node.names:
                submodule = f"{origin}.{alias.name}"
                add(submodule if submodule in modules else _nearest_module(origin, modules), node)
        elif isinstance(node, ast.Call) and _is_import_module(node.func) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                add(_nearest_module(first.value, modules), node)
    return found


def _nearest_module(name: str, modules: set[str]) -> str:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name


def _is_import_module(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id == "import_module"
    )


def layer_of(path: Path, repo: Path, layers: list[Layer]) -> Layer | None:
    rel = path.relative_to(repo).as_posix()
    for layer in layers:
        for spec in layer.paths:
            if rel == spec or (spec.endswith("/") and rel.startswith(spec)):
                return layer
    return None


def package_files(repo: Path, package: str = "twnb") -> list[Path]:
    return sorted(p for p in (repo / package).rglob("*.py") if "__pycache__" not in p.parts)


def layer_violations(repo: Path, layers: list[Layer], package: str = "twnb") -> list[str]:
    """One line per import the table does not allow, and per module that belongs to no layer."""
    files = package_files(repo, package)
    by_module = {module_name(p, repo): p for p in files}
    modules = set(by_module)
    problems = []
    for path in files:
        here = layer_of(path, repo, layers)
        if here is None:
            problems.append(f"{path.relative_to(repo)}: in no layer of docs/architecture.md's table")
            continue
        for imp in find_imports(path, repo, modules):
            there = layer_of(by_module[imp.target], repo, layers)
            if there is None or there.name == here.name or there.name in here.may_import:
                continue
            problems.append(
                f"{imp.where}: {here.name} imports {imp.target} ({there.name}), "
                f"but {here.name} may import only {', '.join(sorted(here.may_import)) or 'nothing'}"
            )
    return problems


def import_cycles(repo: Path, package: str = "twnb") -> list[str]:
    """One line per cycle between modules, naming each import in it by file and line."""
    files = package_files(repo, package)
    modules = {module_name(p, repo) for p in files}
    edges: dict[str, dict[str, str]] = {m: {} for m in modules}
    for path in files:
        for imp in find_imports(path, repo, modules):
            if imp.target != imp.source:
                edges[imp.source].setdefault(imp.target, imp.where)
    cycles = []
    for component in _strongly_connected(edges):
        if len(component) > 1:
            cycle = _one_cycle(component, edges)
            steps = [f"{a} -> {b} ({edges[a][b]})" for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True)]
            cycles.append("import cycle: " + "; ".join(steps))
    return cycles


def _strongly_connected(edges: dict[str, dict[str, str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            components.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return components


def _one_cycle(component: list[str], edges: dict[str, dict[str, str]]) -> list[str]:
    """A shortest path back to the component's first module (breadth first)."""
    start, members = component[0], set(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v]):
            if w == start:
                return paths[v]
            if w in members and w not in paths:
                paths[w] = paths[v] + [w]
                queue.append(w)
    return component


LAYERS = read_layer_table(ARCHITECTURE.read_text(encoding="utf-8"))


# --- the package ---------------------------------------------------------------------------------


def test_the_layer_table_names_every_layer_of_the_package():
    names = {layer.name for layer in LAYERS}
    assert {"memory", "config", "llm", "kernel", "roles", "session", "render", "replay", "notebook"} <= names


def test_every_import_in_twnb_goes_down_the_layer_table():
    problems = layer_violations(ROOT, LAYERS)
    assert not problems, "imports the layer table does not allow:\n" + "\n".join(problems)


def test_no_modules_of_twnb_import_each_other_in_a_circle():
    cycles = import_cycles(ROOT)
    assert not cycles, "\n".join(cycles)


# --- the checker itself, on a small package made for the purpose ---------------------------------

TABLE = """# doc

## Layers

| layer | code | what it holds | may import |
|---|---|---|---|
| low | `pkg/low/` | the bottom | stdlib |
| high | `pkg/high/`, `pkg/app.py` | the top | low, pyyaml |
| root | `pkg/__init__.py` | the package | high |

## Next
"""


def make_package(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in {
        "pkg/__init__.py": "",
        "pkg/low/__init__.py": "",
        "pkg/high/__init__.py": "",
        **files,
    }.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_the_table_gives_each_layer_its_paths_and_the_layers_it_may_import():
    low, high, _ = read_layer_table(TABLE)
    assert (low.name, low.paths, low.may_import) == ("low", ("pkg/low/",), frozenset())
    assert (high.paths, high.may_import) == (("pkg/high/", "pkg/app.py"), frozenset({"low"}))


@pytest.mark.parametrize(
    "code",
    [
        "import pkg.high.top\n",
        "from pkg.high import top\n",
        "from ..high import top\n",
        "def later():\n    from pkg.high.top import thing\n",
        "import importlib\n\ndef later():\n    importlib.import_module('pkg.high.top')\n",
    ],
)
def test_an_upward_import_is_named_by_file_and_line(tmp_path, code):
    repo = make_package(tmp_path, {"pkg/low/bottom.py": code, "pkg/high/top.py": "thing = 1\n"})
    problems = layer_violations(repo, read_layer_table(TABLE), "pkg")
    line = code.count("\n", 0, code.index("pkg.high" if "pkg.high" in code else "..high")) + 1
    assert len(problems) == 1 and problems[0].startswith(f"pkg/low/bottom.py:{line}: low imports pkg.high")


def test_a_downward_import_is_allowed(tmp_path):
    repo = make_package(
        tmp_path, {"pkg/low/bottom.py": "x = 1\n", "pkg/app.py": "from pkg.low.bottom import x\n"}
    )
    assert layer_violations(repo, read_layer_table(TABLE), "pkg") == []


def test_a_module_in_no_layer_is_reported(tmp_path):
    repo = make_package(tmp_path, {"pkg/stray.py": ""})
    assert layer_violations(repo, read_layer_table(TABLE), "pkg") == [
        "pkg/stray.py: in no layer of docs/architecture.md's table"
    ]


def test_a_cycle_through_a_function_local_import_is_reported_with_both_imports(tmp_path):
    repo = make_package(
        tmp_path,
        {
            "pkg/low/a.py": "from pkg.low.b import y\nx = 1\n",
            "pkg/low/b.py": "y = 2\n\ndef later():\n    from pkg.low.a import x\n",
        },
    )
    assert import_cycles(repo, "pkg") == [
        "import cycle: pkg.low.a -> pkg.low.b (pkg/low/a.py:1); pkg.low.b -> pkg.low.a (pkg/low/b.py:4)"
    ]
