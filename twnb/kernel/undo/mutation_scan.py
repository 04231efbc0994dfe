"""Which names a piece of code may change in place, read from the code before it runs.

Rebinding and deleting a name need no foresight (the old object is kept by reference as the code
runs); changing an object in place does: a copy must be taken before. This reads the code's syntax
tree for the ways an object reached by name is changed where it lives:

- a store or delete through it: `df["x"] = ...`, `obj.attr = ...`, `del d[k]`, `df.loc[m, "y"] = 0`;
- augmented assignment: `lst += [1]`, `arr *= 2` (in place for mutable objects);
- a method call on it: `lst.append(1)`, `d.update(...)`, `df.drop(..., inplace=True)`;
- passing it to a function known to change its argument (`random.shuffle(lst)`, `np.copyto(a, b)`,
  `setattr(obj, ...)`, `heapq.heappush(h, x)`) or as `out=`.

Which method calls change which objects depends on the object's type, so a use is reported with the
method's name and whether it said `inplace=True`; `in_place_estimate.py` judges it against the live
object. Aliases are followed: `x = df; x["a"] = 1`, `for row in rows: row.append(0)` and
`item = d["k"]; item.append(1)` report `df`, `rows` and `d`, and so are the code's own functions: what
a function's body does to a parameter, a call does to the object it passes there
(`def clean(d): d.dropna(inplace=True)` then `clean(sales)` reports `sales`). A name the code rebinds
at the top level before the change (`df = df.copy(); df["a"] = 1`) is a new object by then and is not
reported.

What cannot be read from the code is not reported: `exec` of a string, changes made by a function the
code did not define and that is not in the known list, objects reached through a module's attribute.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from twnb.kernel.undo.database_reads import QUERY_METHODS, statement_of

# Functions that change their first argument in place, by the last part of their dotted name.
ARGUMENT_MUTATORS = frozenset(
    {
        "shuffle",
        "copyto",
        "put",
        "place",
        "putmask",
        "fill_diagonal",
        "put_along_axis",
        "heappush",
        "heappop",
        "heapify",
        "heapreplace",
        "heappushpop",
        "insort",
        "insort_left",
        "insort_right",
        "setattr",
        "delattr",
    }
)


@dataclass(frozen=True)
class MutationUse:
    """One place the code may change the object a name holds: `kind` is "store" (assignment or delete
    through it), "augmented", "method" (a call of `method` on it) or "argument" (passed to a function
    that changes its argument, or as `out=`). `line` is the code's line; `text` the construct, short."""

    kind: str
    line: int
    text: str
    method: str = ""
    inplace: bool = False
    # The method is called on something reached through the name (`d["k"].append`), not on it.
    through: bool = False
    # A store or delete of whole columns by name, straight on the name (`df["x"] = ...`,
    # `del df["x"]`, `df[["a", "b"]] = ...`): those columns' names, else () (a frame may then be
    # snapshotted column by column: in_place_estimate.py).
    columns: tuple[str, ...] = ()
    # A query method's statement as the code spells it out (`db.execute("select 1")`), else None.
    statement: str | None = None


def scan_mutations(tree: ast.Module) -> dict[str, list[MutationUse]]:
    """Each name the code reads from its namespace and may change in place, with how: in the order
    the names first appear."""
    scanner = _Scanner()
    scanner.run(tree)
    return scanner.uses


def _root(node: ast.expr) -> str | None:
    """The name at the bottom of an attribute/subscript chain (`df.loc[m, "a"]` -> `df`), else None.
    A call in the chain ends it: `df.copy()["a"]` is a new object."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
            node = node.value
        else:
            return None


def _iterated_root(node: ast.expr) -> str | None:
    """The name whose items a loop walks: `rows`, `d.items()`, `d.values()`, `enumerate(rows)`."""
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("items", "values", "iterrows"):
            return _root(node.func.value)
        if isinstance(node.func, ast.Name) and node.func.id in ("enumerate", "zip", "reversed") and node.args:
            return _iterated_root(node.args[0])
        return None
    return _root(node)


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for element in target.elts for n in _target_names(element)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


class _Scanner:
    def __init__(self) -> None:
        self.uses: dict[str, list[MutationUse]] = {}
        # name -> the namespace names it may hold an object of (itself, unless the code aliased it)
        self.aliases: dict[str, set[str]] = {}
        # names the code rebound at the top level to an object of its own (no longer the namespace's)
        self.rebound: set[str] = set()
        self.local_names: list[set[str]] = []  # the functions' own names, innermost last
        # A function the code defines -> its parameters, in order, and how its body may change each:
        # a call passing a name there changes that name's object the same ways.
        self.parameters: dict[str, list[str]] = {}
        self.parameter_uses: dict[str, dict[str, list[MutationUse]]] = {}

    def run(self, tree: ast.Module) -> None:
        for statement in tree.body:
            self.statement(statement, top=True)

    # -- where a name leads ------------------------------------------------------------------------

    def resolve(self, name: str) -> set[str]:
        if any(name in scope for scope in self.local_names):
            return set(self.aliases.get(name, set()))
        if name in self.aliases:
            return set(self.aliases[name])
        return set() if name in self.rebound else {name}

    def use(self, root: str | None, use: MutationUse) -> None:
        if root is None:
            return
        for name in sorted(self.resolve(root)):
            self.uses.setdefault(name, []).append(use)

    def bind(self, name: str, value: ast.expr | None, *, top: bool, iterated: bool = False) -> None:
        source = None
        if value is not None:
            source = _iterated_root(value) if iterated else _root(value)
        reached = self.resolve(source) if source is not None else set()
        if top and not self.local_names:
            # Unconditional: from here on the name holds what it was bound to.
            if reached:
                self.aliases[name] = reached
            else:
                self.aliases.pop(name, None)
                self.rebound.add(name)
        elif reached:
            # Maybe bound (a branch, a loop, a function): it may hold either.
            self.aliases.setdefault(name, self.resolve(name)).update(reached)

    # -- statements and expressions ------------------------------------------------------------------

    def statement(self, node: ast.stmt, *, top: bool = False) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self.function(node)
            return
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                self.statement(member)
            return
        # The value is evaluated before its targets are bound.
        for part in ast.iter_child_nodes(node):
            if isinstance(part, ast.expr) and not self._is_target(node, part):
                self.expression(part)
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self.target(target, node.value, top=top)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self.target(node.target, node.value, top=top)
        elif isinstance(node, ast.AugAssign):
            kind = "augmented" if isinstance(node.target, ast.Name) else "store"
            text = _short(ast.unparse(node))
            self.use(_root(node.target), MutationUse(kind, node.lineno, text, columns=_columns(node.target)))
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if not isinstance(target, ast.Name):
                    text = _short(ast.unparse(node))
                    self.use(_root(target), MutationUse("store", node.lineno, text, columns=_columns(target)))
        elif isinstance(node, ast.For | ast.AsyncFor):
            for name in _target_names(node.target):
                self.bind(name, node.iter, top=False, iterated=True)
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                self.expression(item.context_expr)
                if item.optional_vars is not None:
                    for name in _target_names(item.optional_vars):
                        self.bind(name, None, top=False)
        for nested in ast.iter_child_nodes(node):
            if isinstance(nested, ast.stmt):
                self.statement(nested)
            elif isinstance(nested, ast.excepthandler | ast.match_case):
                for inner in ast.iter_child_nodes(nested):
                    if isinstance(inner, ast.stmt):
                        self.statement(inner)

    @staticmethod
    def _is_target(statement: ast.stmt, child: ast.expr) -> bool:
        if isinstance(statement, ast.Assign):
            return child in statement.targets
        if isinstance(statement, ast.AnnAssign | ast.AugAssign):
            return child is statement.target
        if isinstance(statement, ast.Delete):
            return child in statement.targets
        if isinstance(statement, ast.For | ast.AsyncFor):
            return child is statement.target
        return False

    def target(self, target: ast.expr, value: ast.expr, *, top: bool) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value, top=top)
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                # Unpacking: each name gets an item of the value, an alias of nothing we can follow.
                self.target(element, ast.Constant(None), top=top)
        elif isinstance(target, ast.Starred):
            self.target(target.value, ast.Constant(None), top=top)
        else:
            self.expression(target)  # subscripts inside the target (`df[col]`) are reads
            text = _short(ast.unparse(target) + " = ...")
            self.use(_root(target), MutationUse("store", target.lineno, text, columns=_columns(target)))

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        declared: set[str] = set()
        local: set[str] = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        body = node.body if isinstance(node.body, list) else []
        for child in ast.walk(node):
            if isinstance(child, ast.Global | ast.Nonlocal):
                declared.update(child.names)
            elif isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                local.add(child.id)
        self.local_names.append(local - declared)
        # Each parameter stands for whatever a call passes: its uses are gathered under a name of its own.
        named = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        params = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
        saved = {p: self.aliases.get(p) for p in params}
        if named:
            for param in params:
                self.aliases[param] = {_PARAMETER + param}
        try:
            if isinstance(node, ast.Lambda):
                self.expression(node.body)
            for statement in body:
                self.statement(statement)
        finally:
            self.local_names.pop()
            for param, alias in saved.items():
                if alias is None:
                    self.aliases.pop(param, None)
                else:
                    self.aliases[param] = alias
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.parameters[node.name] = params
                self.parameter_uses[node.name] = {p: self.uses.pop(_PARAMETER + p, []) for p in params}

    def expression(self, node: ast.expr) -> None:
        for child in ast.walk(node):
            if isinstance(child, ast.Lambda) and child is not node:
                self.function(child)
            elif isinstance(child, ast.comprehension):
                for name in _target_names(child.target):
                    self.bind(name, child.iter, top=False, iterated=True)
            elif isinstance(child, ast.NamedExpr):
                self.bind(child.target.id, child.value, top=False)
            elif isinstance(child, ast.Call):
                self.call(child)

    def call(self, node: ast.Call) -> None:
        text = _short(ast.unparse(node))
        inplace = any(
            k.arg == "inplace" and not (isinstance(k.value, ast.Constant) and not k.value.value)
            for k in node.keywords
        )
        func = node.func
        if isinstance(func, ast.Attribute):
            through = not isinstance(func.value, ast.Name)
            statement = statement_of(node) if func.attr in QUERY_METHODS else None
            use = MutationUse("method", node.lineno, text, func.attr, inplace, through, statement=statement)
            self.use(_root(func.value), use)
            called = func.attr
        elif isinstance(func, ast.Name):
            called = func.id
        else:
            called = ""
        if isinstance(func, ast.Name) and func.id in self.parameters:
            self.defined_call(func.id, node, text)
        if called in ARGUMENT_MUTATORS and node.args:
            self.use(_root(node.args[0]), MutationUse("argument", node.lineno, text, called))
        for keyword in node.keywords:
            if keyword.arg == "out":
                self.use(_root(keyword.value), MutationUse("argument", node.lineno, text, called))

    def defined_call(self, function: str, node: ast.Call, text: str) -> None:
        """A call of a function the code defined: what its body does to a parameter, it does to the
        object the call passes there (`def clean(d): d.dropna(inplace=True)` then `clean(sales)`)."""
        params = self.parameters[function]
        passed = [(p, a) for p, a in zip(params, node.args, strict=False) if not isinstance(a, ast.Starred)]
        passed += [(k.arg, k.value) for k in node.keywords if k.arg in params]
        for param, argument in passed:
            for use in self.parameter_uses[function].get(param, []):
                inner = MutationUse(
                    use.kind, node.lineno, _short(f"{text}: {use.text}"), use.method, use.inplace,
                    use.through, use.columns, use.statement,
                )  # fmt: skip
                self.use(_root(argument), inner)


_PARAMETER = "\0parameter:"  # never a Python name: a parameter's uses, until a call says what it holds


def _columns(target: ast.expr) -> tuple[str, ...]:
    """`name["x"]` or `name[["a", "b"]]` (constant names, straight on a name): the names; else ()."""
    if not isinstance(target, ast.Subscript) or not isinstance(target.value, ast.Name):
        return ()
    key = target.slice
    keys = key.elts if isinstance(key, ast.List) else [key]
    if keys and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in keys):
        return tuple(str(k.value) for k in keys if isinstance(k, ast.Constant))
    return ()


def _short(text: str, limit: int = 80) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
