"""TaskWeaver's `Post`: one message from one role to another, with typed attachments."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from twnb.base import create_id, loaded_id
from twnb.memory.attachment import Attachment, AttachmentType
from twnb.memory.extras import PostExtra
from twnb.memory.reading import Location, dict_value, list_value, require_key, require_mapping, text_value

POST_PREFIX = "post-"  # TaskWeaver's prefix for the ids it makes

RoleName = str


@dataclass
class Post:
    """`extra` is twnb's addition: a dict written last and only when non-empty (TaskWeaver's reader
    ignores it). Its keys (`twnb.memory.extras.PostExtra`): `usage`, `timing`, `reasoning`,
    `dropped_attempts`, `incomplete`, `raw_text`, `unknown_keys`, `edited_from`, `edited_by`,
    `skipped_by`, `approved_by`, `undone_by`, `undone`, `refused_edit`, `plugin_calls`,
    `ignored_reply_keys`, `risk`."""

    id: str
    send_from: RoleName
    send_to: RoleName
    message: str
    attachment_list: list[Attachment]
    extra: PostExtra = field(default_factory=lambda: PostExtra())

    @staticmethod
    def create(
        message: str | None,
        send_from: RoleName,
        send_to: RoleName = "Unknown",
        attachment_list: list[Attachment] | None = None,
    ) -> Post:
        return Post(
            id=POST_PREFIX + create_id(),
            message="" if message is None else message,
            send_from=send_from,
            send_to=send_to,
            attachment_list=attachment_list if attachment_list is not None else [],
        )

    def __repr__(self) -> str:
        return "\n".join(
            [
                f"* Post: {self.send_from} -> {self.send_to}:",
                f"    # Message: {self.message}",
                f"    # Attachment List: {self.attachment_list}",
            ]
        )

    def __str__(self) -> str:
        return self.__repr__()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "message": self.message,
            "send_from": self.send_from,
            "send_to": self.send_to,
            "attachment_list": [attachment.to_dict() for attachment in self.attachment_list],
        }
        if self.extra:
            data["extra"] = copy.deepcopy(self.extra)
        return data

    @staticmethod
    def from_dict(content: Mapping[str, Any], *, keep_ids: bool = False) -> Post:
        """As TaskWeaver: a new id unless `keep_ids` (twnb's own load paths keep them)."""
        return Post._load(content, keep_ids=keep_ids, where=Location())

    @staticmethod
    def _load(content: Any, *, keep_ids: bool, where: Location) -> Post:
        what = "a post"
        content = require_mapping(content, where, what)
        raw_id = content.get("id") if keep_ids else None
        attachments = list_value(content.get("attachment_list"), "attachment_list", where)
        return Post(
            id=loaded_id(POST_PREFIX) if raw_id is None else text_value(raw_id, "id", where),
            message=text_value(require_key(content, "message", where, what), "message", where),
            send_from=text_value(require_key(content, "send_from", where, what), "send_from", where),
            send_to=text_value(require_key(content, "send_to", where, what), "send_to", where),
            attachment_list=[
                Attachment._load(item, where.at_attachment(index)) for index, item in enumerate(attachments)
            ],
            extra=cast(PostExtra, copy.deepcopy(dict_value(content.get("extra"), "extra", where))),
        )

    def add_attachment(self, attachment: Attachment) -> None:
        self.attachment_list.append(attachment)

    def get_attachment(self, type: AttachmentType) -> list[Attachment]:
        return [attachment for attachment in self.attachment_list if attachment.type == type]

    def del_attachment(self, type_list: list[AttachmentType]) -> None:
        self.attachment_list = [a for a in self.attachment_list if a.type not in type_list]
