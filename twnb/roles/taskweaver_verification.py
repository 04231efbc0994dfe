"""TaskWeaver's own code verification, as a rule set of its own, for cases that ask for it.

twnb's verification (verification.py, code_checker.py) is its guard and is never replaced. A TaskWeaver
evaluation case with `code_interpreter.code_verification_on: true` expects TaskWeaver's verdicts as
well: its `allowed_modules` (an import of anything else is refused, `os` included) and its
`blocked_functions` (`open`, `eval`, ... called under that name, as a function or a method). Those
rules are stricter than twnb's in places (twnb lets analysis code import `os` and open files) and
looser in others, so they run after twnb's and add their refusals: code runs only when both pass.

The verdicts are TaskWeaver's (`taskweaver/code_interpreter/code_verification.py`, whose unit tests are
the reference): the same checks, in the same order, with the same words. The facts, in short:

- Lines that are blank or start with `#` are dropped. `%x` and `!x` lines are magics unless they hold
  `pip install` or `conda install` (then let through); a `%%cell` magic makes the rest of the code
  magic too. Any magic is one refusal naming them all. The rest is parsed as Python; a syntax error is
  the only verdict then.
- Calls: the name is the called name (`f()`) or attribute (`x.f()`); `d["k"]()` and other shapes are
  refused, a call of a call (`f()()`) is not judged itself. With an allow-list of functions, only those
  are allowed (an empty list: none); with a block-list, those are refused. Whatever the lists,
  `getattr`, `setattr`, `delattr`, `vars`, `globals`, `locals` and the dunders below are refused.
- Imports: the top-level package (`a.b` -> `a`) against the allowed (or blocked) modules; an empty
  allow-list allows nothing. Relative imports (`from . import x`) are not judged.
- Attributes and constant subscripts naming one of the dangerous names, and constant subscripts
  starting with `__`, are refused. With `allowed_variables`, assigning any other name is refused.
- Line numbers count the kept lines (without blanks, comments and magics), as TaskWeaver's do.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from twnb.roles.refusal import Refusal, Rule

__all__ = [
    "TASKWEAVER_ALLOWED_MODULES",
    "TASKWEAVER_BLOCKED_FUNCTIONS",
    "TaskWeaverRules",
    "taskweaver_errors",
    "taskweaver_refusals",
]

# TaskWeaver's defaults for `code_interpreter.allowed_modules` and `code_interpreter.blocked_functions`.
TASKWEAVER_ALLOWED_MODULES: tuple[str, ...] = (
    "pandas",
    "matplotlib",
    "numpy",
    "sklearn",
    "scipy",
    "seaborn",
    "datetime",
    "typing",
)
TASKWEAVER_BLOCKED_FUNCTIONS: tuple[str, ...] = (
    "eval",
    "exec",
    "execfile",
    "compile",
    "open",
    "input",
    "raw_input",
    "reload",
    "__import__",
    "getattr",
    "setattr",
    "delattr",
    "vars",
    "globals",
    "locals",
    "__getattribute__",
    "__setattr__",
    "__delattr__",
)

# Refused as calls, attributes and constant subscripts whatever the lists say (TaskWeaver's
# DANGEROUS_BUILTINS).
DANGEROUS_NAMES = frozenset(
    {
        "getattr",
        "setattr",
        "delattr",
        "vars",
        "globals",
        "locals",
        "__getattribute__",
        "__setattr__",
        "__delattr__",
        "__dict__",
        "__class__",
        "__bases__",
        "__subclasses__",
        "__mro__",
        "__builtins__",
    }
)

_LINE_MAGIC = re.compile(r"^\s*%\s*[a-zA-Z_]\w*")
_CELL_MAGIC = re.compile(r"^\s*%%\s*[a-zA-Z_]\w*")
_SHELL = re.compile(r"^\s*!")
_INSTALLS = ("pip install", "conda install")
RULES_HINT = "TaskWeaver's verification (code_verification_on) refuses this; write it without."


@dataclass(frozen=True)
class TaskWeaverRules:
    """TaskWeaver's verification settings. `None` is "no such list" (nothing checked by it); an empty
    allow-list allows nothing. An allow-list and a block-list of the same kind cannot go together.
    TaskWeaver's CodeInterpreter passes only `allowed_modules` and `blocked_functions`."""

    allowed_modules: tuple[str, ...] | None = TASKWEAVER_ALLOWED_MODULES
    blocked_functions: tuple[str, ...] | None = TASKWEAVER_BLOCKED_FUNCTIONS
    blocked_modules: tuple[str, ...] | None = None
    allowed_functions: tuple[str, ...] | None = None
    allowed_variables: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.allowed_modules is not None and self.blocked_modules is not None:
            raise ValueError("Only one of allowed_modules or blocked_modules can be set.")
        if self.allowed_functions is not None and self.blocked_functions is not None:
            raise ValueError("Only one of allowed_functions or blocked_functions can be set.")

    def describe(self) -> str:
        """The rules for the CodeInterpreter's instructions, as TaskWeaver's prompt states them."""
        lines = []
        if self.allowed_modules is not None:
            modules = ", ".join(self.allowed_modules) or "none"
            lines.append(f"- Import only these modules: {modules}.")
        if self.blocked_functions:
            lines.append(f"- Never call these functions: {', '.join(self.blocked_functions)}.")
        lines.append("- No magic commands or shell commands except package installs.")
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class _Finding:
    line: int  # 1-based, among the kept lines
    text: str  # what follows "=>" in TaskWeaver's message, with its spacing


def taskweaver_errors(code: str, rules: TaskWeaverRules | None = None) -> list[str]:
    """TaskWeaver's error strings for `code` under `rules` (its defaults when None); [] when it passes."""
    rules = rules or TaskWeaverRules()
    magics, kept = _split(code)
    errors = []
    if magics:
        errors.append(f"Magic commands except package install are not allowed. Details: {magics}")
    lines = [text for _, text in kept]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError as error:
        return [f"Syntax error: {error}"]
    errors += [f"Error on line {f.line}: {lines[f.line - 1]} =>{f.text}" for f in _findings(tree, rules)]
    return errors


def taskweaver_refusals(code: str, rules: TaskWeaverRules | None = None) -> list[Refusal]:
    """The same verdicts as Refusals, each naming its line in `code` as written."""
    rules = rules or TaskWeaverRules()
    magics, kept = _split(code)
    refusals = []
    if magics:
        first = next(number for number, text in enumerate(code.splitlines(), 1) if text in magics)
        refusals.append(
            Refusal(Rule.TASKWEAVER, first, magics[0].strip(),
                    "Magic commands except package install are not allowed.", RULES_HINT, magics[0].strip())
        )  # fmt: skip
    try:
        tree = ast.parse("\n".join(text for _, text in kept))
    except SyntaxError as error:
        at = kept[error.lineno - 1] if error.lineno and error.lineno <= len(kept) else (1, "")
        return [Refusal(Rule.TASKWEAVER, at[0], at[1].strip(), f"Syntax error: {error}")]
    for finding in _findings(tree, rules):
        number, text = kept[finding.line - 1]
        refusals.append(Refusal(Rule.TASKWEAVER, number, text.strip(), finding.text.strip(), RULES_HINT))
    return refusals


def _split(code: str) -> tuple[list[str], list[tuple[int, str]]]:
    """The magic lines, and the Python lines kept with their numbers in `code` (TaskWeaver's split)."""
    magics: list[str] = []
    kept: list[tuple[int, str]] = []
    in_cell_magic = False
    for number, line in enumerate(code.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if in_cell_magic:
            magics.append(line)
        elif _LINE_MAGIC.match(line) or _SHELL.match(line):
            if not any(install in line for install in _INSTALLS):
                magics.append(line)
        elif _CELL_MAGIC.match(line):
            in_cell_magic = True
            magics.append(line)
        else:
            kept.append((number, line))
    return magics, kept


def _findings(tree: ast.AST, rules: TaskWeaverRules) -> list[_Finding]:
    walker = _Walker(rules)
    walker.visit(tree)
    return walker.findings


def _permits(name: str, allowed: Sequence[str] | None, blocked: Sequence[str] | None) -> bool:
    if allowed is not None:
        return name in allowed
    if blocked is not None:
        return name not in blocked
    return True


class _Walker(ast.NodeVisitor):
    """Judges each node before its children, in the order `ast.NodeVisitor` visits them."""

    def __init__(self, rules: TaskWeaverRules) -> None:
        self.rules = rules
        self.findings: list[_Finding] = []

    def _refuse(self, node: ast.expr | ast.stmt, text: str) -> None:
        self.findings.append(_Finding(node.lineno, text))

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name):
            name = func.id
        elif isinstance(func, ast.Attribute):
            name = func.attr
        else:
            if isinstance(func, ast.Subscript):
                self._refuse(node, " Subscript-based function calls are not allowed for security reasons.")
            elif not isinstance(func, ast.Call):
                self._refuse(node, " Unrecognized function call pattern is not allowed for security reasons.")
            self.generic_visit(node)
            return
        rules = self.rules
        if (rules.allowed_functions is not None or rules.blocked_functions is not None) and not _permits(
            name, rules.allowed_functions, rules.blocked_functions
        ):
            self._refuse(node, f" Function '{name}' is not allowed.")
        if name in DANGEROUS_NAMES:
            self._refuse(node, f" Function '{name}' is blocked as it can be used to bypass security checks.")
        self.generic_visit(node)

    def _module_allowed(self, module: str) -> bool:
        return _permits(module, self.rules.allowed_modules, self.rules.blocked_modules)

    def _judges_modules(self) -> bool:
        return self.rules.allowed_modules is not None or self.rules.blocked_modules is not None

    def visit_Import(self, node: ast.Import) -> None:
        if self._judges_modules():
            for alias in node.names:
                module = alias.name.split(".")[0]
                if not self._module_allowed(module):
                    self._refuse(node, f" Importing module '{module}' is not allowed. ")
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if self._judges_modules() and node.module:
            module = node.module.split(".")[0]
            if not self._module_allowed(module):
                self._refuse(node, f"  Importing from module '{node.module}' is not allowed.")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        allowed = self.rules.allowed_variables
        if allowed is not None:
            for target in node.targets:
                names = [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
                for name in names:
                    if name not in allowed:
                        self._refuse(node, f" Assigning to {name} is not allowed.")
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        key = node.slice
        name = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
        if name is not None and (name in DANGEROUS_NAMES or name.startswith("__")):
            self._refuse(node, f" Subscript access to '{name}' is blocked for security reasons.")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in DANGEROUS_NAMES:
            self._refuse(node, f" Attribute access to '{node.attr}' is blocked for security reasons.")
        self.generic_visit(node)
