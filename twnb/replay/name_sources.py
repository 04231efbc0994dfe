"""Names the recorded code reads that nothing recorded makes: a replay has to be given them first.

A conversation recorded before twnb kept the user's own cells, or one whose data came from a cell run
in another notebook, has Rounds whose code reads `sales` with no recorded code that makes it. A replay
then fails with a NameError that says nothing about why; this names such a variable up front ("`sales`
comes from outside the notebook: define it first").

What counts as made: every name the recorded code binds (assignments, imports, definitions, loop and
`with` targets, anywhere in the code) and every variable an execution record lists, in the order the
code ran: the user's cells before each Round, then the Round's code. Only code that ran without an
error is asked what it reads (a failed attempt may read a name the model invented). Builtins and
IPython's own names are never outside; after a star import nothing can be told, so nothing more is
named.
"""

from __future__ import annotations

import ast
import builtins
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from twnb.replay.ran_code import ran_code

if TYPE_CHECKING:
    from IPython.core.inputtransformer2 import TransformerManager

    from twnb.memory import Conversation, Post

# Names IPython puts in every namespace (and its builtins), besides Python's own builtins.
_ALWAYS_THERE = frozenset(dir(builtins)) | frozenset(
    {"display", "get_ipython", "In", "Out", "exit", "quit", "__IPYTHON__"}
)


@dataclass(frozen=True)
class OutsideName:
    name: str
    round_number: int
    where: str  # "Round 2's code" or "your cell [3] before Round 2"

    def sentence(self) -> str:
        return (
            f"`{self.name}` comes from outside the notebook ({self.where} reads it; nothing recorded "
            "makes it): define it first"
        )


@dataclass(frozen=True)
class RecordedCode:
    """One piece of recorded code, in the order it ran."""

    code: str
    round_number: int
    where: str
    succeeded: bool
    made: tuple[str, ...] = ()  # the variables its execution record lists as created or changed
    user: bool = False  # one of the user's own cells (else the CodeInterpreter's code)


def outside_names(pieces: Iterable[RecordedCode], known: Iterable[str] = ()) -> list[OutsideName]:
    """Each name a piece reads before any earlier piece made it (first reader only), not in `known`."""
    made = set(known) | _ALWAYS_THERE
    found: dict[str, OutsideName] = {}
    for piece in pieces:
        tree = _parse(piece.code)
        if tree is None:
            continue
        names = _names(tree)
        if piece.succeeded:
            for name in names.read:
                if (
                    name not in names.bound
                    and name not in made
                    and name not in found
                    and not name.startswith("_")
                ):
                    found[name] = OutsideName(name, piece.round_number, piece.where)
        if names.star_import:
            break  # from here on any name may come from it
        made |= names.bound | set(piece.made)
    return list(found.values())


@dataclass(frozen=True)
class NeedsSkipped:
    """A piece of recorded code that reads what only skipped code makes (`names`): run without it, it
    would fail half-way."""

    piece: RecordedCode
    names: tuple[str, ...]


def needs_skipped(
    pieces: Iterable[RecordedCode], skipped: Callable[[RecordedCode], bool], known: Iterable[str] = ()
) -> list[NeedsSkipped]:
    """The pieces (not `skipped` themselves) that read a name only skipped pieces make, in order; a
    piece that needs one is skipped too, so what it alone makes counts as missing for the pieces after
    it. Names neither made nor `known` are left to `outside_names`."""
    made = set(known) | _ALWAYS_THERE
    lost: set[str] = set()
    found: list[NeedsSkipped] = []
    for piece in pieces:
        tree = _parse(piece.code)
        names = _names(tree) if tree is not None else _Names()
        if skipped(piece):
            lost |= (names.bound | set(piece.made)) - made
            continue
        missing = tuple(n for n in names.read if n in lost and n not in names.bound and n not in made)
        if missing:
            found.append(NeedsSkipped(piece, missing))
            lost |= (names.bound | set(piece.made)) - made
            continue
        made |= names.bound | set(piece.made)
    return found


def plugins_called(conversation: Conversation) -> list[str]:
    """The plugins the conversation had (its `plugins:` section) that its recorded code calls and
    nothing recorded makes: a re-run binds them first, or says which are missing."""
    plugins = {entry.name for entry in conversation.plugins}
    return [name.name for name in outside_names(recorded_code(conversation)) if name.name in plugins]


def recorded_code(conversation: Conversation) -> Iterator[RecordedCode]:
    """The conversation's code in the order it ran: each Round's user cells (but one too long to be
    recorded whole), then its code (each attempt that ran; none of a Round the user undid)."""
    for number, round in enumerate(conversation.rounds, start=1):
        extra = round.extra if isinstance(round.extra, Mapping) else {}
        for cell in extra.get("user_cells") or []:
            if (
                not isinstance(cell, Mapping)
                or not isinstance(cell.get("source"), str)
                or cell.get("clipped")
            ):
                continue
            count = cell.get("execution_count")
            label = f"your cell [{count}]" if isinstance(count, int) else "your cell"
            yield RecordedCode(
                cell["source"],
                number,
                f"{label} before Round {number}",
                succeeded=not cell.get("error"),
                made=_made(cell.get("variables")),
                user=True,
            )
        for post in round.post_list:
            ran = ran_code(post)
            if ran is None or round.undone:  # the user took an undone Round's effects back
                continue
            yield RecordedCode(
                ran.code, number, f"Round {number}'s code", succeeded=not ran.failed, made=_made_by(post)
            )


def _made(variables: Any) -> tuple[str, ...]:
    if not isinstance(variables, list):
        return ()
    return tuple(
        str(v["name"])
        for v in variables
        if isinstance(v, Mapping) and v.get("name") and v.get("kind") != "deleted"
    )


def _made_by(post: Post) -> tuple[str, ...]:
    for attachment in post.attachment_list:
        if attachment.type.value == "execution_result" and isinstance(attachment.extra, Mapping):
            return _made(attachment.extra.get("variables"))
    return ()


def _parse(code: str) -> ast.Module | None:
    # IPython's transformer leaves code Python can parse as it is (it rewrites only what Python cannot
    # parse: magics, shell escapes, help, a cell magic), except a pasted prompt, which it strips, maybe
    # inside a string: such code goes through it, all other plain Python is parsed as it is (the
    # transformer cost most of an export's look for outside names).
    if _PROMPT.search(code) is None:
        try:
            return ast.parse(code)
        except (SyntaxError, ValueError):
            pass
    try:
        return ast.parse(_transformer().transform_cell(code))
    except (SyntaxError, ValueError):
        return None


# What IPython's prompt strippers look for: `>>>` (doctest's too), `In [3]: ` and `...: `.
_PROMPT = re.compile(r">>>|In \[\d+\]:|\.\.\.:")


@functools.cache
def _transformer() -> TransformerManager:
    """IPython's cell transformer (`%magic` and `!shell` lines into Python), made once."""
    from IPython.core.inputtransformer2 import TransformerManager  # lazy: IPython (~45 ms, 100 modules)

    return TransformerManager()


@dataclass
class _Names:
    read: dict[str, None] = field(default_factory=dict)  # in the order the code reads them
    bound: set[str] = field(default_factory=set)  # anywhere: a function's local is not the notebook's
    star_import: bool = False


def _names(tree: ast.AST) -> _Names:
    """What the code reads and binds, in one walk."""
    names = _Names()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                names.read[node.id] = None
            else:
                names.bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.bound.add(node.name)
        elif isinstance(node, ast.arg):
            names.bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    names.star_import = True
                else:
                    names.bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            names.bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.bound.add(node.rest)
    return names
