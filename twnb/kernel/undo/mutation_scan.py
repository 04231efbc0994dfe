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
object. What a name holds is read from the one analysis of code (twnb/analysis), so aliases are
followed (of the objects changed and of the functions changing them: `from random import shuffle as
mix`): `x = df; x["a"] = 1`, `for row in rows: row.append(0)` and
`item = d["k"]; item.append(1)` report `df`, `rows` and `d`, and so are the code's own functions: what
a function's body does to a parameter, a call does to the object it passes there
(`def clean(d): d.dropna(inplace=True)` then `clean(sales)` reports `sales`). A name the code rebinds
at the top level before the change (`df = df.copy(); df["a"] = 1`) is a new object by then and is not
reported; a binding that may not have run (a branch, a loop) adds to what the name may hold.

What cannot be read from the code is not reported: `exec` of a string, changes made by a function the
code did not define and that is not in the known list, objects reached through a module's attribute.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from twnb.analysis import (
    ASSIGN,
    AUGMENTED,
    COMPREHENSION,
    FREE,
    LOOP,
    PARAMETER,
    WALRUS,
    Binding,
    CodeFacts,
    analyse,
    magic_body,
    parameters,
)
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
    scanner = _Scanner(analyse(tree))
    scanner.run(tree)
    return scanner.uses


def _root(node: ast.expr) -> ast.Name | None:
    """The name at the bottom of an attribute/subscript chain (`df.loc[m, "a"]` -> `df`), else None.
    A call in the chain ends it: `df.copy()["a"]` is a new object."""
    while True:
        if isinstance(node, ast.Name):
            return node
        if isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
            node = node.value
        else:
            return None


def _iterated_root(node: ast.expr, facts: CodeFacts) -> ast.Name | None:
    """The name whose items a loop walks: `rows`, `d.items()`, `d.values()`, `enumerate(rows)` (the
    builtin under any name)."""
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("items", "values", "iterrows"):
            return _root(node.func.value)
        if facts.builtin(node.func) in ("enumerate", "zip", "reversed") and node.args:
            return _iterated_root(node.args[0], facts)
        return None
    return _root(node)


class _Scanner:
    def __init__(self, facts: CodeFacts, outer: tuple[_Scanner, ast.Call] | None = None) -> None:
        self.facts = facts
        # Code a magic runs as text (`%time ...`): the scanner of the code around it and the call; a
        # name this code does not bind holds what that code bound before the call.
        self.outer = outer
        self.uses: dict[str, list[MutationUse]] = {}
        self.holding: dict[int, set[str]] = {}  # id of a binding -> the namespace names it may hold
        # A function the code defines (by id) -> how its body may change each parameter: a call
        # passing a name there changes that name's object the same ways.
        self.parameter_uses: dict[int, dict[str, list[MutationUse]]] = {}

    def run(self, tree: ast.Module) -> None:
        for statement in tree.body:
            self.statement(statement)

    # -- where a name leads ------------------------------------------------------------------------

    def resolve(self, node: ast.Name) -> set[str]:
        """The namespace names whose objects the name `node` reads may hold (itself when the code did
        not bind it; a parameter of the code's own function stands for what a call passes)."""
        reaching = self.facts.reaching(node)
        if not reaching:
            return self.free(node.id)
        held: set[str] = set()
        for binding in reaching:
            held |= self.held_by(binding)
        return held

    def held_by(self, binding: Binding) -> set[str]:
        key = id(binding)
        if key not in self.holding:
            self.holding[key] = set()  # a name bound to itself holds nothing new
            self.holding[key] = self._held_by(binding)
        return self.holding[key]

    def _held_by(self, binding: Binding) -> set[str]:
        if binding.kind == FREE:
            return self.free(binding.name)
        source: ast.Name | None = None
        if binding.kind in (ASSIGN, WALRUS) and binding.value is not None:
            source = _root(binding.value)
        elif binding.kind in (LOOP, COMPREHENSION) and binding.iterable is not None:
            source = _iterated_root(binding.iterable, self.facts)
        elif binding.kind == AUGMENTED and isinstance(binding.node, ast.AugAssign):
            source = binding.node.target if isinstance(binding.node.target, ast.Name) else None
        elif binding.kind == PARAMETER:
            function = self.facts.parents.get(self.facts.parents.get(binding.node, binding.node))
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                return {_parameter(function, binding.name)}
        return self.resolve(source) if source is not None else set()

    def free(self, name: str) -> set[str]:
        """What a name the code does not bind may hold: the namespace's object, or what the code
        around a magic's body bound before the magic's call."""
        if self.outer is None:
            return {name}
        scanner, call = self.outer
        bindings = scanner.facts.bound_before_call(name, call)
        if not bindings:
            return scanner.free(name)
        held: set[str] = set()
        for binding in bindings:
            held |= scanner.held_by(binding)
        if all(binding.conditional for binding in bindings):
            held |= scanner.free(name)
        return held

    def use(self, root: ast.Name | None, use: MutationUse) -> None:
        if root is None:
            return
        for name in sorted(self.resolve(root)):
            self.uses.setdefault(name, []).append(use)

    # -- statements and expressions ------------------------------------------------------------------

    def statement(self, node: ast.stmt) -> None:
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
                self.target(target)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self.target(node.target)
        elif isinstance(node, ast.AugAssign):
            kind = "augmented" if isinstance(node.target, ast.Name) else "store"
            text = _short(ast.unparse(node))
            self.use(_root(node.target), MutationUse(kind, node.lineno, text, columns=_columns(node.target)))
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if not isinstance(target, ast.Name):
                    text = _short(ast.unparse(node))
                    self.use(_root(target), MutationUse("store", node.lineno, text, columns=_columns(target)))
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                self.expression(item.context_expr)
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

    def target(self, target: ast.expr) -> None:
        if isinstance(target, ast.Name):
            return  # a binding: the analysis's
        if isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self.target(element)
        elif isinstance(target, ast.Starred):
            self.target(target.value)
        else:
            self.expression(target)  # subscripts inside the target (`df[col]`) are reads
            text = _short(ast.unparse(target) + " = ...")
            self.use(_root(target), MutationUse("store", target.lineno, text, columns=_columns(target)))

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        if isinstance(node, ast.Lambda):
            self.expression(node.body)
            return
        for statement in node.body:
            self.statement(statement)
        # Each parameter stands for whatever a call passes: its uses were gathered under a name of
        # its own, kept for the calls.
        self.parameter_uses[id(node)] = {
            p.arg: self.uses.pop(_parameter(node, p.arg), []) for p in parameters(node)
        }

    def expression(self, node: ast.expr) -> None:
        for child in ast.walk(node):
            if isinstance(child, ast.Lambda) and child is not node:
                self.function(child)
            elif isinstance(child, ast.Call):
                self.call(child)

    def call(self, node: ast.Call) -> None:
        text = _short(ast.unparse(node))
        inplace = any(
            k.arg == "inplace" and not (isinstance(k.value, ast.Constant) and not k.value.value)
            for k in node.keywords
        )
        func = node.func
        self.magic_body(node)
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
        # The function as imported, whatever it is called here (`from random import shuffle as mix`,
        # `s = setattr`).
        dotted = self.facts.dotted(func) or self.facts.builtin(func)
        if dotted is not None and dotted.rpartition(".")[2] in ARGUMENT_MUTATORS:
            called = dotted.rpartition(".")[2]
        function = self.facts.own_function(func)
        if function is not None and id(function) in self.parameter_uses:
            self.defined_call(function, node, text)
        if called in ARGUMENT_MUTATORS and node.args:
            self.use(_root(node.args[0]), MutationUse("argument", node.lineno, text, called))
        for keyword in node.keywords:
            if keyword.arg == "out":
                self.use(_root(keyword.value), MutationUse("argument", node.lineno, text, called))

    def magic_body(self, node: ast.Call) -> None:
        """`%time ...` and `%%capture` run Python given as text: its changes are the code's too (the
        same magics risk grades read)."""
        body = magic_body(node)
        if body is None:
            return
        try:
            tree = ast.parse(body.text)
        except SyntaxError:
            return
        inner = _Scanner(analyse(tree), (self, node))
        inner.run(tree)
        for name, uses in inner.uses.items():
            self.uses.setdefault(name, []).extend(replace(u, line=u.line + body.line_offset) for u in uses)

    def defined_call(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, node: ast.Call, text: str
    ) -> None:
        """A call of a function the code defined: what its body does to a parameter, it does to the
        object the call passes there (`def clean(d): d.dropna(inplace=True)` then `clean(sales)`)."""
        args = function.args
        params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        passed = [(p, a) for p, a in zip(params, node.args, strict=False) if not isinstance(a, ast.Starred)]
        passed += [(k.arg, k.value) for k in node.keywords if k.arg in params]
        for param, argument in passed:
            for use in self.parameter_uses[id(function)].get(param, []):
                inner = MutationUse(
                    use.kind, node.lineno, _short(f"{text}: {use.text}"), use.method, use.inplace,
                    use.through, use.columns, use.statement,
                )  # fmt: skip
                self.use(_root(argument), inner)


def _parameter(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> str:
    """Never a Python name: a parameter's uses, until a call says what it holds."""
    return f"\0parameter:{id(function)}:{name}"


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
