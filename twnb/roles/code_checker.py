"""The walk behind verification: one pass over the syntax tree, judging what each name and chain means.

Generated code is judged by what a name *refers to*, not how it is spelled: an import alias, a module
bound to another name (`x = os`), a from-import (`from pathlib import os`) and an attribute chain through
other modules (`shutil.os.system`, `os.sys.modules`) all resolve to a dotted path, judged from the module
the chain really reaches. A blocked builtin is refused wherever it is read (`run = exec`,
`def f(e=exec)`), and its name may not be bound (`exec = ...`) since a binding the walk cannot prove has
run would hide it. A module may be read only as the start of an attribute chain or bound to a plain
name: passed around as a value (`[os][0]`, `f(pathlib)`), the walk could not follow it.
"""

from __future__ import annotations

import ast
import builtins
import fnmatch
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import BuiltinFunctionType, ModuleType

from twnb.roles.refusal import Refusal, Rule
from twnb.roles.verification_policy import (
    BLOCKED_NAMES,
    BYPASS_FUNCTIONS,
    DYNAMIC_IMPORTERS,
    FRAME_ATTRIBUTES,
    INSTALL_MAGICS,
    MODULE_ATTRIBUTE_NAMES,
    PYTHON_BODY_MAGICS,
    REACHABLE_MODULES,
    SHELL_MAGICS,
    SHELL_METHODS,
    TIMEIT_OPTIONS,
    VerificationConfig,
)

# Names the code may not bind: a binding that might not run (`if False: exec = print`) would make the
# walk take the builtin for the code's own object. `get_ipython` is the notebook shell's door.
_UNBINDABLE = BYPASS_FUNCTIONS | {"get_ipython"}
# Functions that fetch attributes by a string: judged by the strings they are given.
_STRING_GETTERS = frozenset({"operator.attrgetter", "operator.methodcaller"})
_STOPS_KERNEL = frozenset({"exit", "quit", "_exit", "kill", "killpg", "abort"})


@dataclass
class Scope:
    """What names mean so far: import aliases and modules bound to names (local name -> dotted path),
    which of them are modules, and where the code binds each other name (line, column)."""

    aliases: dict[str, str] = field(default_factory=dict)
    modules: set[str] = field(default_factory=set)
    bindings: dict[str, list[tuple[int, int]]] = field(default_factory=dict)


@dataclass(frozen=True)
class _Resolved:
    """A dotted path judged from the module it really reaches: `path` as written through aliases,
    `canonical` from that module (`pathlib.os.system` -> `os.system`), `reached` the module a chain
    re-rooted at (None if it did not), `is_module` whether the whole path is a module."""

    path: str
    canonical: str
    reached: str | None
    is_module: bool


def _is_reachable_module(obj: object) -> bool:
    return isinstance(obj, ModuleType) and obj.__name__.split(".")[0] in REACHABLE_MODULES


def _builtin_name(obj: object) -> str | None:
    """`exec` for the builtin exec wherever it is found (`somemodule.run` bound to it)."""
    if isinstance(obj, BuiltinFunctionType):
        name = getattr(obj, "__name__", "")
        if getattr(builtins, name, None) is obj:
            return name
    return None


def _importer_name(obj: object) -> str | None:
    """The name of the dynamic importer `obj` is (DYNAMIC_IMPORTERS), found by identity: a re-export
    under another name is the same function."""
    if obj is None or not callable(obj) or isinstance(obj, type | ModuleType):
        return None
    for name in DYNAMIC_IMPORTERS:
        module, _, attribute = name.rpartition(".")
        owner = sys.modules.get(module) if module else builtins
        if owner is not None and vars(owner).get(attribute) is obj:
            return name
    return None


def resolve_path(path: str, known_module: bool) -> _Resolved:
    """Judge `path` (dotted, through aliases) from the module it reaches. Uses the real modules when
    they are loaded (reading their `__dict__`, never importing or calling `__getattr__`), otherwise
    the attribute's name. `known_module`: the whole path is a module (an `import` bound it)."""
    parts = path.split(".")
    current: list[str] = [parts[0]]
    reached: str | None = None
    obj: object = sys.modules.get(parts[0])
    is_module = known_module
    for segment in parts[1:]:
        found = vars(obj).get(segment) if isinstance(obj, ModuleType) else None
        builtin = _builtin_name(found)
        importer = None if builtin is not None else _importer_name(found)
        if builtin is not None:
            current, reached = [builtin], None
        elif importer is not None:
            current, reached = importer.split("."), None
        elif isinstance(found, ModuleType) and _is_reachable_module(found):
            if found.__name__ != ".".join([*current, segment]):
                reached = found.__name__
                current = reached.split(".")
            else:
                current.append(segment)
        elif found is None and segment in MODULE_ATTRIBUTE_NAMES:
            reached = MODULE_ATTRIBUTE_NAMES[segment]
            current = [reached]
        else:
            current.append(segment)
        obj = found
        is_module = known_module or isinstance(found, ModuleType) or (found is None and reached == segment)
    return _Resolved(path, ".".join(current), reached, is_module)


class CodeChecker(ast.NodeVisitor):
    """Collects the refusals for one piece of code (see the module docstring)."""

    def __init__(
        self, config: VerificationConfig, lines: list[str], line_offset: int, scope: Scope | None = None
    ) -> None:
        self.config = config
        self.lines = lines
        self.line_offset = line_offset
        self.scope = scope or Scope()
        self.refusals: list[Refusal] = []
        self.parents: dict[ast.AST, ast.AST] = {}
        self.class_depth = 0
        self.blocked = config.blocked_functions | config.blocked_attributes

    def check(self, tree: ast.AST) -> list[Refusal]:
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent
        for name, position, binder in _bindings(tree, self.parents):
            self.scope.bindings.setdefault(name, []).append(position)
            if name in _UNBINDABLE:
                self.refuse(
                    binder,
                    Rule.SHADOWED_BUILTIN,
                    f"The name '{name}' may not be bound: verification would take it for the builtin.",
                    "Choose another name.",
                    name,
                )
        self.visit(tree)
        return self.refusals

    # -- reporting -------------------------------------------------------------------------------

    def refuse(self, node: ast.AST, rule: Rule, message: str, hint: str = "", subject: str = "") -> None:
        lineno = getattr(node, "lineno", 1)
        shown = self.lines[lineno - 1].strip() if 0 < lineno <= len(self.lines) else ""
        self.refusals.append(Refusal(rule, lineno + self.line_offset, shown, message, hint, subject))

    def refuse_function(self, node: ast.AST, name: str) -> None:
        why, hint = _why_blocked(name)
        self.refuse(node, Rule.BLOCKED_FUNCTION, f"Function '{name}' is blocked: {why}", hint, name)

    # -- modules -----------------------------------------------------------------------------------

    def module_refusal(self, module: str) -> tuple[Rule, str] | None:
        top = module.split(".")[0]
        if top == "__future__":
            return None
        if top in self.config.blocked_modules:
            return Rule.BLOCKED_MODULE, "Use the modules suited to data analysis listed in your instructions."
        if self.config.allowed_modules is not None and top not in self.config.allowed_modules:
            return (
                Rule.MODULE_NOT_ALLOWED,
                "Use the modules suited to data analysis listed in your instructions.",
            )
        return None

    def check_module(self, node: ast.AST, module: str) -> bool:
        refused = self.module_refusal(module)
        if refused is None:
            return True
        rule, hint = refused
        self.refuse(node, rule, f"Importing module '{module}' is not allowed.", hint, module)
        return False

    def blocked_path(self, resolved: _Resolved) -> str | None:
        """The blocked name `resolved` is (as written or as reached), if any."""
        for name in (resolved.canonical, resolved.path):
            if any(fnmatch.fnmatchcase(name, pattern) for pattern in self.blocked):
                return name
        return None

    def judge_path(self, node: ast.AST, resolved: _Resolved) -> bool:
        """Refuse a blocked function or a module the path reaches that may not be imported. True if
        refused."""
        blocked = self.blocked_path(resolved)
        if blocked is not None:
            self.refuse_function(node, blocked)
            return True
        if resolved.reached is not None:
            refused = self.module_refusal(resolved.reached)
            if refused is not None:
                rule, hint = refused
                self.refuse(
                    node,
                    rule,
                    f"'{resolved.path}' reaches module '{resolved.reached}', which is not allowed.",
                    hint,
                    resolved.reached,
                )
                return True
        return False

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if self.check_module(node, alias.name):
                name = alias.asname or alias.name.split(".")[0]
                self.scope.aliases[name] = alias.name if alias.asname else name
                self.scope.modules.add(name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:  # relative imports have no meaning in a notebook cell
            self.refuse(node, Rule.RELATIVE_IMPORT, "Relative imports are not allowed in notebook code.")
            return
        module = node.module or ""
        if not self.check_module(node, module):
            return
        for alias in node.names:
            if alias.name == "*":
                self.star_import(node, module)
                continue
            resolved = resolve_path(f"{module}.{alias.name}", known_module=False)
            if self.judge_path(node, resolved):
                continue
            local = alias.asname or alias.name
            self.scope.aliases[local] = resolved.path
            if resolved.is_module:
                self.scope.modules.add(local)

    def star_import(self, node: ast.ImportFrom, module: str) -> None:
        canonical = resolve_path(module, known_module=True).canonical
        under = sorted(p for p in self.blocked if p.startswith(f"{module}.") or p.startswith(f"{canonical}."))
        if under:
            self.refuse(
                node,
                Rule.STAR_IMPORT,
                f"'from {module} import *' would bring blocked functions ({', '.join(under[:3])}) in "
                "under bare names.",
                f"Import the names you need: from {module} import name.",
                module,
            )

    # -- names, calls, attributes ------------------------------------------------------------------

    def bound_before(self, name: str, node: ast.AST) -> bool:
        here = _start(node)
        return any(position <= here for position in self.scope.bindings.get(name, ()))

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if not isinstance(node.ctx, ast.Load):
            return
        if name in BLOCKED_NAMES:
            self.refuse(
                node,
                Rule.BLOCKED_NAME,
                f"Access to '{name}' is blocked: it can be used to bypass these checks.",
            )
        elif name in self.scope.aliases:
            resolved = resolve_path(self.scope.aliases[name], name in self.scope.modules)
            if not self.judge_path(node, resolved):
                self.judge_module_value(node, resolved)
                self.judge_importer_value(node, resolved)
        elif name == "get_ipython":
            self.refuse(node, Rule.IPYTHON_SHELL, _SHELL_REFUSED, "Write plain Python.", name)
        elif (name in _UNBINDABLE or not self.bound_before(name, node)) and any(
            fnmatch.fnmatchcase(name, pattern) for pattern in self.blocked
        ):
            self.refuse_function(node, name)

    def judge_module_value(self, node: ast.expr, resolved: _Resolved) -> None:
        if resolved.is_module and not self.plain_module_use(node):
            self.refuse(
                node,
                Rule.MODULE_AS_VALUE,
                f"The module '{resolved.canonical}' is used as a value here: verification cannot follow it.",
                "Call what you need on the module directly (module.function(...)).",
                resolved.canonical,
            )

    def judge_importer_value(self, node: ast.expr, resolved: _Resolved) -> None:
        """A dynamic importer may be called or given another plain name, not passed around: the walk
        judges its calls by the name they import (`map(import_item, names)` it could not)."""
        if resolved.canonical not in DYNAMIC_IMPORTERS:
            return
        parent = self.parents.get(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            return
        if self.plain_module_use(node) and not isinstance(parent, ast.Attribute):
            return
        self.refuse(
            node,
            Rule.DYNAMIC_IMPORT,
            f"'{resolved.canonical}' is used as a value here: verification cannot tell what it imports.",
            "Import modules with an import statement.",
            resolved.canonical,
        )

    def judge_dynamic_import(self, node: ast.Call, importer: str) -> None:
        """`import_item('subprocess')` is judged as `import subprocess`; a name not written out (or
        relative) cannot be known, and is refused."""
        kind = DYNAMIC_IMPORTERS[importer]
        target: ast.expr | None = None
        if node.args and not isinstance(node.args[0], ast.Starred):
            target = node.args[0]
        else:
            target = next((k.value for k in node.keywords if k.arg in ("name", "path")), None)
        if not (isinstance(target, ast.Constant) and isinstance(target.value, str)) or (
            target.value.startswith(".") or not target.value
        ):
            self.refuse(
                node,
                Rule.DYNAMIC_IMPORT,
                f"'{importer}' imports a module named at run time: verification cannot know which.",
                "Import modules with an import statement (import name).",
                importer,
            )
            return
        name = target.value.replace(":", ".") if kind == "colon" else target.value
        if not self.check_module(node, name.split(".")[0] if kind != "module" else name):
            return
        if kind != "module":
            self.judge_path(node, resolve_path(name, known_module=False))

    def plain_module_use(self, node: ast.expr) -> bool:
        """The start of an attribute chain, or the whole value of a plain `name = module`."""
        parent = self.parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            return True
        if self.class_depth:
            return False
        if isinstance(parent, ast.Assign) and parent.value is node:
            return all(isinstance(t, ast.Name) for t in parent.targets)
        if isinstance(parent, ast.AnnAssign) and parent.value is node:
            return isinstance(parent.target, ast.Name)
        return False

    def resolve(self, node: ast.expr) -> _Resolved | None:
        """What an attribute chain on an alias refers to (`np.linalg.x` -> numpy.linalg.x); None for
        chains on anything else."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.scope.aliases:
            return None
        path = ".".join([self.scope.aliases[node.id], *reversed(parts)])
        return resolve_path(path, not parts and node.id in self.scope.modules)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        if attr.startswith("__") and attr.endswith("__") and attr not in self.config.allowed_dunders:
            self.refuse(
                node,
                Rule.DUNDER,
                f"Attribute access to '{attr}' is blocked: dunder attributes can be used to bypass these "
                "checks.",
                subject=attr,
            )
            return
        if attr in FRAME_ATTRIBUTES:
            self.refuse(
                node,
                Rule.INTROSPECTION,
                f"Attribute access to '{attr}' is blocked: frames reach around these checks.",
                subject=attr,
            )
            return
        if attr in SHELL_METHODS and not self.config.allow_shell:
            self.refuse(node, Rule.IPYTHON_SHELL, _SHELL_REFUSED, "Write plain Python.", attr)
            return
        resolved = self.resolve(node)
        if resolved is not None and len(resolved.path.split(".")) > 1:
            if self.judge_path(node, resolved):
                return
            self.judge_module_value(node, resolved)
            self.judge_importer_value(node, resolved)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        """`x = os` (or `p = os.path`) makes `x` another name for that module: `x.system(...)` is then
        judged as `os.system(...)`."""
        self.generic_visit(node)
        self.follow(node.targets, node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)
        if node.value is not None:
            self.follow([node.target], node.value)

    def follow(self, targets: list[ast.expr], value: ast.expr) -> None:
        root = value
        while isinstance(root, ast.Attribute):
            root = root.value
        if not (isinstance(root, ast.Name) and root.id in self.scope.aliases):
            return
        resolved = self.resolve(value) if isinstance(value, ast.Attribute) else None
        path = resolved.path if resolved is not None else self.scope.aliases[root.id]
        is_module = resolved.is_module if resolved is not None else root.id in self.scope.modules
        for target in targets:
            if isinstance(target, ast.Name):
                self.scope.aliases[target.id] = path
                if is_module:
                    self.scope.modules.add(target.id)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        # `class A: m = os` binds `A.m`, which the walk does not follow: no module values there.
        self.class_depth += 1
        try:
            self.generic_visit(node)
        finally:
            self.class_depth -= 1

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        depth, self.class_depth = self.class_depth, 0  # a method's body binds plain names again
        try:
            self.generic_visit(node)
        finally:
            self.class_depth = depth

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Subscript(self, node: ast.Subscript) -> None:
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.startswith("__"):
            self.refuse(
                node,
                Rule.DUNDER,
                f"Subscript access to '{key.value}' is blocked: it can be used to bypass these checks.",
                subject=key.value,
            )
            return
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if self.ipython_call(node):
            return
        resolved = self.resolve(node.func) if isinstance(node.func, ast.Attribute | ast.Name) else None
        if isinstance(node.func, ast.Name) and node.func.id == "__import__" and resolved is None:
            self.judge_dynamic_import(node, "__import__")
        elif resolved is not None and resolved.canonical in DYNAMIC_IMPORTERS:
            self.judge_dynamic_import(node, resolved.canonical)
        if resolved is not None and resolved.canonical in _STRING_GETTERS:
            for name in _constant_strings(node.args):
                if self.string_reaches_blocked(name):
                    self.refuse(
                        node,
                        Rule.BLOCKED_FUNCTION,
                        f"'{resolved.canonical}' with '{name}' reaches what these checks refuse.",
                        "Use the attribute directly (obj.name).",
                        name,
                    )
                    return
        self.generic_visit(node)

    def string_reaches_blocked(self, dotted: str) -> bool:
        for part in dotted.split("."):
            if part.startswith("__") and part not in self.config.allowed_dunders:
                return True
            if part in FRAME_ATTRIBUTES or part in SHELL_METHODS or part in MODULE_ATTRIBUTE_NAMES:
                return True
            leaves = (p.rsplit(".", 1)[-1] for p in self.blocked)
            if any(fnmatch.fnmatchcase(part, leaf) for leaf in leaves if leaf != "*"):
                return True
        return False

    # -- IPython syntax (after transform_cell) -----------------------------------------------------

    def _refuse_shell(self, node: ast.AST, installs: bool, what: str, hint: str, subject: str) -> None:
        """Refuse an install or a shell command (`!cmd`, `%pip`, `%%bash`) unless the shell is allowed."""
        if not self.config.allow_shell:
            self.refuse(
                node,
                Rule.INSTALL if installs else Rule.SHELL,
                f"{what} is refused: the code runs in the user's own environment.",
                hint,
                subject,
            )

    def ipython_call(self, node: ast.Call) -> bool:
        """Judge `get_ipython().<method>(...)`, which is what `%`, `%%` and `!` become. True if handled."""
        func = node.func
        if not (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "get_ipython"
        ):
            if isinstance(func, ast.Name) and func.id == "get_ipython":
                self.refuse(
                    node,
                    Rule.IPYTHON_SHELL,
                    "Calling get_ipython() directly is not allowed; write plain Python.",
                    subject="get_ipython",
                )
                return True
            return False
        method = func.attr
        args = [
            a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args
        ]
        if method in {"system", "getoutput"}:
            command = (args[0] if args else None) or ""
            words = command.split()
            installs = bool(words) and words[0] in {"pip", "pip3", "conda"}
            what = "Installing packages (!pip)" if installs else "A shell escape (!cmd)"
            hint = "Use Python, or tell the user in text what to run."
            self._refuse_shell(node, installs, what, hint, command)
            return True
        if method not in {"run_line_magic", "run_cell_magic"} or not args or args[0] is None:
            self.refuse(
                node,
                Rule.IPYTHON_SHELL,
                f"get_ipython().{method}(...) is not allowed; write plain Python.",
                subject=method,
            )
            return True
        name = args[0]
        cell = method == "run_cell_magic"
        allowed = self.config.allowed_cell_magics if cell else self.config.allowed_line_magics
        prefix = "%%" if cell else "%"
        if name in INSTALL_MAGICS or name in SHELL_MAGICS:
            installs = name in INSTALL_MAGICS
            what = f"{'Installing packages' if installs else 'A shell command'} ({prefix}{name})"
            self._refuse_shell(node, installs, what, "Tell the user in text what to run.", prefix + name)
            return True
        if name not in allowed:
            self.refuse(
                node,
                Rule.MAGIC,
                f"The magic {prefix}{name} is not allowed. Allowed: "
                + ", ".join(prefix + m for m in sorted(allowed))
                + ".",
                subject=prefix + name,
            )
            return True
        if name in PYTHON_BODY_MAGICS:
            body = args[-1] if cell else TIMEIT_OPTIONS.sub("", args[1] or "") if len(args) > 1 else ""
            if body and body.strip():
                offset = self.line_offset + (node.lineno if cell else node.lineno - 1)
                self.refusals.extend(check_code(body, self.config, offset, self.scope))
        return True


_SHELL_REFUSED = "Reaching the notebook's shell is not allowed: it runs shell commands and code."


def _why_blocked(name: str) -> tuple[str, str]:
    """Why `name` is blocked, and what to do instead."""
    leaf = name.rsplit(".", 1)[-1]
    if leaf in _STOPS_KERNEL:
        return "it would stop the user's kernel.", "End your code normally instead."
    if leaf in {"input", "breakpoint"}:
        return "it would wait for keyboard input that never comes.", ""
    if leaf in BYPASS_FUNCTIONS:
        return "it can be used to bypass these checks.", "Write the code out directly."
    if name.startswith("sys."):
        return "it reaches modules and frames around these checks.", "Import what you need by name."
    if name.startswith("IPython.") and leaf == "Javascript":
        return "it runs script in the user's browser.", "Show results as HTML, Markdown or plots."
    if name.startswith("IPython."):
        return "it reaches the notebook's shell, which runs shell commands.", "Write plain Python."
    return "it can damage the user's files or processes.", "Explain in text what you need instead."


def _constant_strings(args: list[ast.expr]) -> Iterator[str]:
    for arg in args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            yield arg.value


def _bindings(
    tree: ast.AST, parents: dict[ast.AST, ast.AST]
) -> Iterator[tuple[str, tuple[int, int], ast.AST]]:
    """Every name the code binds, with the position from which the binding holds and the node that
    binds it: after the statement that binds it (`x = x` reads the old `x`), at the start of a
    function's body for its arguments (their defaults are read before)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            yield node.id, _after_statement(node, parents), node
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name, _end(node), node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    yield alias.asname or alias.name.split(".")[0], _end(node), node
        elif isinstance(node, ast.ExceptHandler) and node.name:
            yield node.name, _start(node.body[0]), node
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            yield node.name, _end(node), node
        elif isinstance(node, ast.MatchMapping) and node.rest:
            yield node.rest, _end(node), node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            start = _start(node.body[0] if isinstance(node.body, list) else node.body)
            arguments = node.args
            for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
                yield arg.arg, start, arg
            for extra in (arguments.vararg, arguments.kwarg):
                if extra is not None:
                    yield extra.arg, start, extra


def _after_statement(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> tuple[int, int]:
    current = node
    while current in parents and not isinstance(current, ast.stmt | ast.comprehension | ast.NamedExpr):
        current = parents[current]
    if isinstance(current, ast.For | ast.AsyncFor | ast.comprehension):
        return _end(node)  # the loop variable holds in the body, which comes after it
    if isinstance(current, ast.With | ast.AsyncWith):
        return _end(parents.get(node, node))
    return _end(current)


def _start(node: ast.AST) -> tuple[int, int]:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def _end(node: ast.AST) -> tuple[int, int]:
    return (getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0)


def check_code(
    code: str, config: VerificationConfig, line_offset: int = 0, scope: Scope | None = None
) -> list[Refusal]:
    """The refusals for `code` (IPython syntax allowed), lines counted from `line_offset` + 1."""
    from IPython.core.inputtransformer2 import TransformerManager  # lazy: IPython is heavy to import

    lines = code.splitlines()
    try:
        python = TransformerManager().transform_cell(code)
        tree = ast.parse(python)
    except SyntaxError as exc:
        lineno = exc.lineno or 1
        shown = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
        return [Refusal(Rule.SYNTAX, lineno + line_offset, shown, f"Syntax error: {exc.msg}.")]
    return CodeChecker(config, lines, line_offset, scope).check(tree)
