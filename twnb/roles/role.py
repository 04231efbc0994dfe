"""The Role base: TaskWeaver's `Role` without its injector (collaborators come in constructors)."""

from __future__ import annotations

from typing import Any

from twnb.memory import Attachment, AttachmentDelta, AttachmentType, Memory, Observer, Post, Round


class RoleFailure(Exception):
    """A role gave up within the Round (e.g. the Planner's self-corrections ran out): the session fails
    the Round with this message as the reason, every post kept."""


class Role:
    """`name` identifies the role's kind, `alias` is how others address it (the `send_to` value),
    `intro` is what the Planner is told about it."""

    name: str = "Role"

    def __init__(self, *, alias: str | None = None, intro: str = "") -> None:
        self.alias = alias or self.name
        self.intro = intro

    def get_intro(self) -> str:
        return self.intro

    def get_alias(self) -> str:
        return self.alias

    def set_alias(self, alias: str) -> None:
        self.alias = alias

    def reply(self, memory: Memory, **kwargs: Any) -> Post:
        raise NotImplementedError(f"{type(self).__name__}.reply")

    def close(self) -> None:
        """Release what the role holds (nothing by default)."""


def attach(
    post: Post,
    type: AttachmentType,
    content: Any,
    observer: Observer | None = None,
    *,
    extra: Any = None,
) -> Attachment:
    """Add an attachment the role made itself (not streamed) and tell the view in one piece."""
    attachment = Attachment.create(type, content, extra=extra)
    post.add_attachment(attachment)
    if observer is not None:
        text = content if isinstance(content, str) else "\n".join(map(str, content or []))
        observer.on_event(AttachmentDelta(post.id, attachment.id, type, text, True))
    return attachment


def current_round_posts(memory: Memory) -> list[Post]:
    rounds = memory.conversation.rounds
    return rounds[-1].post_list if rounds else []


def role_rounds(memory: Memory, alias: str) -> list[Round]:
    """`memory.get_role_rounds(alias, include_failure_rounds=True)` with each Round's `extra` (failure
    reason, timing), which TaskWeaver's view does not copy, shared read-only from the original."""
    rounds = memory.get_role_rounds(alias, include_failure_rounds=True)
    originals = {r.id: r for r in memory.conversation.rounds}
    for view in rounds:
        original = originals.get(view.id)
        if original is not None:
            view.extra = original.extra
    return rounds
