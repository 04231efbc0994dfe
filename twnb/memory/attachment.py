"""TaskWeaver's `AttachmentType` and `Attachment` (docs/architecture.md, contract 1)."""

from __future__ import annotations

import builtins
import copy
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from twnb.base import create_id
from twnb.memory.reading import Location, require_key, require_mapping, text_value
from twnb.memory.shared_memory_entry import SharedMemoryEntry

ATTACHMENT_PREFIX = "atta-"  # TaskWeaver's prefix for the ids it makes


class AttachmentType(Enum):
    """Exactly TaskWeaver's 22 members, in its order; twnb never adds one (twnb data goes in `extra`)."""

    # Planner
    init_plan = "init_plan"
    plan = "plan"
    current_plan_step = "current_plan_step"
    plan_reasoning = "plan_reasoning"
    stop = "stop"

    # CodeInterpreter - generate code
    thought = "thought"
    reply_type = "reply_type"
    reply_content = "reply_content"

    # CodeInterpreter - verification
    verification = "verification"

    # CodeInterpreter - execute code
    code_error = "code_error"
    execution_status = "execution_status"
    execution_result = "execution_result"
    artifact_paths = "artifact_paths"

    # CodeInterpreter - revise code
    revise_message = "revise_message"

    # function calling
    function = "function"

    # WebExplorer
    web_exploring_plan = "web_exploring_plan"
    web_exploring_screenshot = "web_exploring_screenshot"
    web_exploring_link = "web_exploring_link"

    # Misc
    invalid_response = "invalid_response"
    text = "text"

    # shared memory entry
    shared_memory_entry = "shared_memory_entry"

    # vision input
    image_url = "image_url"


# Old files used these before `reply_type` + `reply_content`; TaskWeaver refuses to load them.
DEPRECATED_TYPES: tuple[str, ...] = ("python", "sample", "text")


def deprecated_type_message(type_name: str) -> str:
    """TaskWeaver's exact text, so users can search for it."""
    return (
        f"Deprecated attachment type: {type_name}. "
        "Please check our blog https://microsoft.github.io/TaskWeaver/blog/local_llm on how to fix it."
    )


def artifact_path_list(content: Any, where: Location | None = None) -> list[str]:
    """`artifact_paths` content as a list of paths; a single string is one path."""
    where = where or Location()
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [content]
    if isinstance(content, list | tuple):
        return [text_value(item, "content", where) for item in content]
    raise where.error(
        f"key 'content' of an artifact_paths attachment must be a path or a list of paths, "
        f"got {type(content).__name__}",
        key="content",
    )


@dataclass
class Attachment:
    """A typed piece of a Post.

    `content` is text, except for `artifact_paths`, whose content is a `list[str]` of file paths.
    twnb writes those paths relative to the conversation file's folder when the files are inside it
    (see `save_conversation(..., relative_to=...)`); resolve them against that folder when reading.
    """

    id: str
    type: AttachmentType
    content: Any
    extra: Any | None = None

    @staticmethod
    def create(
        type: AttachmentType | str,
        content: Any,
        id: str | None = None,
        extra: Any | None = None,
    ) -> Attachment:
        if builtins.type(type) is str:
            type = AttachmentType(type)
        assert isinstance(type, AttachmentType), f"Invalid attachment type: {type}"
        if type is AttachmentType.artifact_paths:
            content = artifact_path_list(content)
        return Attachment(
            id=ATTACHMENT_PREFIX + create_id() if id is None else id,
            type=type,
            content=content,
            extra=extra,
        )

    def __repr__(self) -> str:
        return f"{self.type.value.upper()}: {self.content}"

    def __str__(self) -> str:
        return self.__repr__()

    def to_dict(self) -> dict[str, Any]:
        extra = self.extra.to_dict() if isinstance(self.extra, SharedMemoryEntry) else self.extra
        content = list(self.content) if isinstance(self.content, list) else self.content
        return {"id": self.id, "type": self.type.value, "content": content, "extra": extra}

    @staticmethod
    def from_dict(content: Mapping[str, Any]) -> Attachment:
        """Keeps the id when the dict has one (as TaskWeaver does); refuses deprecated types."""
        return Attachment._load(content, Location())

    @staticmethod
    def _load(content: Any, where: Location) -> Attachment:
        what = "an attachment"
        content = require_mapping(content, where, what)
        type_name = require_key(content, "type", where, what)
        if type_name in DEPRECATED_TYPES:
            raise where.error(
                deprecated_type_message(type_name)
                + " (replace it with a 'reply_type' attachment, python or text, followed by a"
                " 'reply_content' attachment holding the code or text)",
                key="type",
            )
        try:
            attachment_type = AttachmentType(type_name)
        except ValueError:
            known = ", ".join(member.value for member in AttachmentType)
            raise where.error(
                f"unknown attachment type {type_name!r} (TaskWeaver's types: {known})", key="type"
            ) from None
        raw_content = require_key(content, "content", where, what)
        if attachment_type is AttachmentType.artifact_paths:
            value: Any = artifact_path_list(raw_content, where)
        else:
            value = text_value(raw_content, "content", where)
        # Copied so the caller's dict (a notebook's metadata, say) and the model never share state.
        extra = copy.deepcopy(content.get("extra"))
        if attachment_type is AttachmentType.shared_memory_entry and isinstance(extra, Mapping):
            extra = SharedMemoryEntry.from_dict(extra, where)
        raw_id = content.get("id")
        return Attachment(
            id=ATTACHMENT_PREFIX + create_id() if raw_id is None else text_value(raw_id, "id", where),
            type=attachment_type,
            content=value,
            extra=extra,
        )
