"""Tab completion of @-mentions in a `%%taskweaver` cell: the notebook's variables, files and folders in
the notebook's folder, `cell N` and `round N`.

An IPython completion matcher (API v2) on the shell's own Completer, so every frontend that asks the
kernel to complete (JupyterLab, Notebook 7, VS Code, the terminal) gets the same names. It answers only
inside a cell whose first line is `%%taskweaver` and only right after an `@` (not an e-mail address's),
and then it is the only answer (suppressing Python's names, which are no mentions), in its own order:
variables, files, then `cell ` and `round `; cells and Rounds newest first. When no mention matches the
partial name, the answer is empty and still the only one: `@pri` offers nothing, not `print`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from IPython.core.completer import SimpleCompletion, SimpleMatcherResult, context_matcher

if TYPE_CHECKING:
    from IPython.core.completer import CompletionContext
    from IPython.core.interactiveshell import InteractiveShell

PARTIAL = re.compile(r"(?<![\w@.])@((?:cell|round) \d*|[\w./-]*)$")
CELL_HEADER = "%%taskweaver"
MAX_COMPLETIONS = 50
MATCHER_ID = "twnb.mentions"


def mention_matcher(
    shell: InteractiveShell, rounds: Callable[[], int]
) -> Callable[[CompletionContext], SimpleMatcherResult]:
    """A matcher for `shell`'s Completer; `rounds` says how many Rounds the conversation has."""

    @context_matcher(identifier=MATCHER_ID)  # type: ignore[untyped-decorator, unused-ignore]
    def complete_mention(context: CompletionContext) -> SimpleMatcherResult:
        if not context.full_text.lstrip().startswith(CELL_HEADER):
            return {"completions": [], "suppress": False}
        found = PARTIAL.search(context.text_until_cursor)
        if found is None or context.cursor_line == 0:  # the magic's own line takes flags
            return {"completions": [], "suppress": False}
        partial = found.group(1)
        names = _candidates(shell, partial, rounds())
        # IPython replaces the token (it splits at "@" and spaces): give what follows the last split.
        cut = len(partial) - len(context.token)
        texts = [name[cut:] for name in names if name.startswith(partial)][:MAX_COMPLETIONS]
        completions: Sequence[SimpleCompletion] = [SimpleCompletion(text, type="mention") for text in texts]
        # `ordered`: IPython would sort them as text ("cell 10" before "cell 2", files among variables)
        return {"completions": completions or NO_MENTION, "suppress": True, "ordered": True}

    matcher: Callable[[CompletionContext], SimpleMatcherResult] = complete_mention  # decorated: untyped
    return matcher


class _NoMention(Sequence[SimpleCompletion]):
    """No completion, yet one IPython lets suppress the others: IPython's Completer applies a matcher's
    `suppress` only when `has_any_completions` (it asks `len`) sees at least one name, so an empty list
    would let Jedi and the Python-names matcher offer `print` after `@pri`. This answer reports a length
    of one and holds nothing: what the frontend gets is an empty list of matches."""

    def __len__(self) -> int:
        return 1

    def __getitem__(self, index: object) -> SimpleCompletion:  # type: ignore[override]
        raise IndexError(index)

    def __iter__(self) -> Iterator[SimpleCompletion]:
        return iter(())


NO_MENTION = _NoMention()


def _user_variables(shell: InteractiveShell) -> list[str]:
    """The names the user made: not what IPython put in the namespace itself (`In`, `exit`, its own
    `open`...), by %who's rule (hidden while the name still holds IPython's object), nor `_` names."""
    hidden = shell.user_ns_hidden
    absent = object()
    return [
        name
        for name, value in shell.user_ns.items()
        if not name.startswith("_") and hidden.get(name, absent) is not value
    ]


def _candidates(shell: InteractiveShell, partial: str, rounds: int) -> list[str]:
    if partial.startswith(("cell", "round")) and " " in partial:
        word = partial.split(" ", 1)[0]
        if word == "round":
            return [f"round {n}" for n in range(rounds, 0, -1)]
        inputs = shell.user_ns.get("In")
        count = len(inputs) if isinstance(inputs, list) else 0
        return [f"cell {n}" for n in range(count - 1, 0, -1)]
    names = _user_variables(shell)
    return sorted(names) + _files(partial) + ["cell ", "round "]


def _files(partial: str) -> list[str]:
    """Files and folders (with a trailing /) under the working folder matching the partial path."""
    folder, _, _ = partial.rpartition("/")
    where = folder or "."
    if os.path.isabs(where) or ".." in where.split("/"):
        return []
    try:
        entries = sorted(os.scandir(where), key=lambda e: e.name)
    except OSError:
        return []
    prefix = f"{folder}/" if folder else ""
    return [f"{prefix}{e.name}{'/' if e.is_dir() else ''}" for e in entries if not e.name.startswith(".")]


def install(shell: InteractiveShell, rounds: Callable[[], int]) -> None:
    """Add the matcher to the shell's Completer (once)."""
    remove(shell)
    completer = getattr(shell, "Completer", None)
    if completer is not None:
        completer.custom_matchers.append(mention_matcher(shell, rounds))


def remove(shell: InteractiveShell) -> None:
    completer = getattr(shell, "Completer", None)
    if completer is None:
        return
    completer.custom_matchers[:] = [
        m for m in completer.custom_matchers if getattr(m, "matcher_identifier", None) != MATCHER_ID
    ]


__all__ = ["install", "mention_matcher", "remove"]
