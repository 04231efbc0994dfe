"""The Role base: TaskWeaver's `Role` without its injector (collaborators come in constructors)."""

from __future__ import annotations

from typing import Any

from twnb.memory import Attachment, AttachmentDelta, AttachmentType, Memory, Observer, Post


class RoleFailure(Exception):
    """A role gave up within the Round (e.g. the Planner's self-corrections ran out): the session fails
    the Round with this message as the reason, every post kept."""


class ReplyCutShort(BaseException):
    """A reply stopped by `error` (an LLM error, Ctrl-C, ...) after part of it arrived: `post` is that
    part, for the session to keep in the failed Round; the session decides from `error`.

    A BaseException, as the Ctrl-C it may stand for: no `except Exception` on the way swallows it."""

    def __init__(self, error: BaseException, post: Post) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.error = error
        self.post = post


class Role:
    """`name` identifies the role's kind, `alias` is how others address it (the `send_to` value),
    `intro` is what the Planner is told about it."""

    name: str = "Role"

    def __init__(self, *, alias: str | None = None, intro: str = "") -> None:
        self.alias = alias or self.name
        self.intro = intro


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
