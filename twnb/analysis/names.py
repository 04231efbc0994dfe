"""The one pass that resolves the names of a piece of code: what each name it reads may hold there.

The code is walked once in the order it runs (a value before the names it is bound to, a loop's
iterable before its variable, a comprehension's loops before its element, a function's defaults
before its body) and each binding is recorded: an import (`import os as o`, `from os import path as
p`), an assignment (`x = os`, `p = Path("out") / "a.csv"`), a loop or comprehension variable, a
function's parameter, the code's own functions and classes, `except ... as e`, `with ... as f`, `:=`,
`del`, `match` captures. Scopes are Python's: a function, a lambda, a class body and a comprehension
each bind their own names; `global` and `nonlocal` bind in the module.

Every name the code reads gets the bindings that may reach it (`CodeFacts.reaching`): a binding at
the top of a scope replaces what the name held; one that may not run (in a branch, a loop, a `try`)
is added to it (after a FREE marker when the name held nothing the code bound). A name no binding
reaches is free: it comes from the namespace or the builtins.
Consumers ask `CodeFacts` what an expression names (`dotted`), never walk names themselves; the
judging of a dotted path by the module it really reaches is `chains.py`, what a path expression
names is `paths.py`.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

# The kinds of bindings.
IMPORT, FROM_IMPORT = "import", "from_import"
ASSIGN, UNPACKED, AUGMENTED, DELETED = "assign", "unpacked", "augmented", "deleted"
LOOP, COMPREHENSION, PARAMETER = "loop", "comprehension", "parameter"
FUNCTION, CLASS, EXCEPT, WITH, WALRUS, MATCH = "function", "class", "except", "with", "walrus", "match"
# Not a binding: the name may still hold what it held before the code (a binding that may not have run).
FREE = "free"
_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True, eq=False)
class Binding:
    """One place the code binds `name`: its `kind`, the node that binds it, and what it binds:
    `value` when the whole value is one expression (`x = value`, `with value as x`, `x := value`);
    `iterable` for a loop or comprehension variable (it holds an item of it); `module` for an import
    (`import os as o` -> "os", `from pathlib import os` -> "pathlib.os"), the dotted path as written.
    `conditional`: it may not run (a branch, a loop, a `try`, a function's body seen from outside).
    `calls_before`: how many calls the walk had met when it bound (orders it against `CodeFacts.calls`)."""

    name: str
    kind: str
    node: ast.AST
    value: ast.expr | None = None
    iterable: ast.expr | None = None
    module: str | None = None
    conditional: bool = False
    calls_before: int = 0

    @property
    def is_import(self) -> bool:
        return self.kind in (IMPORT, FROM_IMPORT)


@dataclass
class _Env:
    """One scope's names: name -> the bindings that may hold there, oldest first."""

    names: dict[str, tuple[Binding, ...]] = field(default_factory=dict)
    declared_outer: set[str] = field(default_factory=set)  # `global` / `nonlocal` names
    is_comprehension: bool = False


@dataclass
class CodeFacts:
    """What the pass found: every binding in walk order, the bindings that may reach each name the
    code reads, each node's parent, the code's own functions (name -> definition; the last one
    wins) and every call in walk order."""

    tree: ast.AST
    bindings: list[Binding] = field(default_factory=list)
    meanings: dict[ast.Name, tuple[Binding, ...]] = field(default_factory=dict)
    parents: dict[ast.AST, ast.AST] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    calls: list[ast.Call] = field(default_factory=list)

    def reaching(self, node: ast.Name) -> tuple[Binding, ...]:
        """The bindings that may hold when the code reads `node`, oldest first (empty: a free name;
        a FREE marker first: free unless a later one ran)."""
        return self.meanings.get(node, ())

    def latest(self, node: ast.Name) -> Binding | None:
        """The last binding of `node`'s name the code made before reading it, None for a free name."""
        reaching = self.meanings.get(node, ())
        return reaching[-1] if reaching else None

    def may_be_free(self, node: ast.Name) -> bool:
        """Whether the name `node` reads may hold what it held before the code (no binding of the
        code, or only ones that may not have run)."""
        reaching = self.meanings.get(node, ())
        return not reaching or reaching[0].kind == FREE

    def dotted(self, node: ast.AST, free: Callable[[str], str | None] | None = None) -> str | None:
        """The dotted path an expression names through imports and names bound to them
        (`import os as o; e = o.environ; e.get` -> "os.environ.get"), followed through the latest
        binding of each name that names one. A free name is asked of `free` (a namespace's module), else None.
        None when it starts anywhere else (a call, a subscript, a name bound to another value)."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        base = self.name_path(node, free)
        if base is None:
            return None
        return ".".join([base, *reversed(parts)])

    def name_path(self, node: ast.Name, free: Callable[[str], str | None] | None = None) -> str | None:
        """The dotted path the name `node` reads may hold: of the bindings that may reach it, the
        latest that names one (a name that may hold a module is taken for the module)."""
        reaching = self.meanings.get(node, ())
        if not reaching:
            return free(node.id) if free is not None else None
        for binding in reversed(reaching):
            if binding.kind == FREE:
                path = free(node.id) if free is not None else None
            else:
                path = self.binding_path(binding, free)
            if path is not None:
                return path
        return None

    def builtin(self, node: ast.AST) -> str | None:
        """The builtin a name holds: itself where the code does not bind it (`getattr`), or through
        names bound to it (`g = getattr`, `from builtins import setattr as s`); None otherwise."""
        if not isinstance(node, ast.Name):
            return None
        path = self.name_path(node, _builtin_path)
        if path is not None and path.count(".") == 1 and path.startswith("builtins."):
            return path.removeprefix("builtins.")
        return None

    def binding_path(self, binding: Binding, free: Callable[[str], str | None] | None = None) -> str | None:
        """The dotted path a binding gives its name: the module of an import, or what a plain
        `name = other.chain` names."""
        if binding.is_import:
            return binding.module
        if binding.kind in (ASSIGN, WALRUS) and isinstance(binding.value, ast.Name | ast.Attribute):
            return self.dotted(binding.value, free)
        return None

    def bound_before_call(self, name: str, call: ast.Call) -> list[Binding]:
        """Every binding of `name` the walk met before `call`, in any scope (code a call runs as text,
        `%time ...`, sees the names bound before it)."""
        index = self.call_index(call)
        return [b for b in self.bindings if b.name == name and b.calls_before <= index]

    def call_index(self, call: ast.Call) -> int:
        for index, node in enumerate(self.calls):
            if node is call:
                return index
        return len(self.calls)

    def own_function(self, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The code's own function a call's `func` names (`clean(...)` after `def clean`)."""
        if not isinstance(node, ast.Name):
            return None
        binding = self.latest(node)
        if binding is not None and binding.kind == FUNCTION:
            return binding.node if isinstance(binding.node, ast.FunctionDef | ast.AsyncFunctionDef) else None
        return None


def analyse(tree: ast.AST) -> CodeFacts:
    """Resolve the names of `tree` (a parsed module) in one pass (see the module docstring)."""
    facts = CodeFacts(tree)
    _Pass(facts).run(tree)
    return facts


def _builtin_path(name: str) -> str | None:
    return f"builtins.{name}" if name in _BUILTINS else None


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[ast.arg]:
    """A function's parameters in order, `*args` and `**kwargs` last."""
    arguments = node.args
    named = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    return named + [extra for extra in (arguments.vararg, arguments.kwarg) if extra is not None]


def target_names(target: ast.AST) -> Iterator[ast.Name]:
    """The names an assignment target binds (`a, (b, *c) = ...` -> a, b, c)."""
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from target_names(element)
    elif isinstance(target, ast.Starred):
        yield from target_names(target.value)


class _Pass:
    def __init__(self, facts: CodeFacts) -> None:
        self.facts = facts
        self.envs: list[_Env] = [_Env()]
        self.conditions: list[int] = [0]  # per scope: how many branches deep the walk is

    # -- scopes --------------------------------------------------------------------------------------

    def lookup(self, name: str) -> tuple[Binding, ...]:
        for env in reversed(self.envs):
            if name in env.names:
                return env.names[name]
        return ()

    def bind(
        self,
        name: str,
        kind: str,
        node: ast.AST,
        *,
        value: ast.expr | None = None,
        iterable: ast.expr | None = None,
        module: str | None = None,
    ) -> None:
        env_index = len(self.envs) - 1
        if kind == WALRUS:  # `:=` in a comprehension binds in the scope around it
            while env_index > 0 and self.envs[env_index].is_comprehension:
                env_index -= 1
        if name in self.envs[env_index].declared_outer:
            env_index = 0
        conditional = self.conditions[-1] > 0 or env_index != len(self.envs) - 1
        binding = Binding(name, kind, node, value, iterable, module, conditional, len(self.facts.calls))
        self.facts.bindings.append(binding)
        env = self.envs[env_index]
        if conditional:
            before = self.lookup(name) or (Binding(name, FREE, self.facts.tree),)
            env.names[name] = (*before, binding)
        else:
            env.names[name] = (binding,)

    def scoped(self, comprehension: bool = False) -> _Scope:
        return _Scope(self, comprehension)

    def branch(self) -> _Branch:
        return _Branch(self)

    # -- the walk ------------------------------------------------------------------------------------

    def run(self, tree: ast.AST) -> None:
        parents = self.facts.parents
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                parents[child] = parent
        self.visit(tree)

    def visit(self, node: ast.AST | None) -> None:
        if node is None:
            return
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is not None:
            method(node)
        else:
            self.children(node)

    def visit_all(self, nodes: Iterable[ast.AST | None]) -> None:
        for node in nodes:
            self.visit(node)

    def children(self, node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            self.visit(child)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.facts.meanings[node] = self.lookup(node.id)

    def visit_Call(self, node: ast.Call) -> None:
        self.facts.calls.append(node)
        self.children(node)

    # imports

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            local = alias.asname or alias.name.split(".")[0]
            self.bind(local, IMPORT, node, module=alias.name if alias.asname else local)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name == "*":
                continue
            module = f"{node.module}.{alias.name}" if node.module else None
            self.bind(alias.asname or alias.name, FROM_IMPORT, node, module=module)

    # assignments

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for target in node.targets:
            self.store(target, node, node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.visit(node.annotation)
        if node.value is not None:
            self.visit(node.value)
            self.store(node.target, node, node.value)
        elif not isinstance(node.target, ast.Name):
            self.visit(node.target)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        target = node.target
        if isinstance(target, ast.Name):
            # `x += 1` reads `x` first: recorded as a read, then as a binding of the code's own.
            self.facts.meanings[target] = self.lookup(target.id)
            self.bind(target.id, AUGMENTED, node)
        else:
            self.visit(target)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.bind(target.id, DELETED, node)
            else:
                self.visit(target)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.bind(node.target.id, WALRUS, node, value=node.value)

    def store(self, target: ast.expr, node: ast.AST, value: ast.expr | None, kind: str = ASSIGN) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, kind, node, value=value)
        elif isinstance(target, ast.Tuple | ast.List | ast.Starred):
            for name in target_names(target):
                self.bind(name.id, UNPACKED, node)
            for element in ast.walk(target):
                if isinstance(element, ast.Attribute | ast.Subscript):
                    self.visit(element)
        else:
            self.visit(target)  # `d[k] = ...`, `obj.a = ...`: what the target reads

    # control flow

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.iter)
        with self.branch():
            for name in target_names(node.target):
                self.bind(name.id, LOOP, node, iterable=node.iter)
            self.visit_all(node.body)
            self.visit_all(node.orelse)

    visit_AsyncFor = visit_For

    def visit_While(self, node: ast.While) -> None:
        self.visit(node.test)
        with self.branch():
            self.visit_all(node.body)
            self.visit_all(node.orelse)

    def visit_If(self, node: ast.If) -> None:
        self.visit(node.test)
        with self.branch():
            self.visit_all(node.body)
            self.visit_all(node.orelse)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self.visit(node.test)
        with self.branch():
            self.visit(node.body)
            self.visit(node.orelse)

    def visit_Try(self, node: ast.Try | ast.TryStar) -> None:
        with self.branch():
            self.visit_all(node.body)
            for handler in node.handlers:
                self.visit(handler.type)
                if handler.name:
                    self.bind(handler.name, EXCEPT, handler)
                self.visit_all(handler.body)
            self.visit_all(node.orelse)
        self.visit_all(node.finalbody)

    visit_TryStar = visit_Try

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.store(item.optional_vars, node, item.context_expr, kind=WITH)
        self.visit_all(node.body)

    visit_AsyncWith = visit_With

    def visit_Match(self, node: ast.Match) -> None:
        self.visit(node.subject)
        with self.branch():
            for case in node.cases:
                for pattern in ast.walk(case.pattern):
                    if isinstance(pattern, ast.MatchAs | ast.MatchStar) and pattern.name:
                        self.bind(pattern.name, MATCH, pattern)
                    elif isinstance(pattern, ast.MatchMapping) and pattern.rest:
                        self.bind(pattern.rest, MATCH, pattern)
                    elif isinstance(pattern, ast.MatchValue | ast.MatchClass):
                        self.visit(pattern.value if isinstance(pattern, ast.MatchValue) else pattern.cls)
                self.visit(case.guard)
                self.visit_all(case.body)

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        self.envs[-1].declared_outer.update(node.names)

    visit_Nonlocal = visit_Global

    # scopes

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.visit_all(node.decorator_list)
        self.defaults(node.args)
        self.visit(node.returns)
        with self.scoped():
            for argument in parameters(node):
                self.bind(argument.arg, PARAMETER, argument)
            self.visit_all(node.body)
        self.bind(node.name, FUNCTION, node)
        self.facts.functions[node.name] = node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.defaults(node.args)
        with self.scoped():
            for argument in parameters(node):
                self.bind(argument.arg, PARAMETER, argument)
            self.visit(node.body)

    def defaults(self, arguments: ast.arguments) -> None:
        self.visit_all(arguments.defaults)
        self.visit_all(arguments.kw_defaults)
        for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
            self.visit(argument.annotation)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.visit_all(node.decorator_list)
        self.visit_all(node.bases)
        self.visit_all(node.keywords)
        with self.scoped():
            self.visit_all(node.body)
        self.bind(node.name, CLASS, node)

    def visit_ListComp(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        with self.scoped(comprehension=True):
            for generator in node.generators:
                self.visit(generator.iter)
                for name in target_names(generator.target):
                    self.bind(name.id, COMPREHENSION, generator, iterable=generator.iter)
                self.visit_all(generator.ifs)
            if isinstance(node, ast.DictComp):
                self.visit(node.key)
                self.visit(node.value)
            else:
                self.visit(node.elt)

    visit_SetComp = visit_GeneratorExp = visit_DictComp = visit_ListComp


class _Scope:
    def __init__(self, walk: _Pass, comprehension: bool) -> None:
        self.walk = walk
        self.comprehension = comprehension

    def __enter__(self) -> None:
        self.walk.envs.append(_Env(is_comprehension=self.comprehension))
        self.walk.conditions.append(0)

    def __exit__(self, *_: object) -> None:
        self.walk.envs.pop()
        self.walk.conditions.pop()


class _Branch:
    def __init__(self, walk: _Pass) -> None:
        self.walk = walk

    def __enter__(self) -> None:
        self.walk.conditions[-1] += 1

    def __exit__(self, *_: object) -> None:
        self.walk.conditions[-1] -= 1
