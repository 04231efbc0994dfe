"""The conversation a session keeps and where it keeps it: its `Memory` (the conversation and the session
id), the autosave folder each Round is written to as it goes (autosave.py), and the plans saved with it.

The operations on the conversation between Rounds live here: save it to a file, carry on another one
(loaded from a file, a notebook's, or made before the session existed), start a new one, make an
earlier plan current again. A conversation taken over is redacted once, by the session's `Redaction`,
as committed posts are; what is written is already redacted.
"""

from __future__ import annotations

import os
from pathlib import Path

from twnb.base import create_id, get_logger
from twnb.memory import AUTOSAVE_FAILED, Conversation, Memory, Observer, Plan, Round, StatusChanged
from twnb.session.autosave import save_plugins, save_round
from twnb.session.conversation_store import save_conversation_file
from twnb.session.plan_notebook import PlanNotebook
from twnb.session.redaction import Redaction

logger = get_logger(__name__)


class SessionArchive:
    """`memory`: the conversation; `session_dir`: the folder of every session's autosave; `autosave`:
    each Round written there as it goes; `plans`: the plan notebook saved into the conversation."""

    def __init__(
        self, memory: Memory, session_dir: Path, autosave: bool, redaction: Redaction, plans: PlanNotebook
    ) -> None:
        self.memory = memory
        self.session_dir = Path(session_dir)
        self.autosave = autosave
        self.redaction = redaction
        self.plans = plans

    @property
    def session_id(self) -> str:
        return self.memory.session_id

    @property
    def conversation(self) -> Conversation:
        return self.memory.conversation

    @property
    def autosave_dir(self) -> Path:
        """Where this session's Rounds are autosaved, one file each (the newest file is the latest)."""
        return self.session_dir / self.session_id / "rounds"

    # -- autosave ------------------------------------------------------------------------------------

    def autosave_round(self, round: Round, index: int, watcher: Observer | None = None) -> None:
        """Write `round`'s autosave file; it carries the conversation's own top-level keys too (the
        plan waiting for the next Round), as `save` writes them; the last Round's file's are what loads."""
        self.redaction.round_extra(round)
        self.plans.save_into(self.memory.conversation)  # also for a session built later around it
        if not self.autosave:
            return
        try:
            save_round(
                self.autosave_dir,
                round,
                conversation=self.memory.conversation,
                session_id=self.session_id,
                index=index,
            )
        except OSError as error:  # a full disk must not lose the Round in memory, nor stop it
            if AUTOSAVE_FAILED in round.extra:
                return  # said once per Round: the next post's save fails the same way
            note = self.redaction.text(
                f"Autosave to {self.autosave_dir} failed ({error.strerror or error}); the Round goes on "
                "and is kept in memory: save it elsewhere with %taskweaver save PATH."
            )
            round.extra[AUTOSAVE_FAILED] = note
            logger.warning("could not autosave Round %s: %s", round.id, error)
            if watcher is not None:
                watcher.on_event(StatusChanged(note))

    def autosave_plugins(self) -> None:
        """The conversation's plugins section beside the autosaved Rounds (written when it changes)."""
        if not self.autosave:
            return
        try:
            save_plugins(self.autosave_dir, self.memory.conversation)
        except OSError as error:  # the Round's own autosave says what the disk refuses; the Round goes on
            logger.warning("could not autosave the plugins section: %s", error)

    # -- the conversation ------------------------------------------------------------------------------

    def recover_plan(self, number: int) -> Plan:
        """Make earlier plan `number` current again (see PlanNotebook.recover), and autosave it with the
        last Round, so a kernel that dies before the next Round still has it."""
        plan = self.plans.recover(number)
        rounds = self.memory.conversation.rounds
        if rounds:
            self.autosave_round(rounds[-1], len(rounds) - 1)
        return plan

    def note_held_back_cells(self, round: Round, note: str) -> None:
        """Why the cells queued below the Round did not run (`Round.extra["held_back_cells"]`, known
        only after the Round ended and was autosaved), written into the Round's autosave too, so a
        reload says it as the notebook did."""
        round.extra = {**(round.extra or {}), "held_back_cells": self.redaction.text(note)}
        rounds = self.memory.conversation.rounds
        if any(r is round for r in rounds):
            self.autosave_round(round, next(i for i, r in enumerate(rounds) if r is round))

    def save(self, path: str | os.PathLike[str], cassette: Path | None) -> Path:
        """The whole conversation as TaskWeaver YAML (see conversation_store); its posts were redacted
        when committed. The `cassette`, when recording, is copied beside it (`x.cassette.yaml`)."""
        self.plans.save_into(self.memory.conversation)
        return save_conversation_file(self.memory.conversation, path, cassette=cassette)

    def replace_conversation(self, conversation: Conversation, session_id: str | None) -> Conversation:
        """Carry on `conversation` (redacted already: Session.replace_conversation), ids kept, under
        `session_id` (None: a new one), every Round autosaved again so this session's autosave is
        complete."""
        self.memory = Memory(session_id=session_id or create_id())
        self.memory.conversation = conversation
        self.plans.load_from(conversation)
        for index, round in enumerate(conversation.rounds):
            self.autosave_round(round, index)
        return conversation

    def adopt(self, memory: Memory) -> None:
        """Carry on `memory`'s conversation (made before this session existed, say loaded from a file):
        it is redacted once here, as committed posts are."""
        memory.conversation = self.redaction.conversation(memory.conversation)
        self.memory = memory
        self.plans.load_from(memory.conversation)

    def start_new(self) -> None:
        """A new, empty conversation under a new session id; the finished one stays in its autosave."""
        self.memory = Memory(session_id=create_id())
        self.plans.reset()
