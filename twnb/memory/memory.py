"""TaskWeaver's `Memory`: a session's conversation and the per-role views prompts are built from."""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from itertools import compress
from operator import attrgetter

from twnb.memory.attachment import Attachment, AttachmentType
from twnb.memory.conversation import Conversation
from twnb.memory.conversation_file import save_conversation
from twnb.memory.post import Post, RoleName
from twnb.memory.prompt_util import PromptUtil
from twnb.memory.round import Round
from twnb.memory.shared_memory_entry import SharedMemoryEntry, SharedMemoryEntryType


def _copy_post(post: Post) -> Post:
    """A deep copy without `copy.deepcopy`'s per-object bookkeeping: strings are immutable and shared,
    everything mutable is copied. Prompts are built from these views on every LLM call."""
    return Post(
        id=post.id,
        send_from=post.send_from,
        send_to=post.send_to,
        message=post.message,
        attachment_list=[
            Attachment(
                id=a.id,
                type=a.type,
                content=list(a.content) if isinstance(a.content, list) else copy.deepcopy(a.content),
                extra=None if a.extra is None else copy.deepcopy(a.extra),
            )
            for a in post.attachment_list
        ],
        extra=copy.deepcopy(post.extra) if post.extra else {},
    )


# What a cached view of a Round depends on: the Round itself (held, so its id is not reused), whether
# it is the last one, its state and post count; for the last Round, where a Round in progress
# changes, also each post with its message and attachment count. Earlier Rounds are settled: checking
# every post of every Round on every prompt would cost more than the copies the cache saves.
_ViewKey = tuple[Round, bool, str, int, tuple[tuple[Post, str, int], ...]]

_STATE = attrgetter("state")
_POSTS = attrgetter("post_list")


def _view_key(round: Round, *, last: bool) -> _ViewKey:
    posts = tuple((post, post.message, len(post.attachment_list)) for post in round.post_list) if last else ()
    return (round, last, round.state, len(round.post_list), posts)


@dataclass
class _RoleViews:
    """One role's views as the previous call made them, with what each was made from, index by index:
    the Rounds, their states and post counts, and their keys."""

    rounds: list[Round]
    states: list[str]
    sizes: list[int]
    keys: list[_ViewKey]
    views: list[Round]


def _role_view(round: Round, role: RoleName, last: bool) -> Round:
    """`round` with only `role`'s posts, copied, temporal parts cut unless it is the `last` Round."""
    view = Round.create(user_query=round.user_query, id=round.id, state=round.state)
    view.extra = copy.deepcopy(round.extra)
    for post in round.post_list:
        if post.send_from == role or post.send_to == role:
            copied = _copy_post(post)
            copied.message = (
                PromptUtil.remove_all_delimiters(post.message)
                if last
                else PromptUtil.remove_parts(post.message, delimiter=PromptUtil.DELIMITER_TEMPORAL)
            )
            view.add_post(copied)
    return view


class Memory:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.conversation = Conversation.init()
        # (role, include_failure_rounds) -> the views the previous call gave, and what they were made from
        self._role_views: dict[tuple[RoleName, bool], _RoleViews] = {}

    def create_round(self, user_query: str) -> Round:
        round = Round.create(user_query=user_query)
        self.conversation.add_round(round)
        return round

    def get_role_rounds(self, role: RoleName, include_failure_rounds: bool = False) -> list[Round]:
        """Copies of the rounds holding only the posts `role` sent or received, each Round's `extra`
        included (TaskWeaver's views leave it out).

        Failed rounds are left out unless asked for. In every round but the last, temporal parts
        (`PromptUtil.DELIMITER_TEMPORAL`) are cut from messages; in the last, only the markers go.
        Rounds without a post for `role` are still listed (empty). The originals are never changed.
        An empty memory gives `[]` (TaskWeaver raises IndexError).

        Prompts are built from these views on every LLM call, and TaskWeaver copies every post of
        every Round each time, so a call costs more with each Round. Here a Round's view is copied
        once and reused until the Round changes (a post added, its state changed, or it is no longer
        the last; in the last Round also a post replaced, given a new message or another attachment),
        and the Rounds settled since the previous call are checked all at once, so a call costs about
        the same in Round 100 as in Round 10. Treat the views as read-only (a change to one shows in
        the next call's view of that Round, never in the conversation), and the posts of earlier
        Rounds as settled: a post edited in place there is not seen again.
        """
        everything = self.conversation.rounds
        states: list[str] = list(map(_STATE, everything))
        if include_failure_rounds:
            rounds = list(everything)
        else:
            kept = list(map("failed".__ne__, states))
            rounds, states = list(compress(everything, kept)), list(compress(states, kept))
        sizes = list(map(len, map(_POSTS, rounds)))
        previous = self._role_views.get((role, include_failure_rounds))
        # The Rounds before the previous call's last are settled: when they are the same Rounds (or
        # equal ones, whose views are equal too), in the same states with the same post counts, and
        # still not the last, their views stand. The lists are compared in C, and a list finds the
        # same object equal without calling its __eq__, so this check costs next to nothing per
        # Round. Only the Rounds after them are checked one by one.
        settled = 0
        if previous is not None:
            end = len(previous.rounds) - 1
            if (
                0 < end < len(rounds)
                and rounds[:end] == previous.rounds[:end]
                and states[:end] == previous.states[:end]
                and sizes[:end] == previous.sizes[:end]
            ):
                settled = end
        keys = previous.keys[:settled] if previous is not None else []
        views = previous.views[:settled] if previous is not None else []
        by_id: dict[int, tuple[_ViewKey, Round]] | None = None
        for index in range(settled, len(rounds)):
            round = rounds[index]
            key = _view_key(round, last=index == len(rounds) - 1)
            hit: tuple[_ViewKey, Round] | None = None
            if previous is not None:
                if index < len(previous.rounds) and previous.rounds[index] is round:
                    hit = (previous.keys[index], previous.views[index])
                else:
                    if by_id is None:
                        made = zip(previous.keys, previous.views, strict=True)
                        by_id = dict(zip(map(id, previous.rounds), made, strict=True))
                    hit = by_id.get(id(round))
            view = hit[1] if hit is not None and hit[0] == key else _role_view(round, role, key[1])
            keys.append(key)
            views.append(view)
        self._role_views[(role, include_failure_rounds)] = _RoleViews(rounds, states, sizes, keys, views)
        return list(views)

    def forget_views(self) -> None:
        """Make every role view afresh at the next call: a settled Round's record changed (undone)."""
        self._role_views.clear()

    def get_shared_memory_entries(self, entry_type: SharedMemoryEntryType) -> list[SharedMemoryEntry]:
        """Entries of `entry_type`: conversation-scoped ones from any round, round-scoped ones from the
        last round only; one per sending role (the latest wins), ordered by when each winner was posted.
        """
        latest: dict[str, tuple[int, SharedMemoryEntry]] = {}
        order = 0
        last_index = len(self.conversation.rounds) - 1
        for index, round in enumerate(self.conversation.rounds):
            for post in round.post_list:
                for attachment in post.attachment_list:
                    if attachment.type is not AttachmentType.shared_memory_entry:
                        continue
                    entry = attachment.extra
                    if isinstance(entry, dict):
                        entry = SharedMemoryEntry.from_dict(entry)
                    if not isinstance(entry, SharedMemoryEntry) or entry.type != entry_type:
                        continue
                    if entry.scope == "conversation" or index == last_index:
                        latest[post.send_from] = (order, entry)
                        order += 1
        return [entry for _, entry in sorted(latest.values(), key=lambda item: item[0])]

    def save_experience(self, exp_dir: str | os.PathLike[str], thin_mode: bool = True) -> None:
        """Write `raw_exp_{session_id}.yaml`; thin mode keeps only `plan` attachments."""
        path = os.path.join(exp_dir, f"raw_exp_{self.session_id}.yaml")
        conversation = self.conversation
        if thin_mode:
            conversation = copy.deepcopy(conversation)
            for round in conversation.rounds:
                for post in round.post_list:
                    post.attachment_list = [a for a in post.attachment_list if a.type is AttachmentType.plan]
        save_conversation(conversation, path)

    def from_yaml(self, session_id: str, path: str | os.PathLike[str]) -> Memory:
        self.conversation = Conversation.from_yaml(path)
        self.session_id = session_id
        return self
