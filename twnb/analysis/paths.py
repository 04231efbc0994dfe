"""What a path expression names, read from the code and the names it resolved (names.py).

Paths are built from constants: `"out/a.csv"`, `Path("out") / "a.csv"`, `os.path.join(...)`,
`"out/" + name`, f-strings (their constant start), `Path.home()`, `p.resolve()`, `str(p)`; a name holds
what the code bound it to, or, when the code did not bind it, its value in the namespace the code
will run in (`values`). A path that cannot be told is UNKNOWN, never a guess; an open file, a buffer
or data (`open(...)`, `io.BytesIO()`, `{...}`) is NOT_A_PATH.
"""

from __future__ import annotations

import ast
import io
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from twnb.analysis.names import ASSIGN, CLASS, FUNCTION, WALRUS, WITH, Binding, CodeFacts

# pathlib's classes, by name (however they were imported: `from pathlib import Path as P`).
PATH_TYPES = frozenset({"Path", "PurePath", "PosixPath", "WindowsPath", "PurePosixPath", "PureWindowsPath"})
# Functions opening a file whose first argument is the path and second the mode.
OPENERS = frozenset(
    {
        "open",
        "io.open",
        "io.FileIO",
        "codecs.open",
        "gzip.open",
        "bz2.open",
        "lzma.open",
        "tarfile.open",
        "shelve.open",
    }
)
ARCHIVES = frozenset({"zipfile.ZipFile", "tarfile.TarFile"})
# Calls that make a file object or a buffer, never a path.
OBJECT_MAKERS = frozenset(
    {
        "open",
        "StringIO",
        "BytesIO",
        "TemporaryFile",
        "NamedTemporaryFile",
        "SpooledTemporaryFile",
        "ExcelWriter",
    }
)
# Builtins named by themselves in a dotted path when the code did not bind them.
_BUILTIN_CALLS = ("open", "print", "display")
_VALUE_KINDS = (ASSIGN, WALRUS, WITH)


@dataclass(frozen=True)
class PathGuess:
    """What the code names as a path: `text` when it is known; else `prefix`, the known start of a
    name the code computes (`f"out/{name}.csv"` -> "out/"); `not_a_path` when it is some other object
    (an open file, a buffer); all None: a path the reading cannot tell."""

    text: str | None = None
    prefix: str | None = None
    not_a_path: bool = False


UNKNOWN = PathGuess()
NOT_A_PATH = PathGuess(not_a_path=True)


def leaf(func: ast.AST) -> str:
    """The last name of a called expression (`a.b.c` -> "c", `f` -> "f")."""
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


class PathReader:
    """Paths, dotted names, open files and pathlib objects of one piece of code, read through its
    `facts` and the namespace `values` it will run in (None when unknown)."""

    def __init__(
        self,
        facts: CodeFacts,
        values: Mapping[str, Any] | None,
        outer: tuple[PathReader, ast.Call] | None = None,
    ) -> None:
        self.facts = facts
        self.values = values
        # Code a call of other code runs as text (`%time ...`): the reader of that code and the call;
        # a name this code does not bind is what that code bound before the call.
        self.outer = outer

    # -- names ---------------------------------------------------------------------------------------

    def namespace_module(self, name: str) -> str | None:
        """The module path a name the code does not bind holds: the outer code's, or the namespace's."""
        if self.outer is not None:
            reader, call = self.outer
            bindings = reader.facts.bound_before_call(name, call)
            if not bindings:
                return reader.namespace_module(name)
            for binding in reversed(bindings):
                path = reader.facts.binding_path(binding, reader.namespace_module)
                if path is not None:
                    return path
            return None
        value = self.values.get(name) if self.values is not None else None
        return getattr(value, "__name__", None) if type(value).__name__ == "module" else None

    def dotted(self, node: ast.AST) -> str | None:
        """The dotted path an expression names through the code's imports and the namespace's modules
        (`o.environ` -> "os.environ"); a builtin by its name (`open`, `o` after `o = open`); None
        otherwise."""
        path = self.facts.dotted(node, self.namespace_module)
        if path is None and isinstance(node, ast.Name):
            if node.id in _BUILTIN_CALLS:
                return node.id
            builtin = self.facts.builtin(node)  # `o = open`
            return builtin if builtin in _BUILTIN_CALLS else None
        if path is not None and path.count(".") == 1 and path.startswith("builtins."):
            return path.removeprefix("builtins.")  # `from builtins import open as o`
        return path

    def value_binding(self, node: ast.Name) -> Binding | None:
        """The binding the code gave `node`'s name to a value of its own (not a module or a part of
        one), None when it did not (the namespace's value holds)."""
        binding = self.facts.latest(node)
        if binding is None or binding.is_import:
            return None
        if binding.kind in _VALUE_KINDS and self.facts.binding_path(binding, self.namespace_module):
            return None  # another name for a module's part (`env = os.environ`)
        return binding

    # -- paths ---------------------------------------------------------------------------------------

    def path_of(self, node: ast.AST | None) -> PathGuess:
        if node is None:
            return UNKNOWN
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                return PathGuess(node.value)
            if isinstance(node.value, bytes):
                return PathGuess(os.fsdecode(node.value))
            return NOT_A_PATH
        if isinstance(node, ast.JoinedStr):
            first = node.values[0] if node.values else None
            start = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
            return PathGuess(prefix=start)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div | ast.Add):
            left, right = self.path_of(node.left), self.path_of(node.right)
            join = os.path.join if isinstance(node.op, ast.Div) else str.__add__
            if left.text is not None and right.text is not None:
                return PathGuess(join(left.text, right.text))
            if left.text is not None:
                return PathGuess(prefix=join(left.text, "") if isinstance(node.op, ast.Div) else left.text)
            if left.prefix is not None:
                return PathGuess(prefix=left.prefix)
            return UNKNOWN
        if isinstance(node, ast.Name):
            return self.path_of_name(node)
        if isinstance(node, ast.Call):
            return self.path_of_call(node)
        if isinstance(node, ast.Dict | ast.List | ast.Set | ast.Tuple | ast.ListComp | ast.DictComp):
            return NOT_A_PATH  # data, not a path (`json.dump({...}, f)`)
        return UNKNOWN

    def path_of_name(self, node: ast.Name) -> PathGuess:
        binding = self.value_binding(node)
        if binding is not None:
            if binding.kind in _VALUE_KINDS and binding.value is not None:
                return self.path_of(binding.value)
            # a loop's item, a parameter, `x += ...`: the code's own value now, whatever the
            # namespace held; its functions and classes are no paths
            return NOT_A_PATH if binding.kind in (FUNCTION, CLASS) else UNKNOWN
        return self.free_path(node.id)

    def free_path(self, name: str) -> PathGuess:
        """The path a name the code does not bind holds: the outer code's, or the namespace's."""
        if self.outer is not None:
            reader, call = self.outer
            bindings = reader.facts.bound_before_call(name, call)
            if not bindings:
                return reader.free_path(name)
            last = bindings[-1]
            own_value = reader.facts.binding_path(last, reader.namespace_module) is None
            if last.kind in _VALUE_KINDS and last.value is not None and own_value:
                return reader.path_of(last.value)
            return UNKNOWN
        if self.values is None or name not in self.values:
            return UNKNOWN
        value = self.values[name]
        if isinstance(value, str | PurePath):
            return PathGuess(os.fspath(value))
        return NOT_A_PATH

    def path_of_call(self, node: ast.Call) -> PathGuess:
        func = node.func
        called = leaf(func)
        dotted = self.dotted(func) or ""
        if called in PATH_TYPES or dotted.rpartition(".")[2] in PATH_TYPES or dotted in _JOINS:
            if not node.args:
                return PathGuess(".")
            guesses = [self.path_of(a) for a in node.args]
            known: list[str] = []
            for guess in guesses:
                if guess.text is None:
                    start = os.path.join(*known, guess.prefix or "") if known else guess.prefix
                    return PathGuess(prefix=start) if start is not None else UNKNOWN
                known.append(guess.text)
            return PathGuess(os.path.join(*known))
        if called in ("home",) and isinstance(func, ast.Attribute):
            return PathGuess("~")
        if called in ("cwd", "getcwd"):
            return PathGuess(".")
        if called in ("expanduser", "resolve", "absolute", "abspath", "normpath", "fspath", "str") or (
            isinstance(func, ast.Name) and func.id == "str"
        ):
            inner = node.args[0] if node.args else func.value if isinstance(func, ast.Attribute) else None
            return self.path_of(inner)
        if called in OBJECT_MAKERS or dotted in OPENERS or dotted in ARCHIVES:
            return NOT_A_PATH  # an open file, a buffer: not a path
        return UNKNOWN  # what a call returns may be a path

    # -- objects -------------------------------------------------------------------------------------

    def is_handle(self, node: ast.AST) -> bool:
        """An open file or a buffer: bound by the code to one, or one in the namespace."""
        if not isinstance(node, ast.Name):
            return False
        binding = self.value_binding(node)
        if binding is not None:
            value = binding.value if binding.kind in _VALUE_KINDS else None
            return isinstance(value, ast.Call) and self.path_of(value) is NOT_A_PATH
        if self.facts.latest(node) is not None:
            return False  # a module or a part of one
        value = self.values.get(node.id) if self.values is not None else None
        return isinstance(value, io.IOBase)

    def is_path_object(self, node: ast.AST) -> bool:
        """A pathlib path: made by the code, bound by it to one, or one in the namespace."""
        if isinstance(node, ast.Name):
            binding = self.value_binding(node)
            if binding is not None:
                value = binding.value if binding.kind in _VALUE_KINDS else None
                return value is not None and self.is_path_object(value)
            value = self.values.get(node.id) if self.values is not None else None
            return isinstance(value, PurePath)
        if isinstance(node, ast.Call):
            called = leaf(node.func)
            constructor = (self.dotted(node.func) or "").rpartition(".")[2]
            if called in PATH_TYPES or constructor in PATH_TYPES:
                return True
            if called in ("home", "cwd", "with_suffix", "with_name", "joinpath"):
                return True
            if called in ("resolve", "absolute", "expanduser") and isinstance(node.func, ast.Attribute):
                return self.is_path_object(node.func.value)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return self.is_path_object(node.left)
        if isinstance(node, ast.Attribute) and node.attr == "parent":
            return self.is_path_object(node.value)
        return False


_JOINS = ("os.path.join", "posixpath.join")
