"""What a piece of code would do outside its own variables, read from the code before it runs: the files
it writes, moves and deletes (with the paths it names), the working folder, the environment, the
network. risk_grades.py turns these into the grades step mode's risky mode pauses on.

Like verification it judges what a name refers to, not how it is spelled: the names are resolved by
the one analysis of code (twnb/analysis: import aliases, modules and their parts bound to names, loop
variables and parameters), and so are paths built from constants (`Path("out") / "a.csv"`,
`os.path.join(...)`, f-strings, a name the code or the namespace binds to a path). These are rules
over that reading. A path it cannot tell is reported as unknown (`path` None), never as safe. Evasions
verification already refuses (`exec`, `__import__`, `getattr` with a computed name, and as verification
does, a module passed around as a value, `__dict__`, a star import of a module judged here) are
reported as what it cannot follow.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from twnb.analysis import (
    ARCHIVES,
    IMPORT,
    NOT_A_PATH,
    OPENERS,
    UNKNOWN,
    CodeFacts,
    PathGuess,
    PathReader,
    analyse,
    magic_body,
    resolve_path,
)
from twnb.analysis import leaf as _leaf
from twnb.kernel import DATABASE_MODULES, QUERY_METHODS, call_reads_database, statement_of
from twnb.roles.verification_policy import CHAIN_RULES

# The kinds of effects.
WRITE, CREATE, MAYBE_WRITE, DELETE = "write", "create", "maybe_write", "delete"
WORKING_FOLDER, ENVIRONMENT, NETWORK = "working_folder", "environment", "network"
UNFOLLOWED = "unfollowed"
DATABASE = "database"  # a database the namespace is connected to, changed through the connection
# Builtins that reach names, attributes or code by string: what the code does through them cannot be
# read from it (verification refuses them by default; with verification off they pause).
UNFOLLOWABLE = frozenset({"exec", "eval", "compile", "globals", "locals", "vars", "__import__"})
# Attributes that reach an object's names by string (`shutil.__dict__["rmtree"]`), as `vars` does.
UNFOLLOWABLE_ATTRIBUTES = frozenset({"__dict__", "__globals__", "__builtins__", "__getattribute__"})

# Methods that write a file at their first argument (or one of PATH_KEYWORDS). Those that return
# text when given no path (`to_csv()`) write nothing then.
WRITER_METHODS = frozenset(
    {
        "to_csv",
        "to_excel",
        "to_parquet",
        "to_json",
        "to_pickle",
        "to_feather",
        "to_hdf",
        "to_html",
        "to_latex",
        "to_markdown",
        "to_stata",
        "to_xml",
        "to_string",
        "to_orc",
        "to_netcdf",
        "to_zarr",
        "write_csv",
        "write_parquet",
        "write_json",
        "write_ndjson",
        "write_ipc",
        "write_excel",
        "write_avro",
        "write_delta",
        "sink_parquet",
        "sink_csv",
        "sink_ipc",
        "sink_ndjson",
        "savefig",
        "tofile",
        "write_image",
        "write_html",
        "savetxt",
        "savez",
        "savez_compressed",
        "ExcelWriter",
        "HDFStore",
    }
)
# Writers whose file is the first or the second argument (`np.save(file, arr)`, `img.save(path)`,
# `torch.save(obj, path)`, `joblib.dump(value, filename)`, `pq.write_table(table, where)`).
EITHER_ARGUMENT_WRITERS = frozenset({"save", "dump", "write_table", "write_dataset", "write_feather"})
PATH_KEYWORDS = frozenset(
    {"path", "path_or_buf", "buf", "excel_writer", "fname", "file", "filename", "where", "fp", "target"}
)
# os.open's flags that only read (judged by name: `os.O_RDONLY | os.O_CLOEXEC`); any other flag, a
# number or a name holding flags may write.
READ_FLAGS = frozenset(
    {"O_RDONLY", "O_CLOEXEC", "O_NOFOLLOW", "O_DIRECTORY", "O_NONBLOCK", "O_NOCTTY", "O_NOATIME", "O_BINARY"}
)
# Calls that write the file their second argument names (`os.symlink(src, dst)`); a write through that
# name later writes the file the first names.
LINKERS = frozenset({"os.symlink", "os.link"})
# numpy's memory maps: opened for writing unless their mode says read or copy-on-write (the default,
# "r+", writes the file in place).
MEMMAPS = {"memmap": 2, "open_memmap": 1}  # name -> position of `mode`
READ_MAP_MODES = frozenset({"r", "c", "readonly", "copyonwrite"})
# Imports by a computed name: what the imported module then does cannot be read.
DYNAMIC_IMPORTS = frozenset(
    {"importlib.import_module", "importlib.__import__", "runpy.run_module", "runpy.run_path"}
)
DATABASES = frozenset({"sqlite3.connect", "duckdb.connect", "dbm.open"})
MOVERS = frozenset({"shutil.move", "os.rename", "os.replace", "os.renames"})
COPIERS = frozenset({"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree"})
DELETERS = frozenset({"os.remove", "os.unlink", "os.rmdir", "os.removedirs", "shutil.rmtree"})
MAKERS = frozenset({"os.mkdir", "os.makedirs"})
CHDIR = frozenset({"os.chdir", "os.fchdir", "contextlib.chdir"})
ENVIRONMENT_CALLS = frozenset(
    {
        "os.putenv",
        "os.unsetenv",
        "os.umask",
        "sys.setrecursionlimit",
        "sys.setswitchinterval",
        "locale.setlocale",
    }
)
# The functions judged here by their dotted names.
_JUDGED_FUNCTIONS = LINKERS | DATABASES | MOVERS | COPIERS | DELETERS | MAKERS | CHDIR | ENVIRONMENT_CALLS
# Parts of a process's environment the code may not change in place.
ENVIRONMENT_OBJECTS = frozenset({"os.environ", "sys.path", "sys.meta_path", "sys.path_hooks"})
NETWORK_MODULES = frozenset(
    {
        "socket",
        "ssl",
        "requests",
        "httpx",
        "urllib.request",
        "urllib3",
        "http.client",
        "aiohttp",
        "ftplib",
        "smtplib",
        "telnetlib",
        "poplib",
        "imaplib",
        "nntplib",
        "xmlrpc.client",
        "websocket",
        "websockets",
        "paramiko",
        "boto3",
        "botocore",
        "yfinance",
        "pandas_datareader",
        "kaggle",
        "huggingface_hub",
        "webbrowser",
    }
)
# Functions that download by themselves (seaborn's example data, scikit-learn's `fetch_*`).
DOWNLOADERS = frozenset({"urlopen", "urlretrieve", "load_dataset", "get_data_home"})
URL = re.compile(
    r"^\s*(?:https?|ftps?|s3a?|gs|gcs|az|abfss?|hdfs|wss?|postgres(?:ql)?|mysql|mssql|oracle|"
    r"mongodb(?:\+srv)?|redis|snowflake|bigquery)(?:\+\w+)?://",
    re.IGNORECASE,
)
# Calls whose text arguments are shown, not fetched: a URL there is only text.
SHOWING = frozenset({"print", "display", "Markdown", "HTML", "Latex", "info", "warning", "debug", "error"})


@dataclass(frozen=True)
class Effect:
    """One effect the code would have: `kind` (WRITE, CREATE, MAYBE_WRITE, DELETE, WORKING_FOLDER,
    ENVIRONMENT, NETWORK), the `path` it names (file effects), what it concerns (`subject`), the line and
    the line's text (`how`)."""

    kind: str
    line: int
    how: str
    path: PathGuess | None = None
    subject: str = ""


def code_effects(
    code: str, values: Mapping[str, Any] | None = None, outer: tuple[PathReader, ast.Call] | None = None
) -> list[Effect]:
    """The effects `code` would have, in code order. `values`: the namespace the code will run in (a
    name it reads as a path is judged by its value there); None when unknown. `outer`: the code and
    the call that run this code as text (`%time ...`), whose names it sees."""
    try:
        tree = ast.parse(python_of(code))
    except (SyntaxError, ValueError):
        return []  # it will not run
    walk = _EffectWalk(code.splitlines(), values, PathReader(analyse(tree), values, outer))
    walk.visit(tree)
    return walk.effects


def python_of(code: str) -> str:
    """`code` as plain Python: IPython's `%magic` and `!cmd` syntax turned into calls, one line per
    line (as verification reads it)."""
    from IPython.core.inputtransformer2 import TransformerManager  # lazy: IPython (~45 ms, 100 modules)

    try:
        return str(TransformerManager().transform_cell(code))
    except Exception:
        return code


class _EffectWalk(ast.NodeVisitor):
    def __init__(self, lines: list[str], values: Mapping[str, Any] | None, reader: PathReader) -> None:
        self.lines = lines
        self.values = values
        self.reader = reader  # what names, paths and objects the code names
        self.facts: CodeFacts = reader.facts
        self.canonical: dict[ast.AST, str | None] = {}
        self.path_of = reader.path_of
        self.is_handle = reader.is_handle
        self.is_path_object = reader.is_path_object
        self.value_binding = reader.value_binding
        self.imported = {b.module for b in self.facts.bindings if b.kind == IMPORT}  # `import x as y`: x
        self.links: dict[str, PathGuess] = {}  # a link the code made (its path) -> the file it names
        self.effects: list[Effect] = []

    # -- reporting -----------------------------------------------------------------------------------

    def shown(self, node: ast.AST) -> str:
        line = getattr(node, "lineno", 0)
        text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        return text if len(text) <= 80 else text[:79] + "…"

    def add(self, kind: str, node: ast.AST, path: PathGuess | None = None, subject: str = "") -> None:
        if kind in (WRITE, CREATE, MAYBE_WRITE) and path is not None and path.text is not None:
            linked = self.links.get(os.path.normpath(path.text))
            if linked is not None:  # a link the code made: the write lands in the file it names
                kind, path = WRITE, linked
        self.effects.append(Effect(kind, getattr(node, "lineno", 0), self.shown(node), path, subject))

    def linked(self, link: PathGuess, target: PathGuess, *, symbolic: bool) -> None:
        """The code makes `link` a name of `target` (a symlink's relative target is read from the
        link's folder)."""
        if link.text is None:
            return
        if symbolic and target.text is not None and not os.path.isabs(os.path.expanduser(target.text)):
            target = PathGuess(os.path.join(os.path.dirname(link.text), target.text))
        elif target.text is None:
            target = UNKNOWN
        self.links[os.path.normpath(link.text)] = target

    def dotted(self, node: ast.AST) -> str | None:
        """The dotted path `node` names, judged from the module a chain reaches (verification's
        rule: `tempfile._shutil.rmtree` is `shutil.rmtree`)."""
        if node not in self.canonical:
            path = self.reader.dotted(node)
            if path is not None and "." in path:
                resolved = resolve_path(path, False, CHAIN_RULES)
                path = resolved.canonical if resolved.reached is not None else path
            self.canonical[node] = path
        return self.canonical[node]

    # -- walk order ----------------------------------------------------------------------------------

    def visit_Name(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load):
            return
        if node.id in UNFOLLOWABLE:
            self.add(UNFOLLOWED, node, subject=node.id)
            return
        module = self.held_module(node)
        if module is not None and not self.plain_module_use(node):
            self.add(UNFOLLOWED, node, subject=f"the module {module} used as a value")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in UNFOLLOWABLE_ATTRIBUTES:
            self.add(UNFOLLOWED, node, subject=node.attr)
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        """`from shutil import *` brings `rmtree` in under a name no import binds (verification's
        rule: a star import of a module whose functions are judged here)."""
        module = node.module or ""
        if any(alias.name == "*" for alias in node.names) and any(
            name.startswith(module + ".") for name in _JUDGED_FUNCTIONS
        ):
            self.add(UNFOLLOWED, node, subject=f"from {module} import *")

    def held_module(self, node: ast.Name) -> str | None:
        """The module the name `node` reads holds (an import of the code or the namespace's module),
        None when it holds something else."""
        path = self.reader.dotted(node)
        if path is None:
            return None
        known = path in self.imported or ("." not in path and path in sys.modules)
        resolved = resolve_path(path, known, CHAIN_RULES)
        return resolved.canonical if resolved.is_module else None

    def plain_module_use(self, node: ast.Name) -> bool:
        """Verification's rule: a module may start an attribute chain or be the whole value of a plain
        `name = module` (outside a class body); passed around as a value (`f(shutil)`, `[os][0]`,
        `getattr(shutil, "rmtree")`), what is done through it cannot be read from the code."""
        parent = self.facts.parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            return True
        if isinstance(parent, ast.Assign) and parent.value is node:
            plain = all(isinstance(t, ast.Name) for t in parent.targets)
        elif isinstance(parent, ast.AnnAssign) and parent.value is node:
            plain = isinstance(parent.target, ast.Name)
        else:
            return False
        scope = self.facts.parents.get(parent)
        while scope is not None and not isinstance(
            scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
        ):
            scope = self.facts.parents.get(scope)
        return plain and not isinstance(scope, ast.ClassDef)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.iter)
        for statement in [*node.body, *node.orelse]:
            self.visit(statement)

    visit_AsyncFor = visit_For

    def visit_ListComp(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        """Its loops run before its element is computed (the syntax tree lists the element first)."""
        for generator in node.generators:
            self.visit(generator.iter)
            for condition in generator.ifs:
                self.visit(condition)
        for part in (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,):
            self.visit(part)

    visit_SetComp = visit_GeneratorExp = visit_DictComp = visit_ListComp

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for target in node.targets:
            self.store(target, node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
            self.store(node.target, node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        self.store(node.target, node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self.store(target, node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.store(item.optional_vars, node)
        for statement in node.body:
            self.visit(statement)

    visit_AsyncWith = visit_With

    def store(self, target: ast.AST, node: ast.AST) -> None:
        """A change of the environment when the target is a part of it (`os.environ["X"] = ...`,
        `sys.path[0] = ...`, `sys.stdout = ...`); what a name is bound to is the analysis's."""
        if isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self.store(element, node)
        elif isinstance(target, ast.Subscript | ast.Attribute):
            self.generic_visit(target)  # what the target reads (`vars(x)[k] = ...`, `d[f(x)] = ...`)
            base = target.value
            dotted = self.dotted(base)
            if dotted in ENVIRONMENT_OBJECTS:
                self.add(ENVIRONMENT, node, subject=dotted)
            elif isinstance(target, ast.Attribute) and dotted in ("sys", "os"):
                self.add(ENVIRONMENT, node, subject=f"{dotted}.{target.attr}")

    # -- calls ---------------------------------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        func = node.func
        leaf = self.facts.builtin(func) or _leaf(func)  # `g = getattr; g(...)` calls getattr
        dotted = self.dotted(func) or ""
        self.network_call(node, leaf, dotted)
        if dotted in DYNAMIC_IMPORTS:
            self.add(UNFOLLOWED, node, subject=dotted)
        if (
            leaf in ("getattr", "setattr", "delattr")
            and len(node.args) >= 2
            and _constant(node.args[1]) is None
        ):
            self.add(UNFOLLOWED, node, subject=f"{leaf} with a computed name")
        self.magic_body(node)
        if dotted in CHDIR or leaf in ("chdir", "fchdir"):
            self.add(WORKING_FOLDER, node, subject=(_constant(node.args[0]) or "") if node.args else "")
            return
        if dotted in ENVIRONMENT_CALLS:
            self.add(ENVIRONMENT, node, subject=dotted)
            return
        if isinstance(func, ast.Attribute) and self.dotted(func.value) in ENVIRONMENT_OBJECTS:
            if func.attr not in ("get", "copy", "items", "keys", "values", "index", "count"):
                self.add(ENVIRONMENT, node, subject=f"{self.dotted(func.value)}.{func.attr}")
            return
        self.file_call(node, func, leaf, dotted)

    def magic_body(self, node: ast.Call) -> None:
        """`%time ...` and `%%capture` run Python given as text (`magic_body`): read it too."""
        body = magic_body(node)
        if body is None:
            return
        for effect in code_effects(body.text, self.values, (self.reader, node)):
            self.effects.append(
                Effect(effect.kind, effect.line + body.line_offset, effect.how, effect.path, effect.subject)
            )

    def network_call(self, node: ast.Call, leaf: str, dotted: str) -> None:
        top = dotted.split(".")
        module = next((m for m in NETWORK_MODULES if dotted == m or dotted.startswith(m + ".")), None)
        if module is not None:
            self.add(NETWORK, node, subject=module)
            return
        if leaf in DOWNLOADERS or (top[0] == "sklearn" and leaf.startswith("fetch_")):
            self.add(NETWORK, node, subject=leaf)
            return
        if leaf in SHOWING:
            return
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            text = _text_of(arg)
            if text is None and isinstance(arg, ast.Name):
                text = self.path_of(arg).text  # a URL held by a variable of the code or the namespace
            if text is not None and URL.search(text):
                self.add(NETWORK, node, subject=text.strip()[:80])
                return

    def connection(self, node: ast.AST | None) -> str | None:
        """The name of a database connection (or cursor, or engine) of the namespace that `node` is."""
        if not isinstance(node, ast.Name) or self.value_binding(node) is not None or self.values is None:
            return None
        value = self.values.get(node.id)
        module = (type(value).__module__ or "").split(".")[0]
        return node.id if value is not None and module in DATABASE_MODULES else None

    def database_call(self, node: ast.Call, leaf: str, obj: ast.AST | None) -> bool:
        """`df.to_sql(name, con)` and `con.execute("DELETE ...")` change the database the namespace's
        connection holds (a file, or a server): no file is opened, so no path names it."""
        if leaf == "to_sql":
            held = self.connection(_argument(node, 1, "con"))
        elif leaf in QUERY_METHODS:
            held = self.connection(obj)
            if held is not None and call_reads_database(leaf, statement_of(node)):
                return True  # it only reads (the same rule as undo's estimate: database_reads.py)
        else:
            return False
        if held is not None:
            self.add(DATABASE, node, subject=held)
        return held is not None

    def file_call(self, node: ast.Call, func: ast.expr, leaf: str, dotted: str) -> None:
        method = isinstance(func, ast.Attribute) and self.dotted(func.value) is None
        obj = func.value if isinstance(func, ast.Attribute) else None
        if self.database_call(node, leaf, obj):
            return
        if dotted in OPENERS or dotted in ARCHIVES:
            mode = _argument(node, 1, "mode")
            self.opened(node, self.path_of(_argument(node, 0, "file", "name", "filename")), mode)
        elif method and leaf == "open" and obj is not None and self.is_path_object(obj):
            self.opened(node, self.path_of(obj), _argument(node, 0, "mode"))
        elif (
            method and obj is not None and leaf in ("write_text", "write_bytes") and self.is_path_object(obj)
        ):
            self.add(WRITE, node, self.path_of(obj))
        elif method and obj is not None and leaf in ("touch", "mkdir") and self.is_path_object(obj):
            self.add(CREATE, node, self.path_of(obj))
        elif method and obj is not None and leaf in ("unlink", "rmdir") and self.is_path_object(obj):
            self.add(DELETE, node, self.path_of(obj))
        elif method and obj is not None and leaf in ("rename", "replace") and self.is_path_object(obj):
            self.add(DELETE, node, self.path_of(obj))
            self.add(WRITE, node, self.path_of(_argument(node, 0, "target")))
        elif dotted == "os.open":
            flags = _argument(node, 1, "flags")
            names = {
                n.attr if isinstance(n, ast.Attribute) else (self.facts.dotted(n) or n.id).rpartition(".")[2]
                for n in (ast.walk(flags) if flags is not None else ())
                if isinstance(n, ast.Attribute | ast.Name)
            }
            if flags is None or names - READ_FLAGS - {"os"} or not _flag_names_only(flags):
                self.add(WRITE, node, self.path_of(_argument(node, 0, "path")))
        elif leaf in ("extractall", "extract", "unpack_archive"):
            # an archive's members land in a folder, under names the archive holds
            where = (
                _argument(node, 1, "extract_dir")
                if leaf == "unpack_archive"
                else _argument(node, 0 if leaf == "extractall" else 1, "path")
            )
            folder = self.path_of(where) if where is not None else PathGuess(".")
            if folder.text is not None:
                self.add(WRITE, node, PathGuess(prefix=os.path.join(folder.text, "")))
            elif not folder.not_a_path:
                self.add(
                    WRITE, node, PathGuess(prefix=folder.prefix) if folder.prefix is not None else UNKNOWN
                )
        elif dotted == "os.truncate":
            self.add(WRITE, node, self.path_of(_argument(node, 0, "path")))
        elif dotted in LINKERS:
            link = self.path_of(_argument(node, 1, "dst"))
            self.add(WRITE, node, link)
            self.linked(link, self.path_of(_argument(node, 0, "src")), symbolic=dotted == "os.symlink")
        elif (
            method and obj is not None and leaf in ("symlink_to", "hardlink_to") and self.is_path_object(obj)
        ):
            link = self.path_of(obj)
            self.add(WRITE, node, link)
            self.linked(link, self.path_of(_argument(node, 0, "target")), symbolic=leaf == "symlink_to")
        elif leaf in MEMMAPS and (dotted.startswith("numpy") or not dotted):
            mode = _argument(node, MEMMAPS[leaf], "mode")
            if _constant(mode) not in READ_MAP_MODES:  # the default, "r+", writes the file
                self.add(WRITE, node, self.path_of(_argument(node, 0, "filename")))
        elif dotted in MAKERS:
            self.add(CREATE, node, self.path_of(_argument(node, 0, "name", "path")))
        elif dotted in DELETERS:
            self.add(DELETE, node, self.path_of(_argument(node, 0, "path", "name")))
        elif dotted in MOVERS:
            self.add(DELETE, node, self.path_of(_argument(node, 0, "src")))
            self.add(WRITE, node, self.copy_target(node))
        elif dotted in COPIERS:
            self.add(WRITE, node, self.copy_target(node))
        elif dotted in DATABASES:
            path = _argument(node, 0, "database", "file")
            if _constant(path) not in (":memory:", "") or path is None:
                self.add(MAYBE_WRITE, node, self.path_of(path) if path is not None else NOT_A_PATH)
        elif leaf in WRITER_METHODS:
            target = _argument(node, 0, *PATH_KEYWORDS)
            if target is not None:
                self.add(WRITE, node, self.path_of(target))
        elif leaf in EITHER_ARGUMENT_WRITERS:
            guesses = [self.path_of(_argument(node, i)) for i in (0, 1) if _argument(node, i) is not None]
            guesses += [self.path_of(k.value) for k in node.keywords if k.arg in PATH_KEYWORDS]
            known = [g for g in guesses if g.text is not None or g.prefix is not None]
            if any(self.is_handle(a) for a in node.args[:2]):
                return  # into a file the code opened: judged where it opened it
            if known:
                self.add(WRITE, node, known[0])
            elif any(not g.not_a_path for g in guesses):
                self.add(WRITE, node, UNKNOWN)

    def copy_target(self, node: ast.Call) -> PathGuess:
        """Where a copy or a move lands: into the folder `dst` names when it is one."""
        target = self.path_of(_argument(node, 1, "dst"))
        source = self.path_of(_argument(node, 0, "src"))
        if target.text is not None and os.path.isdir(os.path.expanduser(target.text)) and source.text:
            return PathGuess(os.path.join(target.text, os.path.basename(source.text)))
        return target

    def opened(self, node: ast.Call, path: PathGuess, mode_node: ast.AST | None) -> None:
        if path.not_a_path:
            return
        if mode_node is None:
            return  # read
        mode = _constant(mode_node)
        if mode is None:
            self.add(WRITE, node, path)  # a mode the code computes
        elif "x" in mode and not any(c in mode for c in "wa+"):
            self.add(CREATE, node, path)
        elif any(c in mode for c in "wa+"):
            self.add(WRITE, node, path)


def _flag_names_only(flags: ast.AST) -> bool:
    """`os.O_RDONLY | os.O_CLOEXEC`: flags spelled by name (a number or a call may say anything)."""
    return all(
        isinstance(part, ast.Attribute | ast.Name | ast.BinOp | ast.BitOr | ast.Load)
        for part in ast.walk(flags)
    )


def _argument(node: ast.Call, position: int, *names: str) -> ast.expr | None:
    if len(node.args) > position and not isinstance(node.args[position], ast.Starred):
        return node.args[position]
    return next((k.value for k in node.keywords if k.arg in names), None)


def _constant(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _text_of(node: ast.AST) -> str | None:
    """A string argument's text, or an f-string's constant start."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
    return None
