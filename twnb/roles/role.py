"""The Role base: TaskWeaver's `Role` without its injector (collaborators come in constructors)."""

from __future__ import annotations

import dataclasses
from typing import Any

from twnb.memory import Attachment, AttachmentDelta, AttachmentType, Memory, Observer, Post, PromptUtil, Round


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


class RoleRoundViews:
    """What `memory.get_role_rounds(alias, include_failure_rounds=True)` gives (the posts the role sent or
    received; temporal parts cut from every Round's messages but the last's, whose markers go), plus
    each Round's `extra` (failure reason, timing), which TaskWeaver's view does not copy.

    TaskWeaver deep-copies every post of every Round on every call, so a prompt costs more with each
    Round. These views are read-only shallow copies, cached per Round and rebuilt only when the Round
    changes (a new post, a new state, or no longer being the last), so a call costs about the same in
    Round 100 as in Round 10. Callers must not modify the views.
    """

    def __init__(self, alias: str) -> None:
        self.alias = alias
        self._cache: dict[str, tuple[tuple[int, int, str, bool], Round]] = {}

    def __call__(self, memory: Memory) -> list[Round]:
        rounds = memory.conversation.rounds
        views: list[Round] = []
        cache: dict[str, tuple[tuple[int, int, str, bool], Round]] = {}
        for index, original in enumerate(rounds):
            last = index == len(rounds) - 1
            key = (id(original), len(original.post_list), original.state, last)
            hit = self._cache.get(original.id)
            view = hit[1] if hit is not None and hit[0] == key else self._view(original, last)
            cache[original.id] = (key, view)
            views.append(view)
        self._cache = cache
        return views

    def _view(self, original: Round, last: bool) -> Round:
        posts = []
        for post in original.post_list:
            if post.send_from == self.alias or post.send_to == self.alias:
                message = (
                    PromptUtil.remove_all_delimiters(post.message)
                    if last
                    else PromptUtil.remove_parts(post.message, PromptUtil.DELIMITER_TEMPORAL)
                )
                posts.append(dataclasses.replace(post, message=message))
        return Round(
            id=original.id,
            user_query=original.user_query,
            state=original.state,
            post_list=posts,
            extra=original.extra,
        )
