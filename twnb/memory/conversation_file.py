"""Saving and loading a Conversation as TaskWeaver YAML (twnb's load path: ids are kept)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from twnb.memory.attachment import DEPRECATED_TYPES, AttachmentType
from twnb.memory.conversation import Conversation
from twnb.memory.reading import Location
from twnb.memory.yaml_io import save_yaml_file


def load_conversation(path: str | os.PathLike[str]) -> Conversation:
    """Same as `Conversation.from_yaml`: ids kept, errors name the file, round, post and key."""
    return Conversation.from_yaml(path)


def _relative_paths(paths: list[str], folder: Path) -> list[str]:
    result = []
    for path in paths:
        candidate = Path(path)
        if candidate.is_absolute() and candidate.resolve().is_relative_to(folder):
            result.append(candidate.resolve().relative_to(folder).as_posix())
        else:
            result.append(path)
    return result


def conversation_dict(
    conversation: Conversation, *, relative_to: str | os.PathLike[str] | None = None
) -> dict[str, Any]:
    """`conversation.to_dict()` checked for saving, with absolute `artifact_paths` inside `relative_to`
    made relative to it. A `text` attachment (loadable by nobody) is a ValueError naming where it is."""
    data = conversation.to_dict()
    folder = None if relative_to is None else Path(relative_to).resolve()
    for round_index, round_data in enumerate(data["rounds"]):
        for post_index, post_data in enumerate(round_data["post_list"]):
            for index, attachment in enumerate(post_data["attachment_list"]):
                if attachment["type"] in DEPRECATED_TYPES:
                    # `text` is still an AttachmentType member, but no TaskWeaver reader (nor ours)
                    # loads it: refuse before writing a file that could never be opened again.
                    where = Location(None, round_index, post_index, index)
                    raise where.error(
                        f"attachment type '{attachment['type']}' cannot be saved: TaskWeaver refuses to "
                        "load it; use 'reply_type' + 'reply_content' instead",
                        key="type",
                    )
                if folder is not None and attachment["type"] == AttachmentType.artifact_paths.value:
                    attachment["content"] = _relative_paths(attachment["content"], folder)
    return data


def save_conversation(
    conversation: Conversation,
    path: str | os.PathLike[str],
    *,
    relative_to: str | os.PathLike[str] | None = None,
) -> None:
    """Write TaskWeaver YAML atomically (temp file + rename: on failure the old file stays as it was).

    `relative_to` (usually the file's own folder) rewrites absolute artifact paths inside that folder
    as paths relative to it, so the folder can be moved; the Conversation object is not changed.
    Without it, what is saved loads back identical, ids included.
    """
    save_yaml_file(path, conversation_dict(conversation, relative_to=relative_to))
