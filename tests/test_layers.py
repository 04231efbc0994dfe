"""Layers the code keeps, as docs/architecture.md's layer table says: every import in twnb/ goes down the
table, an import that crosses layers goes through the layer's front door (its package, never a
submodule), each layer imports exactly the layers and third-party packages its row names, no modules
import each other in a circle, and each front door's `__all__` is what the document lists as its API.

The table is read from the document itself, so changing what a layer may import means changing the
documentation. Imports are found with `ast` wherever they are: at the top, inside functions, under
`if TYPE_CHECKING:`, relative (`from . import x`) and `importlib.import_module("twnb....")` with a
constant name.

`python tests/test_layers.py` rewrites the document's list of each layer's public API from the code.
"""

from __future__ import annotations

import ast
import functools
import importlib
import re
import sys
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
    third_party: frozenset[str] = frozenset()  # top-level names as imported: "yaml", "IPython"

    def front_doors(self) -> set[str]:
        """The modules other layers may import: each folder's package, each file."""
        return {
            spec.rstrip("/").removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            for spec in self.paths
        }


@dataclass(frozen=True)
class Import:
    source: str  # module that imports, e.g. "twnb.notebook.magics"
    target: str  # module imported, e.g. "twnb.base.logs"
    where: str  # "twnb/notebook/magics.py:12"


def read_layer_table(markdown: str) -> list[Layer]:
    """The rows of the table under '## Layers': name, backticked paths, and the layers it may import."""
    section = markdown.split("\n## Layers", 1)[1].split("\n## ", 1)[0]
    table = section[section.index("\n|") + 1 :].split("\n\n", 1)[0]  # the section's first table
    rows = [line for line in table.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    assert header[0] == "layer" and header[-1] == "may import", f"unexpected layer table header {header}"
    parsed = []
    for line in rows[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        parsed.append((cells[0], tuple(re.findall(r"`([^`]+)`", cells[1])), cells[-1]))
    names = {name for name, _, _ in parsed}
    layers = []
    for name, paths, allowed in parsed:
        words = {word.strip() for word in allowed.split(",")} - {"stdlib", "(nothing)", ""}
        layers.append(Layer(name, paths, frozenset(words & names), frozenset(words - names)))
    return layers


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

    for node in import_nodes(path):
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


def import_nodes(path: Path) -> tuple[ast.AST, ...]:
    """The import statements and `import_module("...")` calls of `path`, wherever they are."""
    return _import_nodes(path.read_text(encoding="utf-8"), str(path))


@functools.cache
def _import_nodes(source: str, filename: str) -> tuple[ast.AST, ...]:
    # Parsed once per source: four tests read every module of twnb/ (~6 s each on a loaded machine).
    return tuple(
        node
        for node in ast.walk(ast.parse(source, filename))
        if isinstance(node, ast.Import | ast.ImportFrom)
        or (isinstance(node, ast.Call) and _is_import_module(node.func))
    )


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


def front_door_violations(repo: Path, layers: list[Layer], package: str = "twnb") -> list[str]:
    """One line per import that reaches into another layer's submodule instead of its front door."""
    files = package_files(repo, package)
    by_module = {module_name(p, repo): p for p in files}
    problems = []
    for path in files:
        here = layer_of(path, repo, layers)
        for imp in find_imports(path, repo, set(by_module)):
            there = layer_of(by_module[imp.target], repo, layers)
            if here is None or there is None or there.name == here.name or imp.target in there.front_doors():
                continue
            door = " or ".join(sorted(there.front_doors()))
            problems.append(
                f"{imp.where}: imports {imp.target}, a submodule of {there.name}: import it from {door}"
            )
    return problems


def third_party_imports(path: Path) -> dict[str, str]:
    """The top-level names of the packages `path` imports that are neither the standard library nor its
    own package, each with where it is first imported."""
    found: dict[str, str] = {}
    for node in import_nodes(path):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        elif isinstance(node, ast.Call) and _is_import_module(node.func) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                names = [first.value]
        for name in names:
            top = name.partition(".")[0]
            if top not in sys.stdlib_module_names and top != "__future__":
                found.setdefault(top, f"{path.name}:{node.lineno}")
    return found


def table_mismatches(repo: Path, layers: list[Layer], package: str = "twnb") -> list[str]:
    """Where a row's last column and the code disagree: a third-party package imported but not listed,
    or a layer or package listed that no module of the layer imports."""
    files = package_files(repo, package)
    by_module = {module_name(p, repo): p for p in files}
    used_layers: dict[str, set[str]] = {layer.name: set() for layer in layers}
    used_packages: dict[str, dict[str, str]] = {layer.name: {} for layer in layers}
    for path in files:
        here = layer_of(path, repo, layers)
        if here is None:
            continue
        for imp in find_imports(path, repo, set(by_module)):
            there = layer_of(by_module[imp.target], repo, layers)
            if there is not None and there.name != here.name:
                used_layers[here.name].add(there.name)
        for top, where in third_party_imports(path).items():
            if top != package:
                used_packages[here.name].setdefault(top, f"{path.relative_to(repo).parent}/{where}")
    problems = []
    for layer in layers:
        for top, where in sorted(used_packages[layer.name].items()):
            if top not in layer.third_party:
                problems.append(f"{where}: {layer.name} imports {top}, which its row does not list")
        unused = (layer.may_import - used_layers[layer.name]) | (
            layer.third_party - set(used_packages[layer.name])
        )
        for name in sorted(unused):
            problems.append(f"{layer.name}'s row lists {name}, which none of its modules imports")
    return problems


# --- front doors -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FrontDoor:
    """What a package's `__init__.py` says about its public API."""

    package: str  # "twnb.memory"
    public: tuple[str, ...] | None  # `__all__`, None when there is none
    typed: dict[str, str]  # name -> the module it is imported from (at run time or for the type checker)
    lazy: dict[str, str] | None  # name -> the module it loads from lazily, for a lazy front door


def read_front_door(path: Path, package: str) -> FrontDoor:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    root = package.split(".")[0]
    public: tuple[str, ...] | None = None
    typed: dict[str, str] = {}
    lazy: dict[str, str] | None = None

    def imports(body: list[ast.stmt]) -> None:
        for node in body:
            # Names of the package's own modules; another package's (a type for an annotation) is not API.
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == root:
                for alias in node.names:
                    typed[alias.asname or alias.name] = node.module

    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            public = tuple(ast.literal_eval(node.value))
        elif isinstance(node, ast.If):
            imports(node.body)
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "lazy_exports":
                    where = ast.literal_eval(call.args[1])
                    lazy = {name: f"{package}.{module}" for name, module in where.items()}
    imports(tree.body)
    for node in tree.body:  # names the front door defines itself (the package's `load_ipython_extension`)
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_"):
            typed[node.name] = package
    for tool in ("lazy_exports", "lazy_front_door"):  # what a lazy front door is built with, not its API
        if typed.get(tool, "").startswith("twnb.base") and package != "twnb.base":
            typed.pop(tool)
    if public is None and _calls(tree, "lazy_front_door"):
        # Each public name once: the `if TYPE_CHECKING:` imports are the names it loads lazily, and
        # `__all__` is those and what it imports from its own modules or defines (twnb/base/front_door.py).
        lazy = {}
        for node in tree.body:
            if (
                isinstance(node, ast.If)
                and isinstance(node.test, ast.Name)
                and node.test.id == "TYPE_CHECKING"
            ):
                lazy.update(
                    {
                        alias.asname or alias.name: imp.module
                        for imp in node.body
                        if isinstance(imp, ast.ImportFrom) and (imp.module or "").startswith(f"{package}.")
                        for alias in imp.names
                    }
                )
        public = tuple(sorted(name for name, module in typed.items() if module.startswith(package)))
    return FrontDoor(package, public, typed, lazy)


def _calls(tree: ast.AST, function: str) -> bool:
    return any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == function for n in ast.walk(tree))


def front_door_problems(door: FrontDoor, submodules: set[str]) -> list[str]:
    """Where a front door's `__all__`, the names it imports and the names it loads lazily disagree, or
    a public name is also a submodule's (importing the submodule would replace a lazy name with it)."""
    if door.public is None:
        return [f"{door.package} has no __all__"]
    problems = []
    public, typed = set(door.public), set(door.typed)
    if public - typed:
        problems.append(f"{door.package}: in __all__ but never imported: {sorted(public - typed)}")
    if typed - public:
        problems.append(f"{door.package}: imported but not in __all__: {sorted(typed - public)}")
    if door.lazy is not None:
        for name, module in sorted(door.lazy.items()):
            if door.typed.get(name) != module:
                problems.append(
                    f"{door.package}: {name} loads from {module}, is typed from {door.typed.get(name)}"
                )
        runtime = {name for name, module in door.typed.items() if name not in door.lazy}
        missing = public - set(door.lazy) - runtime
        if missing:
            problems.append(f"{door.package}: never loaded: {sorted(missing)}")
    clashes = public & submodules
    if clashes:
        problems.append(f"{door.package}: public names that are also submodules: {sorted(clashes)}")
    return problems


def front_doors(repo: Path, layers: list[Layer]) -> list[tuple[Path, str]]:
    """(`__init__.py`, package) of every folder layer, and the package's own, in the table's order."""
    doors = []
    for layer in layers:
        for spec in layer.paths:
            if spec.endswith("/"):
                doors.append((repo / spec / "__init__.py", spec.rstrip("/").replace("/", ".")))
            elif spec.endswith("/__init__.py"):
                doors.append((repo / spec, spec.removesuffix("/__init__.py").replace("/", ".")))
    return doors


def submodules_of(init: Path) -> set[str]:
    folder = init.parent
    return {p.stem for p in folder.glob("*.py") if p.stem != "__init__"} | {
        p.name for p in folder.iterdir() if (p / "__init__.py").exists()
    }


# --- the document's list of each layer's public API -------------------------------------------------

API_HEADING = "### Each layer's front door"


def api_list(repo: Path, layers: list[Layer]) -> str:
    """The bullets under API_HEADING as the code has them: each front door's `__all__`, wrapped."""
    lines = []
    for init, package in front_doors(repo, layers):
        public = read_front_door(init, package).public or ()
        line = f"- `{package}`:"
        for name in public:
            word = f" `{name}`" + ("," if name != public[-1] else "")
            if len(line) + len(word) > 110:
                lines.append(line)
                line = " "
            line += word
        lines.append(line)
    return "\n".join(lines) + "\n"


def documented_api(markdown: str) -> str:
    """The bullets under API_HEADING in the document."""
    section = markdown.split(f"\n{API_HEADING}\n", 1)[1]
    bullets = [line for line in section.split("\n#", 1)[0].splitlines() if line.startswith(("- `", "  "))]
    return "\n".join(bullets) + "\n"


def with_api_list(markdown: str, bullets: str) -> str:
    head, rest = markdown.split(f"\n{API_HEADING}\n", 1)
    section, next_heading, after = rest.partition("\n#")
    intro = section.split("\n- `", 1)[0].rstrip("\n")
    return f"{head}\n{API_HEADING}\n{intro}\n\n{bullets}{next_heading}{after}"


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


def test_an_import_that_crosses_layers_goes_through_the_layers_front_door():
    problems = front_door_violations(ROOT, LAYERS)
    assert not problems, "imports past a layer's front door:\n" + "\n".join(problems)


def test_each_layer_imports_exactly_the_layers_and_packages_its_row_names():
    problems = table_mismatches(ROOT, LAYERS)
    assert not problems, "docs/architecture.md's layer table and the code disagree:\n" + "\n".join(problems)


def test_no_modules_of_twnb_import_each_other_in_a_circle():
    cycles = import_cycles(ROOT)
    assert not cycles, "\n".join(cycles)


@pytest.mark.parametrize(
    ("init", "package"), front_doors(ROOT, LAYERS), ids=[p for _, p in front_doors(ROOT, LAYERS)]
)
def test_each_front_door_imports_types_and_loads_exactly_its_public_names(init, package):
    problems = front_door_problems(read_front_door(init, package), submodules_of(init))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("init", "package"), front_doors(ROOT, LAYERS), ids=[p for _, p in front_doors(ROOT, LAYERS)]
)
def test_every_public_name_of_a_front_door_is_there_at_run_time(init, package):
    door = importlib.import_module(package)
    assert [name for name in door.__all__ if not hasattr(door, name)] == []


def test_the_document_lists_each_layers_public_api_as_the_code_has_it():
    assert documented_api(ARCHITECTURE.read_text(encoding="utf-8")) == api_list(ROOT, LAYERS), (
        "docs/architecture.md's list of each layer's API is out of date: run `python tests/test_layers.py`"
    )


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


def test_a_deep_import_across_layers_is_named_with_the_front_door_to_use(tmp_path):
    repo = make_package(
        tmp_path, {"pkg/low/bottom.py": "x = 1\n", "pkg/app.py": "from pkg.low.bottom import x\n"}
    )
    assert front_door_violations(repo, read_layer_table(TABLE), "pkg") == [
        "pkg/app.py:1: imports pkg.low.bottom, a submodule of low: import it from pkg.low"
    ]


def test_an_import_through_the_front_door_is_allowed(tmp_path):
    repo = make_package(tmp_path, {"pkg/app.py": "from pkg.low import x\n"})
    assert front_door_violations(repo, read_layer_table(TABLE), "pkg") == []


def test_a_third_party_package_the_row_does_not_list_is_reported(tmp_path):
    repo = make_package(tmp_path, {"pkg/low/bottom.py": "import yaml\nimport json\n"})
    assert "pkg/low/bottom.py:1: low imports yaml, which its row does not list" in table_mismatches(
        repo, read_layer_table(TABLE), "pkg"
    )


def test_a_layer_or_package_the_row_lists_but_nothing_imports_is_reported(tmp_path):
    repo = make_package(tmp_path, {})
    problems = table_mismatches(repo, read_layer_table(TABLE), "pkg")
    assert "high's row lists low, which none of its modules imports" in problems
    assert "high's row lists pyyaml, which none of its modules imports" in problems


def test_a_lazy_front_door_must_type_and_load_each_public_name(tmp_path):
    init = tmp_path / "__init__.py"
    init.write_text(
        "from typing import TYPE_CHECKING\n"
        "from twnb.base import lazy_exports\n"
        "if TYPE_CHECKING:\n"
        "    from pkg.a import A\n"
        "__all__ = ['A', 'B']\n"
        "if not TYPE_CHECKING:\n"
        "    __getattr__, __dir__ = lazy_exports(__name__, {'A': 'b', 'B': 'b'})\n"
    )
    assert front_door_problems(read_front_door(init, "pkg"), {"a", "b"}) == [
        "pkg: in __all__ but never imported: ['B']",
        "pkg: A loads from pkg.b, is typed from pkg.a",
        "pkg: B loads from pkg.b, is typed from None",
    ]


def test_a_public_name_that_is_also_a_submodule_is_reported(tmp_path):
    init = tmp_path / "__init__.py"
    init.write_text("from pkg.clip import clip\n__all__ = ['clip']\n")
    assert front_door_problems(read_front_door(init, "pkg"), {"clip"}) == [
        "pkg: public names that are also submodules: ['clip']"
    ]


if __name__ == "__main__":  # rewrite the document's list of each layer's public API from the code
    text = ARCHITECTURE.read_text(encoding="utf-8")
    ARCHITECTURE.write_text(with_api_list(text, api_list(ROOT, LAYERS)), encoding="utf-8")
    print(f"{ARCHITECTURE.relative_to(ROOT)}: {API_HEADING.lstrip('# ')} rewritten")
