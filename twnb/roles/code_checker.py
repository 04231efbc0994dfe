"""The walk behind verification: the rules judging what each name and chain of generated code means.

Generated code is judged by what a name *refers to*, not how it is spelled. The names are resolved by
the one analysis of code (twnb/analysis): an import alias, a module bound to another name (`x = os`),
a from-import (`from pathlib import os`) and an attribute chain through other modules
(`shutil.os.system`, `os.sys.modules`) all resolve to a dotted path, judged from the module the chain
really reaches. Where a name may hold a module or something else (a branch), it is judged as the
module; an import verification refuses binds nothing it judges again. A blocked builtin is refused
wherever it is read (`run = exec`, `def f(e=exec)`), and its name may not be bound (`exec = ...`)
since a binding the walk cannot prove has run would hide it. A module may be read only as the start
of an attribute chain or bound to a plain name: passed around as a value (`[os][0]`, `f(pathlib)`),
the walk could not follow it.
"""

from __future__ import annotations

import ast
import fnmatch
from collections.abc import Iterator
from dataclasses import dataclass

from twnb.analysis import (
    ASSIGN,
    FROM_IMPORT,
    IMPORT,
    Binding,
    CodeFacts,
    Position,
    Resolved,
    analyse,
    binding_sites,
    magic_body,
    start_of,
)
from twnb.analysis import resolve_path as resolve_chain
from twnb.roles.refusal import Refusal, Rule
from twnb.roles.verification_policy import (
    BLOCKED_NAMES,
    BYPASS_FUNCTIONS,
    CHAIN_RULES,
    DYNAMIC_IMPORTERS,
    FRAME_ATTRIBUTES,
    INSTALL_MAGICS,
    JUDGED_AS,
    MODULE_ATTRIBUTE_NAMES,
    SHELL_MAGICS,
    SHELL_METHODS,
    VerificationConfig,
)

# Names the code may not bind: a binding that might not run (`if False: exec = print`) would make the
# walk take the builtin for the code's own object. `get_ipython` is the notebook shell's door.
_UNBINDABLE = BYPASS_FUNCTIONS | {"get_ipython"}
# Functions that fetch attributes by a string: judged by the strings they are given.
_STRING_GETTERS = frozenset({"operator.attrgetter", "operator.methodcaller"})
_STOPS_KERNEL = frozenset({"exit", "quit", "_exit", "kill", "killpg", "abort"})


def _judged_as(path: str) -> tuple[str, str] | None:
    """The module `path` (a module, or a name in one) is judged as, and why (JUDGED_AS)."""
    for module, judged in JUDGED_AS.items():
        if path == module or path.startswith(f"{module}."):
            return judged
    return None


def resolve_path(path: str, known_module: bool) -> Resolved:
    """Judge `path` (dotted, through aliases) from the module it reaches (twnb.analysis.chains), with
    verification's modules. `known_module`: the whole path is a module (an `import` bound it)."""
    return resolve_chain(path, known_module, CHAIN_RULES)


@dataclass(frozen=True)
class _Outer:
    """The code around a body a magic runs as text (`%time ...`): the body sees the names it bound
    before the magic's call."""

    checker: CodeChecker
    call: ast.Call

    def alias(self, name: str) -> tuple[str, bool] | None:
        bindings = self.checker.facts.bound_before_call(name, self.call)
        for binding in reversed(bindings):
            found = self.checker.binding_alias(binding)
            if found is not None:
                return found
        if not bindings and self.checker.outer is not None:
            return self.checker.outer.alias(name)
        return None

    def binds(self, name: str) -> bool:
        if self.checker.facts.bound_before_call(name, self.call) or name in self.checker.bindings:
            return True
        return self.checker.outer is not None and self.checker.outer.binds(name)


class CodeChecker(ast.NodeVisitor):
    """Collects the refusals for one piece of code (see the module docstring)."""

    def __init__(
        self,
        config: VerificationConfig,
        lines: list[str],
        line_offset: int,
        facts: CodeFacts,
        outer: _Outer | None = None,
    ) -> None:
        self.config = config
        self.lines = lines
        self.line_offset = line_offset
        self.facts = facts
        self.outer = outer
        self.refusals: list[Refusal] = []
        self.parents = facts.parents
        self.class_depth = 0
        self.blocked = config.blocked_functions | config.blocked_attributes
        self.bindings: dict[str, list[Position]] = {}  # where the code binds each name
        self.refused_imports: set[tuple[int, str]] = set()  # (id of the import, local name)
        self.aliases: dict[int, tuple[str, bool] | None] = {}  # id of a binding -> its module path

    def check(self, tree: ast.AST) -> list[Refusal]:
        for name, position, binder in binding_sites(tree, self.parents):
            self.bindings.setdefault(name, []).append(position)
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
        judged = _judged_as(module)
        if judged is not None:
            return self.module_refusal(judged[0])
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
        judged = _judged_as(module)
        if judged is None:
            self.refuse(node, rule, f"Importing module '{module}' is not allowed.", hint, module)
        else:  # the subject is the module it is judged as: allowing that one allows this one
            self.refuse(
                node, rule, f"Importing module '{module}' is not allowed: {judged[1]}.", hint, judged[0]
            )
        return False

    def blocked_path(self, resolved: Resolved) -> str | None:
        """The blocked name `resolved` is (as written or as reached), if any."""
        for name in (resolved.canonical, resolved.path):
            if any(fnmatch.fnmatchcase(name, pattern) for pattern in self.blocked):
                return name
        return None

    def judge_path(self, node: ast.AST, resolved: Resolved) -> bool:
        """Refuse a blocked function or a module the path reaches that may not be imported. True if
        refused."""
        blocked = self.blocked_path(resolved)
        if blocked is not None:
            self.refuse_function(node, blocked)
            return True
        judged = _judged_as(resolved.canonical) or _judged_as(resolved.path)
        if judged is not None and (refused := self.module_refusal(judged[0])) is not None:
            rule, hint = refused
            self.refuse(node, rule, f"'{resolved.path}' is not allowed: {judged[1]}.", hint, judged[0])
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
            if not self.check_module(node, alias.name):
                self.refused_imports.add((id(node), alias.asname or alias.name.split(".")[0]))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        locals_ = [alias.asname or alias.name for alias in node.names]
        if node.level:  # relative imports have no meaning in a notebook cell
            self.refuse(node, Rule.RELATIVE_IMPORT, "Relative imports are not allowed in notebook code.")
            self.refused_imports.update((id(node), local) for local in locals_)
            return
        module = node.module or ""
        if not self.check_module(node, module):
            self.refused_imports.update((id(node), local) for local in locals_)
            return
        for alias in node.names:
            if alias.name == "*":
                self.star_import(node, module)
                continue
            resolved = resolve_path(f"{module}.{alias.name}", known_module=False)
            if self.judge_path(node, resolved):
                self.refused_imports.add((id(node), alias.asname or alias.name))

    # -- what names hold (the analysis's bindings, judged by verification's rules) -----------------

    def binding_alias(self, binding: Binding) -> tuple[str, bool] | None:
        """The module path a binding gives its name and whether that is a module: an import that
        was not refused, or `name = chain` on such a name; None for any other binding."""
        key = id(binding)
        if key not in self.aliases:
            self.aliases[key] = None  # a name bound to itself (`x = x`) holds nothing new
            self.aliases[key] = self._binding_alias(binding)
        return self.aliases[key]

    def _binding_alias(self, binding: Binding) -> tuple[str, bool] | None:
        if binding.kind in (IMPORT, FROM_IMPORT):
            if binding.module is None or (id(binding.node), binding.name) in self.refused_imports:
                return None
            if binding.kind == IMPORT:
                return binding.module, True
            return binding.module, resolve_path(binding.module, known_module=False).is_module
        value = binding.value
        if binding.kind != ASSIGN or not isinstance(value, ast.Name | ast.Attribute):
            return None
        if isinstance(value, ast.Name):
            return self.alias(value)
        resolved = self.resolve(value)
        return (resolved.path, resolved.is_module) if resolved is not None else None

    def alias(self, node: ast.Name) -> tuple[str, bool] | None:
        """The module path the name `node` reads may hold, and whether it is a module itself (of the
        bindings that may reach it, the latest that holds one); None when it holds none."""
        reaching = self.facts.reaching(node)
        for binding in reversed(reaching):
            found = self.binding_alias(binding)
            if found is not None:
                return found
        if self.outer is not None and self.facts.may_be_free(node):
            return self.outer.alias(node.id)
        return None

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
        here = start_of(node)
        if any(position <= here for position in self.bindings.get(name, ())):
            return True
        return self.outer is not None and self.outer.binds(name)

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
        elif (alias := self.alias(node)) is not None:
            resolved = resolve_path(*alias)
            if not self.judge_path(node, resolved):
                self.judge_module_value(node, resolved)
                self.judge_importer_value(node, resolved)
        elif name == "get_ipython":
            self.refuse(node, Rule.IPYTHON_SHELL, _SHELL_REFUSED, "Write plain Python.", name)
        elif (name in _UNBINDABLE or not self.bound_before(name, node)) and any(
            fnmatch.fnmatchcase(name, pattern) for pattern in self.blocked
        ):
            self.refuse_function(node, name)

    def judge_module_value(self, node: ast.expr, resolved: Resolved) -> None:
        if resolved.is_module and not self.plain_module_use(node):
            self.refuse(
                node,
                Rule.MODULE_AS_VALUE,
                f"The module '{resolved.canonical}' is used as a value here: verification cannot follow it.",
                "Call what you need on the module directly (module.function(...)).",
                resolved.canonical,
            )

    def judge_importer_value(self, node: ast.expr, resolved: Resolved) -> None:
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

    def resolve(self, node: ast.expr) -> Resolved | None:
        """What an attribute chain on an alias refers to (`np.linalg.x` -> numpy.linalg.x); None for
        chains on anything else."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        alias = self.alias(node) if isinstance(node, ast.Name) else None
        if alias is None:
            return None
        path = ".".join([alias[0], *reversed(parts)])
        return resolve_path(path, not parts and alias[1])

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
        body = magic_body(node)
        if body is not None and body.text.strip():
            offset = self.line_offset + body.line_offset
            self.refusals.extend(check_code(body.text, self.config, offset, _Outer(self, node)))
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


def check_code(
    code: str, config: VerificationConfig, line_offset: int = 0, outer: _Outer | None = None
) -> list[Refusal]:
    """The refusals for `code` (IPython syntax allowed), lines counted from `line_offset` + 1.
    `outer`: the code a magic runs this body in."""
    from IPython.core.inputtransformer2 import TransformerManager  # lazy: IPython (~45 ms, 100 modules)

    lines = code.splitlines()
    try:
        python = TransformerManager().transform_cell(code)
        tree = ast.parse(python)
    except SyntaxError as exc:
        lineno = exc.lineno or 1
        shown = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
        return [Refusal(Rule.SYNTAX, lineno + line_offset, shown, f"Syntax error: {exc.msg}.")]
    return CodeChecker(config, lines, line_offset, analyse(tree), outer).check(tree)
