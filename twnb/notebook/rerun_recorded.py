"""`%taskweaver load ... --rerun`: the recorded code run again on this kernel, to rebuild the variables
a loaded conversation made in another kernel.

In the order it ran: each Round's user cells (those the user's own cells recorded before it; only when
the user agreed, `--user-cells` or yes when asked), then the Round's code that succeeded. A conversation
file may come from anyone: every piece is verified as generated code is before it runs (`check`), and
runs under the runtime guard as generated code does (both off with `--no-verify`); what either refuses
is named. Outputs are not shown (they are in the Rounds).
Nothing runs without `--rerun`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from IPython.utils.capture import capture_output

from twnb.replay import needs_skipped, outside_names, recorded_code

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from twnb.memory import Conversation
    from twnb.replay import NeedsSkipped, RecordedCode


@dataclass
class RerunSummary:
    ran: int = 0
    user_cells_ran: int = 0
    failed: list[str] = field(default_factory=list)  # "Round 2: NameError: ..." for code that raised now
    refused: list[str] = field(default_factory=list)  # "Round 1's code: Line 2: ..." verification refused
    guard_refused: list[str] = field(default_factory=list)  # ran, and the runtime guard refused this in it


def user_cells_of(conversation: Conversation) -> list[RecordedCode]:
    """The user's own cells the conversation recorded that can run again (a clipped one cannot)."""
    return [piece for piece in recorded_code(conversation) if piece.user]


def rerun_recorded_code(
    shell: InteractiveShell,
    conversation: Conversation,
    *,
    user_cells: bool = False,
    check: Callable[[str], str | None] | None = None,
    held_back: Collection[RecordedCode] = (),
) -> RerunSummary:
    """Run the recorded code on `shell` (the user's cells too with `user_cells`), each piece first
    passed through `check` (verification: None lets it run); `held_back` (what reads what the user's
    cells that do not run make: `pieces_needing_user_cells`) does not run."""
    from twnb.session import run_recorded_cell  # lazy: twnb.session (~250 ms), to re-run only

    summary = RerunSummary()
    for piece in recorded_code(conversation):
        if (piece.user and not user_cells) or not (piece.user or piece.succeeded):
            continue  # the user's cells only when agreed; of the Round's code, what succeeded
        if piece in held_back:
            continue  # it would fail half-way, on a name only the user's cells make
        refusal = check(piece.code) if check is not None else None
        if refusal is not None:
            summary.refused.append(f"{piece.where}: {refusal}")
            continue
        with capture_output(display=True):
            result, guard_refusals = run_recorded_cell(shell, piece.code, guarded=check is not None)
        summary.ran += 1
        summary.user_cells_ran += piece.user
        if guard_refusals:
            problems = "; ".join(refusal.problem for refusal in guard_refusals)
            summary.guard_refused.append(f"{piece.where}: {problems}")
            continue
        error = result.error_before_exec or result.error_in_exec
        if error is not None:
            summary.failed.append(f"{piece.where}: {type(error).__name__}: {error}")
    return summary


def pieces_needing_user_cells(conversation: Conversation, known: Iterable[str]) -> list[NeedsSkipped]:
    """The Rounds' code that reads what only the user's recorded cells make (the cells not run), in
    the order it ran: run without them, it would stop on a NameError half-way."""
    considered = [piece for piece in recorded_code(conversation) if piece.user or piece.succeeded]
    return needs_skipped(considered, lambda piece: piece.user, known)


def user_cells_line(cells: int, needing: list[NeedsSkipped]) -> str:
    """One line, said before anything runs: the user's cells will not run, and which Rounds' code
    does not run either for that."""
    plural = "s" if cells != 1 else ""
    line = (
        f"Your {cells} recorded cell{plural} will not run (add --user-cells to run them too, or run "
        "them yourself first)"
    )
    if not needing:
        return f"{line}."
    rounds = sorted({need.piece.round_number for need in needing})
    names = list(dict.fromkeys(name for need in needing for name in need.names))
    which = ", ".join(str(r) for r in rounds)
    return (
        f"{line}; Round{'s' if len(rounds) != 1 else ''} {which} read{'s' if len(rounds) == 1 else ''} "
        f"what they make ({', '.join(names[:6])}{', ...' if len(names) > 6 else ''}), so that code "
        "will not run either."
    )


def ask_to_run_user_cells(cells: list[RecordedCode]) -> bool:
    """Ask before the user's own recorded cells run again; False when nobody can be asked (nbclient,
    papermill: a kernel without stdin) or the answer is not yes."""
    plural = "s" if len(cells) != 1 else ""
    first = cells[0].code.strip().splitlines()[0] if cells[0].code.strip() else ""
    question = (
        f"The conversation records {len(cells)} of your own cell{plural} that ran before its Rounds "
        f"(first: {first[:60]}). Run them too, verified first? [y/N] "
    )
    try:
        answer = input(question)
    except (NotImplementedError, EOFError, OSError, RuntimeError):  # StdinNotImplementedError, no tty
        return False
    return answer.strip().lower() in ("y", "yes")


def replaced_line(rounds: int, session_id: str, autosave: Path | None) -> str | None:
    """What `load` replaced, and where that conversation's autosave is (None when it had no Rounds)."""
    if not rounds:
        return None
    plural = "s" if rounds != 1 else ""
    replaced = f"It replaced this kernel's conversation of {rounds} Round{plural} (session {session_id})"
    if autosave is not None and autosave.is_dir():
        return f"{replaced}, autosaved in {autosave}: %taskweaver load {autosave} brings it back."
    return f"{replaced}, which was not autosaved."


def outside_lines(conversation: Conversation, namespace: Mapping[str, Any]) -> list[str]:
    """One line per name the recorded code reads that nothing recorded makes and this kernel lacks
    (but the conversation's plugins: a Round binds them, and `--rerun` does before it runs)."""
    plugins = {entry.name for entry in conversation.plugins}
    return [
        f"{name.sentence()}."
        for name in outside_names(recorded_code(conversation), known=namespace)
        if name.name not in plugins
    ]
