"""TaskWeaver's `Memory`: a session's conversation and the per-role views prompts are built from."""

from __future__ import annotations

import copy
import os

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


class Memory:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.conversation = Conversation.init()

    def create_round(self, user_query: str) -> Round:
        round = Round.create(user_query=user_query)
        self.conversation.add_round(round)
        return round

    def get_role_rounds(self, role: RoleName, include_failure_rounds: bool = False) -> list[Round]:
        """Copies of the rounds holding only the posts `role` sent or received.

        Failed rounds are left out unless asked for. In every round but the last, temporal parts
        (`PromptUtil.DELIMITER_TEMPORAL`) are cut from messages; in the last, only the markers go.
        Rounds without a post for `role` are still listed (empty). The originals are never changed.
        An empty memory gives `[]` (TaskWeaver raises IndexError).
        """
        rounds: list[Round] = []
        for round in self.conversation.rounds:
            if round.state == "failed" and not include_failure_rounds:
                continue
            view = Round.create(user_query=round.user_query, id=round.id, state=round.state)
            for post in round.post_list:
                if post.send_from == role or post.send_to == role:
                    view.add_post(_copy_post(post))
            rounds.append(view)
        if not rounds:
            return rounds
        for round in rounds[:-1]:
            for post in round.post_list:
                post.message = PromptUtil.remove_parts(post.message, delimiter=PromptUtil.DELIMITER_TEMPORAL)
        for post in rounds[-1].post_list:
            post.message = PromptUtil.remove_all_delimiters(post.message)
        return rounds

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
