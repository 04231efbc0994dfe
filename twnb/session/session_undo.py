"""A session's undo: `%taskweaver undo` of a whole Round and step mode's Undo of the piece of code that
just ran, over the live kernel's `UndoLog` (round_undo.py decides which Round and whether it may be
undone). Without a log (code runs elsewhere than the notebook's own kernel) nothing can be undone."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.memory import UndoneRecord
from twnb.session.round_undo import KEPT_ROUNDS, UndoOutcome, undo_piece, undo_round
from twnb.session.session_archive import SessionArchive

if TYPE_CHECKING:
    from twnb.kernel import Executor, UndoLog


class SessionUndo:
    """`log`: the live kernel's runs (None: code runs elsewhere); `archive`: the conversation whose
    Rounds are undone (and autosaved, marked); `executor`: whose working folder undone files leave."""

    def __init__(self, log: UndoLog | None, archive: SessionArchive, executor: Executor) -> None:
        self.log = log
        self.archive = archive
        self.executor = executor

    def undo_round(self, ref: str | None, *, force: bool) -> UndoOutcome:
        """Put the kernel back as it was before Round `ref` (see Session.undo)."""
        if self.log is None:
            return UndoOutcome(
                False, "Undo needs code run on the notebook's own kernel; this session runs it elsewhere."
            )
        memory = self.archive.memory
        outcome = undo_round(memory.conversation, self.log, ref, force=force, workdir=self.executor.workdir)
        if outcome.done and outcome.round is not None:
            memory.forget_views()  # the model is told from the next call on
            rounds = memory.conversation.rounds
            self.archive.autosave_round(outcome.round, rounds.index(outcome.round))
        return outcome

    def undo_piece(self, post_id: str) -> UndoneRecord | None:
        """Step mode's Undo of the piece of code that just ran (see Session.undo_piece)."""
        rounds = self.archive.conversation.rounds
        if self.log is None or not rounds:
            return None
        return undo_piece(self.log, post_id, rounds[-1], self.executor.workdir)

    def bound(self) -> None:
        """Only the last KEPT_ROUNDS Rounds keep their snapshots (round_undo.py)."""
        if self.log is None:
            return
        recent = self.archive.conversation.rounds[-KEPT_ROUNDS:]
        self.log.keep_only({post.id for round in recent if not round.undone for post in round.post_list})

    def clear(self) -> None:
        """Forget every run: they were another conversation's."""
        if self.log is not None:
            self.log.clear()
