"""Where a session applies its one Redactor: each committed post, each Round's record before it is saved,
and a conversation it takes over (loaded, or made before the session existed). Without a Redactor
(None) everything passes through as it is."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from twnb.memory import Conversation, Post, Round

if TYPE_CHECKING:
    from twnb.config import Redactor


class Redaction:
    """The session's `redactor` (None: nothing is redacted), applied to what the session records."""

    def __init__(self, redactor: Redactor | None) -> None:
        self.redactor = redactor

    def data(self, data: Any) -> Any:
        """`data` (dicts, lists, strings) with every string in it redacted."""
        return self.redactor.redact_data(data) if self.redactor is not None else data

    def text(self, text: str) -> str:
        return self.redactor.redact(text) if self.redactor is not None else text

    def post(self, post: Post) -> Post:
        """`post` with every field through the redactor: the one place posts are redacted, before
        they are committed or anything is derived from them (the plan's steps and outcomes)."""
        if self.redactor is None:
            return post
        return Post.from_dict(self.redactor.redact_data(post.to_dict()), keep_ids=True)

    def round_extra(self, round: Round) -> None:
        """Every field of `round.extra` (the plan, notes, reasons, what roles and plugins added) through
        the redactor, in place, before the Round is saved or shown as ended."""
        if self.redactor is None:
            return
        round.extra = self.data(dict(round.extra))  # a copy, every string in it redacted

    def conversation(self, conversation: Conversation) -> Conversation:
        """`conversation`'s Rounds redacted once, ids kept, as committed posts are (in place)."""
        if self.redactor is None:
            return conversation
        rounds = [Round.from_dict(self.data(r.to_dict()), keep_ids=True) for r in conversation.rounds]
        conversation.rounds = rounds
        return conversation
