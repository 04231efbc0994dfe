"""Plugin-only verification: in a plugin-only Round, code may call plugins and nothing else.

TaskWeaver's plugin-only mode builds the code itself from function calls (`r1=ascii_render(**{"text":
"Hello"})` then `r1`) and verifies it with an allowed list of functions (the plugins) and of variables
(the ones it assigned). Here the model writes the code, so the same rules are applied to its shape:

- a statement is an assignment of a plugin call's result to names (`df, text = anomaly_detection(...)`)
  or an expression: a plugin call, or the names of results (the last line, `df, text`);
- a call's function is a plugin, named directly (no attribute, no subscript, no other function);
- an argument is a literal (numbers, strings, None, True, False, and lists, tuples, sets and dicts of
  them, `-1`), or a variable a plugin call returned (earlier in this code, or in an earlier plugin-only
  run: `variables`), also as `**{...}`;
- nothing else: no import, def, loop, attribute, operator, comprehension, f-string or magic.

Each problem is a `Refusal` (rule `plugin-only`) naming its line and saying what is allowed, so the
model can rewrite the code or answer in text. The seam is `check_plugin_only(code, functions,
variables)`; the CodeInterpreter calls it after the ordinary verification when the Round is
plugin-only, and only then.

What a name holds is read from the one analysis of code (twnb/analysis): a name is a plugin's result
when the last binding before it is an assignment of a plugin call this check let through, or, when
this code does not bind it, when an earlier run assigned it.

`check_allowed(code, allowed_functions=..., allowed_variables=...)` is TaskWeaver's own pair of rules
on their own, as its `code_snippet_verification` applies them: with a list of allowed functions every
call must name one (an empty list allows none, None any); with a list of allowed variables every name
an assignment binds must be one. They judge names as written, as TaskWeaver does.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from twnb.analysis import FREE, CodeFacts, analyse
from twnb.roles.refusal import Refusal, Rule

__all__ = ["assigned_names", "check_allowed", "check_plugin_only"]

_LITERALS = (ast.Constant,)


def check_plugin_only(code: str, functions: Iterable[str], variables: Iterable[str] = ()) -> list[Refusal]:
    """The refusals of `code` in plugin-only mode ([] when it only calls `functions` and uses what
    they returned). `variables` are the names earlier plugin-only code assigned from plugin calls."""
    allowed = frozenset(functions)
    lines = code.splitlines()
    try:
        tree = ast.parse(code)
    except SyntaxError as error:
        line = error.lineno or 1
        return [_refusal(lines, line, f"is not valid Python ({error.msg})", rule=Rule.SYNTAX)]
    checker = _Checker(lines, allowed, frozenset(variables), analyse(tree))
    for statement in tree.body:
        checker.statement(statement)
    return checker.refusals


def check_allowed(
    code: str,
    *,
    allowed_functions: Iterable[str] | None = None,
    allowed_variables: Iterable[str] | None = None,
) -> list[Refusal]:
    """TaskWeaver's allowed-functions and allowed-variables rules (see the module docstring): one
    refusal per call of a function not allowed (named by `name(...)` or `x.name(...)`) and per name an
    assignment binds that is not allowed."""
    lines = code.splitlines()
    try:
        tree = ast.parse(code)
    except SyntaxError as error:
        return [_refusal(lines, error.lineno or 1, f"is not valid Python ({error.msg})", rule=Rule.SYNTAX)]
    functions = None if allowed_functions is None else frozenset(allowed_functions)
    variables = None if allowed_variables is None else frozenset(allowed_variables)
    refusals: list[Refusal] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and functions is not None:
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            if name not in functions:
                refusals.append(
                    _refusal(lines, node.lineno, f"function {name or '?'!s} is not allowed", name)
                )
        elif isinstance(node, ast.Assign) and variables is not None:
            for target in node.targets:
                for bound in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
                    if bound not in variables:
                        refusals.append(
                            _refusal(lines, node.lineno, f"assigning to {bound} is not allowed", bound)
                        )
    return sorted(refusals, key=lambda refusal: refusal.line)


def assigned_names(code: str) -> list[str]:
    """The names plugin-only `code` assigns (what later plugin-only code may use)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    facts = analyse(tree)
    body = {id(statement) for statement in tree.body if isinstance(statement, ast.Assign)}
    return [b.name for b in facts.bindings if id(b.node) in body]


def _refusal(
    lines: list[str], line: int, message: str, subject: str = "", rule: Rule = Rule.PLUGIN_ONLY
) -> Refusal:
    source = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return Refusal(
        rule,
        line,
        source,
        message,
        hint="(plugin-only mode: plugin calls and their results only)",
        subject=subject,
    )


class _Checker:
    def __init__(
        self, lines: list[str], functions: frozenset[str], earlier: frozenset[str], facts: CodeFacts
    ) -> None:
        self.lines = lines
        self.functions = functions
        self.earlier = earlier  # results earlier plugin-only runs assigned
        self.facts = facts
        self.accepted: set[int] = set()  # ids of the assignments of plugin calls let through
        self.refusals: list[Refusal] = []

    def is_result(self, node: ast.Name) -> bool:
        """Whether `node` reads what a plugin call returned (see the module docstring)."""
        binding = self.facts.latest(node)
        if binding is None or binding.kind == FREE:
            return node.id in self.earlier
        return id(binding.node) in self.accepted

    def refuse(self, node: ast.AST, message: str, subject: str = "") -> None:
        self.refusals.append(_refusal(self.lines, getattr(node, "lineno", 1), message, subject))

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Assign):
            if not self.call(node.value, assigned=True):
                return
            for target in node.targets:
                if not self.target(target):
                    self.refuse(target, "results may only be assigned to plain names")
                    return
            self.accepted.add(id(node))
            return
        if isinstance(node, ast.Expr):
            value = node.value
            if isinstance(value, ast.Call):
                self.call(value, assigned=False)
            elif not self.result_names(value):
                self.refuse(node, "an expression may only be a plugin call or the names of results")
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            self.refuse(node, "no imports in plugin-only mode", subject="import")
            return
        self.refuse(node, f"a {type(node).__name__} statement is not allowed in plugin-only mode")

    def call(self, node: ast.expr, *, assigned: bool) -> bool:
        if not isinstance(node, ast.Call):
            what = "a plugin call's result" if assigned else "a plugin call"
            self.refuse(node, f"only {what} may be assigned")
            return False
        if not isinstance(node.func, ast.Name):
            self.refuse(node, "a call must name a plugin function directly (no attribute or subscript)")
            return False
        name = node.func.id
        if name not in self.functions:
            plugins = ", ".join(sorted(self.functions)) or "none"
            self.refuse(node, f"{name} is not a plugin (the plugins: {plugins})", subject=name)
            return False
        ok = True
        for argument in node.args:
            if isinstance(argument, ast.Starred) or not self.value(argument):
                self.refuse(argument, "an argument must be a literal or an earlier plugin result")
                ok = False
        for keyword in node.keywords:
            if not self.value(keyword.value):
                self.refuse(keyword.value, "an argument must be a literal or an earlier plugin result")
                ok = False
        return ok

    def value(self, node: ast.expr) -> bool:
        if isinstance(node, _LITERALS):
            return True
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            return isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, int | float)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return all(self.value(item) for item in node.elts)
        if isinstance(node, ast.Dict):
            return all(k is None or self.value(k) for k in node.keys) and all(
                self.value(v) for v in node.values
            )
        if isinstance(node, ast.Name):
            return self.is_result(node)
        return False

    def target(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return True
        if isinstance(node, ast.Tuple | ast.List):
            return all(self.target(item) for item in node.elts)
        return False

    def result_names(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            if not self.is_result(node):
                self.refuse(node, f"{node.id} is not a result of a plugin call", subject=node.id)
                return True  # refused already, with its own reason
            return True
        if isinstance(node, ast.Tuple):
            return all(self.result_names(item) for item in node.elts)
        return False
