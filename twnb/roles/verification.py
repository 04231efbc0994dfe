"""Static checks on generated code before it runs on the user's kernel.

Verification guards against *mistakes*, not attacks. The code runs in the user's own process, with the
user's rights, beside their data: a model that calls `exit()` kills the notebook's kernel, `!rm` or
`shutil.rmtree` deletes real files, `%pip install` changes the environment under a running session. These
checks catch such slips before anything runs and tell the model what to do instead. They do not make the
code safe to run: Python has too many doors (attribute tricks, C extensions, pickles, file writes) for an
AST check to close them all, so never run a model you do not trust on data you cannot lose.

What it cannot see (by design, kept cheap): calls on objects the code computes (`Path(p).unlink()`,
`[os][0].system(...)`, a method of a returned object), names bound other than by import or a plain
`x = module` assignment, and whatever the libraries the code calls do in turn. Removing single files
(`os.remove`, `Path.unlink`) is allowed on purpose: analysis code replaces its own outputs. Whole trees
(`shutil.rmtree`), processes and the kernel itself are what the default rules protect.

How: IPython's `transform_cell` first turns `%magic`, `!shell` and `%%cell` syntax into plain Python
(`get_ipython().run_line_magic(...)`, `.system(...)`), which `ast.parse` can read; then one walk over the
tree checks imports, calls, names, attribute and subscript access. `transform_cell` keeps one line per
line, so every error names the line of the code the model wrote.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from dataclasses import dataclass, field

# Modules suited to data analysis. A dotted import is judged by its top-level package.
DEFAULT_ALLOWED_MODULES: frozenset[str] = frozenset(
    {
        "pandas",
        "numpy",
        "matplotlib",
        "seaborn",
        "scipy",
        "sklearn",
        "statsmodels",
        "plotly",
        "math",
        "cmath",
        "statistics",
        "decimal",
        "fractions",
        "numbers",
        "random",
        "datetime",
        "time",
        "calendar",
        "zoneinfo",
        "dateutil",
        "pytz",
        "json",
        "csv",
        "re",
        "string",
        "textwrap",
        "unicodedata",
        "difflib",
        "pprint",
        "collections",
        "itertools",
        "functools",
        "operator",
        "heapq",
        "bisect",
        "array",
        "dataclasses",
        "enum",
        "typing",
        "copy",
        "warnings",
        "pathlib",
        "os",
        "io",
        "glob",
        "fnmatch",
        "shutil",
        "gzip",
        "zipfile",
        "bz2",
        "lzma",
        "tarfile",
        "base64",
        "hashlib",
        "uuid",
        "urllib",
        "html",
        "xml",
        "sqlite3",
        "pyarrow",
        "openpyxl",
        "xlrd",
        "tabulate",
        "tqdm",
        "PIL",
        "IPython",
    }
)

# Refused even when `allowed_modules` is None (any module allowed).
DEFAULT_BLOCKED_MODULES: frozenset[str] = frozenset(
    {"subprocess", "ctypes", "multiprocessing", "pty", "signal", "socket", "builtins", "importlib"}
)

# Builtins that reach code or names by string, so they could bypass these very checks (TaskWeaver's
# dangerous builtins).
BYPASS_FUNCTIONS: frozenset[str] = frozenset(
    {
        "eval",
        "exec",
        "execfile",
        "compile",
        "__import__",
        "getattr",
        "setattr",
        "delattr",
        "globals",
        "locals",
        "vars",
        "reload",
    }
)

# The bypassing builtins, ones that end or hang the user's kernel, and process or file-tree killers.
# Bare names match the builtin; dotted names match the module attribute however it was imported; `*`
# matches anything below.
DEFAULT_BLOCKED_FUNCTIONS: frozenset[str] = BYPASS_FUNCTIONS | frozenset(
    {
        "exit",
        "quit",
        "input",
        "breakpoint",
        "os._exit",
        "os.kill",
        "os.killpg",
        "os.abort",
        "os.fork",
        "os.forkpty",
        "os.system",
        "os.popen",
        "os.exec*",
        "os.spawn*",
        "os.posix_spawn*",
        "sys.exit",
        "shutil.rmtree",
        "subprocess.*",
    }
)

# Dunder attributes that read metadata harmlessly; every other `__x__` attribute is refused because
# that is the road to `__class__.__subclasses__()` and `__globals__`.
DEFAULT_ALLOWED_DUNDERS: frozenset[str] = frozenset({"__version__", "__name__", "__doc__", "__init__"})

# Line magics that cannot change the environment. `time`/`timeit` bodies are verified as Python.
DEFAULT_ALLOWED_LINE_MAGICS: frozenset[str] = frozenset(
    {"time", "timeit", "matplotlib", "precision", "who", "whos", "who_ls", "pwd", "pinfo", "pinfo2", "pdoc"}
)
DEFAULT_ALLOWED_CELL_MAGICS: frozenset[str] = frozenset({"time", "timeit", "capture"})

# Magic names whose argument (line) or body (cell) is Python that must pass the same checks.
_PYTHON_BODY_MAGICS = frozenset({"time", "timeit", "capture"})
_INSTALL_MAGICS = frozenset({"pip", "conda", "mamba", "micromamba"})
_SHELL_MAGICS = frozenset({"sx", "system", "bash", "sh", "script", "perl", "ruby", "powershell", "cmd"})
# Names that give direct access to the interpreter's machinery.
_BLOCKED_NAMES = frozenset({"__builtins__", "__loader__", "__spec__"})
_TIMEIT_OPTIONS = re.compile(r"^\s*(?:-(?:[nrp]\s*\S+|[qoc]|t)\s+)*")


@dataclass(frozen=True)
class VerificationConfig:
    """What verification allows. Every list is configurable; `None` for `allowed_modules` means any
    module not in `blocked_modules`. `allow_shell` lets `!cmd` and `%pip` through (step mode sets it
    for code the user approved by hand)."""

    enabled: bool = True
    allowed_modules: frozenset[str] | None = DEFAULT_ALLOWED_MODULES
    blocked_modules: frozenset[str] = DEFAULT_BLOCKED_MODULES
    blocked_functions: frozenset[str] = DEFAULT_BLOCKED_FUNCTIONS
    allowed_dunders: frozenset[str] = DEFAULT_ALLOWED_DUNDERS
    allowed_line_magics: frozenset[str] = DEFAULT_ALLOWED_LINE_MAGICS
    allowed_cell_magics: frozenset[str] = DEFAULT_ALLOWED_CELL_MAGICS
    allow_shell: bool = False

    def describe(self) -> str:
        """The rules in a few lines, for the CodeInterpreter's system prompt (stable text: sorted)."""
        if not self.enabled:
            return ""
        modules = "any module" if self.allowed_modules is None else ", ".join(sorted(self.allowed_modules))
        blocked = ", ".join(sorted(self.blocked_functions))
        return (
            f"- Allowed imports: {modules}.\n"
            f"- Never call: {blocked}.\n"
            "- No dunder attributes (such as __class__ or __dict__) except __version__, __name__, __doc__.\n"
            "- No shell escapes (!cmd), no %pip or %conda installs: if a package is missing, say so.\n"
        )


@dataclass
class _Scope:
    """Import aliases seen so far: local name -> dotted module path."""

    aliases: dict[str, str] = field(default_factory=dict)
    # Names the code binds itself (`input = "data.csv"`): those are not the builtins of the same name.
    bound: set[str] = field(default_factory=set)


class _Checker(ast.NodeVisitor):
    def __init__(self, config: VerificationConfig, lines: list[str], line_offset: int) -> None:
        self.config = config
        self.lines = lines
        self.line_offset = line_offset
        self.scope = _Scope()
        self.errors: list[str] = []

    # -- reporting -------------------------------------------------------------------------------

    def error(self, node: ast.AST, text: str) -> None:
        lineno = getattr(node, "lineno", 1)
        shown = self.lines[lineno - 1].strip() if 0 < lineno <= len(self.lines) else ""
        self.errors.append(f"Line {lineno + self.line_offset}: {shown} -> {text}")

    # -- imports ---------------------------------------------------------------------------------

    def check_module(self, node: ast.AST, module: str) -> bool:
        top = module.split(".")[0]
        if top in self.config.blocked_modules or (
            self.config.allowed_modules is not None and top not in self.config.allowed_modules
        ):
            self.error(
                node,
                _REFUSED_IMPORT.format(module=module)
                + " Use the modules suited to data analysis listed in your instructions.",
            )
            return False
        return True

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if self.check_module(node, alias.name):
                if alias.asname:
                    self.scope.aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    self.scope.aliases[top] = top

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:  # relative imports have no meaning in a notebook cell
            self.error(node, "Relative imports are not allowed in notebook code.")
            return
        module = node.module or ""
        if not self.check_module(node, module):
            return
        for alias in node.names:
            dotted = f"{module}.{alias.name}"
            if alias.name != "*" and self.blocked_function(dotted):
                self.error(node, f"Function '{dotted}' is blocked: {self.why(dotted)}")
                continue
            if alias.name != "*":
                self.scope.aliases[alias.asname or alias.name] = dotted

    # -- names, calls, attributes ------------------------------------------------------------------

    def blocked_function(self, dotted: str) -> bool:
        return any(fnmatch.fnmatchcase(dotted, pattern) for pattern in self.config.blocked_functions)

    @staticmethod
    def why(name: str) -> str:
        leaf = name.rsplit(".", 1)[-1]
        if leaf in {"exit", "quit", "_exit", "kill", "killpg", "abort"}:
            return "it would stop the user's kernel. End your code normally instead."
        if leaf in {"input", "breakpoint"}:
            return "it would wait for keyboard input that never comes."
        if leaf in BYPASS_FUNCTIONS:
            return "it can be used to bypass these checks. Write the code out directly."
        return "it can damage the user's files or processes. Explain in text what you need instead."

    def resolve(self, node: ast.expr) -> str | None:
        """The dotted name an expression refers to, through import aliases (`np.linalg.x` -> numpy...)."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        root = self.scope.aliases.get(node.id)
        if root is None:
            return None if parts else node.id
        return ".".join([root, *reversed(parts)])

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            if node.id in _BLOCKED_NAMES:
                self.error(node, f"Access to '{node.id}' is blocked: it can be used to bypass these checks.")
            elif (
                node.id not in self.scope.aliases
                and node.id not in self.scope.bound
                and self.blocked_function(node.id)
            ):
                self.error(node, f"Function '{node.id}' is blocked: {self.why(node.id)}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        if attr.startswith("__") and attr.endswith("__") and attr not in self.config.allowed_dunders:
            self.error(
                node,
                f"Attribute access to '{attr}' is blocked: dunder attributes can be used to "
                "bypass these checks.",
            )
            return
        dotted = self.resolve(node)
        if dotted is not None and "." in dotted and self.blocked_function(dotted):
            self.error(node, f"Function '{dotted}' is blocked: {self.why(dotted)}")
            return
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        """`x = os` (or `p = os.path`) makes `x` another name for that module: `x.system(...)` is then
        judged as `os.system(...)`. Only plain names are followed; see the module docstring."""
        self.generic_visit(node)
        root = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if not (isinstance(root, ast.Name) and root.id in self.scope.aliases):
            return
        dotted = self.resolve(node.value)
        if dotted is None:
            return
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.scope.aliases[target.id] = dotted

    def visit_Subscript(self, node: ast.Subscript) -> None:
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.startswith("__"):
            self.error(
                node, f"Subscript access to '{key.value}' is blocked: it can be used to bypass these checks."
            )
            return
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if self.ipython_call(node):
            return
        self.generic_visit(node)

    # -- IPython syntax (after transform_cell) -----------------------------------------------------

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
                self.error(node, "Calling get_ipython() directly is not allowed; write plain Python.")
                return True
            return False
        method = func.attr
        args = [
            a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args
        ]
        if method in {"system", "getoutput"}:
            if not self.config.allow_shell:
                command = args[0] if args else ""
                installs = bool(command) and command.split()[0] in {"pip", "pip3", "conda"}
                what = "Installing packages (!pip)" if installs else "A shell escape (!cmd)"
                self.error(
                    node,
                    f"{what} is refused: the code runs in the user's own environment. "
                    "Use Python, or tell the user in text what to run.",
                )
            return True
        if method not in {"run_line_magic", "run_cell_magic"} or not args or args[0] is None:
            self.error(node, f"get_ipython().{method}(...) is not allowed; write plain Python.")
            return True
        name = args[0]
        cell = method == "run_cell_magic"
        allowed = self.config.allowed_cell_magics if cell else self.config.allowed_line_magics
        prefix = "%%" if cell else "%"
        if name in _INSTALL_MAGICS or name in _SHELL_MAGICS:
            if not self.config.allow_shell:
                what = "Installing packages" if name in _INSTALL_MAGICS else "A shell command"
                self.error(
                    node,
                    f"{what} ({prefix}{name}) is refused: the code runs in the user's own "
                    "environment. Tell the user in text what to run.",
                )
            return True
        if name not in allowed:
            self.error(
                node,
                f"The magic {prefix}{name} is not allowed. Allowed: "
                + ", ".join(prefix + m for m in sorted(allowed))
                + ".",
            )
            return True
        if name in _PYTHON_BODY_MAGICS:
            body = args[-1] if cell else _TIMEIT_OPTIONS.sub("", args[1] or "") if len(args) > 1 else ""
            if body and body.strip():
                offset = self.line_offset + (node.lineno if cell else node.lineno - 1)
                self.errors.extend(_verify(body, self.config, offset, self.scope))
        return True


def _bound_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def _verify(
    code: str, config: VerificationConfig, line_offset: int, scope: _Scope | None = None
) -> list[str]:
    from IPython.core.inputtransformer2 import TransformerManager  # lazy: IPython is heavy to import

    lines = code.splitlines()
    try:
        python = TransformerManager().transform_cell(code)
        tree = ast.parse(python)
    except SyntaxError as exc:
        lineno = exc.lineno or 1
        shown = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
        return [f"Line {lineno + line_offset}: {shown} -> Syntax error: {exc.msg}."]
    checker = _Checker(config, lines, line_offset)
    if scope is not None:
        checker.scope = scope
    checker.scope.bound |= _bound_names(tree)
    checker.visit(tree)
    return checker.errors


_REFUSED_IMPORT = "Importing module '{module}' is not allowed."
_REFUSED_IMPORT_PATTERN = re.compile(re.escape(_REFUSED_IMPORT).replace(r"\{module\}", r"([\w.]+)"))


def allowable_modules(errors: list[str], config: VerificationConfig) -> list[str]:
    """The top-level modules `errors` (from `verify_code`) refused only for not being on the allow-list
    (a blocked module stays refused whatever is allowed), in order, once each."""
    found = [m.group(1).split(".")[0] for e in errors for m in _REFUSED_IMPORT_PATTERN.finditer(e)]
    return [m for m in dict.fromkeys(found) if m not in config.blocked_modules]


def verify_code(code: str, config: VerificationConfig | None = None) -> list[str] | None:
    """Check `code` against `config`. None when verification is off; else the errors, each naming its
    line (an empty list means the code passed)."""
    config = config or VerificationConfig()
    if not config.enabled:
        return None
    return _verify(code, config, 0)
