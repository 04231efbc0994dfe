"""An import inside a function of twnb/ says why it is there: every other import is at the top.

An import is put off into a function only for a measured cost (`import openai` at `%load_ext twnb`),
an optional package that may be absent, or code that runs on its own elsewhere (a function whose
source is sent to another kernel). The reason is a comment, found in one of three places:

- on the import's line, or on the comment lines just above it (above the first of a group of imports
  that follow one another in the function, which the comment then covers):
  `# lazy: openai (~180 ms, 700 modules) loads with the first request, not at import`
- anywhere in the module, naming the imported module or a package above it, so that one comment
  serves every function that puts off the same import:
  `# lazy: twnb.session (~250 ms) loads when a Round runs, not at %load_ext`

A reason is a comment that starts `lazy:` (a cost, with its figure in ms or s, or a package that may
be absent) or `inside:` (the function must carry its own imports). An import cycle is no reason:
tests/test_layers.py refuses cycles through imports inside functions too.
`python -X importtime -c "import twnb.x"` measures a cost; docs/architecture.md ("Imports inside
functions") says more.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "twnb"
FIGURE = re.compile(r"\d+(\.\d+)? ?m?s\b")
ABSENT = ("absent", "not installed", "optional")


@dataclass(frozen=True)
class FunctionImport:
    line: int  # first line of the statement
    end: int  # last line of the statement
    modules: tuple[str, ...]  # "openai", "twnb.session", "ipywidgets" (of `import ipywidgets as w`)
    group: int  # first line of the run of imports it belongs to


def function_imports(source: str) -> list[FunctionImport]:
    """Every import statement nested in a function's body, with the first line of the run of import
    statements it is part of."""
    found: list[FunctionImport] = []

    def visit(body: list[ast.stmt], in_function: bool) -> None:
        group = 0
        for statement in body:
            if isinstance(statement, ast.Import | ast.ImportFrom):
                group = group or statement.lineno
                if in_function:
                    if isinstance(statement, ast.Import):
                        modules = tuple(alias.name for alias in statement.names)
                    else:
                        modules = ("." * statement.level + (statement.module or ""),)
                    end = statement.end_lineno or statement.lineno
                    found.append(FunctionImport(statement.lineno, end, modules, group))
                continue
            group = 0
            inner = in_function or isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
            for field in ("body", "orelse", "finalbody"):
                visit(getattr(statement, field, []), inner)
            for part in [*getattr(statement, "handlers", []), *getattr(statement, "cases", [])]:
                visit(part.body, inner)

    visit(ast.parse(source).body, False)
    return found


def comments(source: str) -> dict[int, str]:
    """Line number -> the comment on that line, without its `#`, followed by the comment lines that
    continue it (a reason may take two lines)."""
    found = {
        token.start[0]: token.string.lstrip("#").strip()
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    }
    lines = source.splitlines()

    def continued(line: int) -> str:
        after = line + 1
        if after in found and lines[after - 1].lstrip().startswith("#"):
            return f"{found[line]} {continued(after)}"
        return found[line]

    return {line: continued(line) for line in found}


def is_reason(comment: str) -> bool:
    """`lazy: openai (~180 ms) ...`, `lazy: absent off POSIX`, `inside: sent to another kernel`."""
    if comment.startswith("inside:"):
        return True
    if comment.startswith("lazy:"):
        return bool(FIGURE.search(comment)) or any(word in comment for word in ABSENT)
    return False


def names_module(comment: str, module: str) -> bool:
    """Whether `comment` names `module` or a package above it (`jupyter_client` for
    `jupyter_client.manager`), as a whole dotted name."""
    parts = module.split(".")
    return any(
        re.search(rf"(?<![\w.]){re.escape('.'.join(parts[:n]))}(?!\w|\.\w)", comment)
        for n in range(1, len(parts) + 1)
    )


def unexplained(source: str) -> list[tuple[int, str]]:
    """(line, statement's first line) of each function-level import no reason covers."""
    imports = function_imports(source)
    if not imports:
        return []  # most modules: their comments need not be read
    lines = source.splitlines()
    reasons = {line: text for line, text in comments(source).items() if is_reason(text)}
    found = []
    for one in imports:
        own = [reasons.get(line) for line in range(one.line, one.end + 1)]
        above = one.group - 1
        while above > 0 and lines[above - 1].strip().startswith("#"):
            own.append(reasons.get(above))
            above -= 1
        if any(own):
            continue
        if all(any(names_module(text, module) for text in reasons.values()) for module in one.modules):
            continue
        found.append((one.line, lines[one.line - 1].strip()))
    return found


def test_every_import_inside_a_function_of_twnb_says_why():
    found = [
        f"twnb/{path.relative_to(PACKAGE)}:{line}: {statement}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, statement in unexplained(path.read_text(encoding="utf-8"))
    ]
    assert not found, (
        "Imports inside functions without a reason: move each to the top of its module, or say why it "
        "waits in a `# lazy: <module> (~N ms) ...` comment (tests/test_function_imports.py):\n"
        + "\n".join(found)
    )


UNEXPLAINED = {
    "plain": "def f():\n    import json\n    return json\n",
    "from a layer": "def f():\n    from twnb.session import Session\n    return Session\n",
    "nested in a method": "class C:\n    def m(self):\n        if True:\n            import yaml\n",
    "in a try": "async def f():\n    try:\n        import openai\n    except ImportError:\n        pass\n",
    "a comment without `lazy:`": "def f():\n    # openai is slow to import\n    import openai\n",
    "a cost without its figure": "def f():\n    import openai  # lazy: openai is slow\n",
    "a reason for another line": "def f():\n    # lazy: openai (~180 ms)\n    x = 1\n    import yaml\n",
    "a module's reason for another module": "# lazy: openai (~180 ms)\ndef f():\n    import yaml\n",
    "a module's reason for one below": "# lazy: openai.types (~180 ms)\ndef f():\n    import openai\n",
}

EXPLAINED = {
    "at the top": "import json\n\ndef f():\n    return json\n",
    "on its line": "def f():\n    import openai  # lazy: openai (~180 ms) loads with the first request\n",
    "on the line above": "def f():\n    # lazy: openai (~180 ms)\n    import openai\n",
    "an optional package": "def f():\n    import _posixsubprocess  # lazy: absent off POSIX\n",
    "code run elsewhere": "def f():\n    import hashlib  # inside: its source runs in another kernel\n",
    "above its group": "def f():\n    # lazy: jupyter_client (~200 ms)\n"
    "    from jupyter_client.kernelspec import NoSuchKernel\n"
    "    from jupyter_client.manager import KernelManager\n\n    from twnb.kernel.x import y\n",
    "on a statement's first line": "def f():\n    from ipywidgets import (  # lazy: ipywidgets (~80 ms)\n"
    "        HTML,\n    )\n",
    "once for the module": "# lazy: twnb.session (~250 ms) loads when a Round runs\n\n"
    "def f():\n    from twnb.session import A\n\ndef g():\n    from twnb.session import B\n",
    "once in another function": "def f():\n    from jupyter_client.manager import KernelManager\n\n"
    "def g():\n    # lazy: jupyter_client (~200 ms)\n    import jupyter_client\n",
    "over two comment lines": "# lazy: what a Round needs loads when it runs: twnb.memory (~50 ms),\n"
    "# twnb.render (~100 ms)\n\ndef f():\n    from twnb.render import view\n",
}


@pytest.mark.parametrize("code", UNEXPLAINED.values(), ids=UNEXPLAINED.keys())
def test_an_import_inside_a_function_without_a_reason_is_reported(code):
    assert len(unexplained(code)) == 1


@pytest.mark.parametrize("code", EXPLAINED.values(), ids=EXPLAINED.keys())
def test_an_import_inside_a_function_with_its_reason_passes(code):
    assert unexplained(code) == []
