"""TaskWeaver's `SharedMemoryEntry`, carried in a `shared_memory_entry` attachment's `extra`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from twnb.base import create_id
from twnb.memory.reading import Location, require_key, text_value

SHARED_MEMORY_ENTRY_PREFIX = "sme-"  # TaskWeaver's prefix for the ids it makes

SharedMemoryEntryType = Literal["plan", "experience_sub_path", "example_sub_path"]
SharedMemoryEntryScope = Literal["round", "conversation"]

ENTRY_TYPES: tuple[str, ...] = get_args(SharedMemoryEntryType)
ENTRY_SCOPES: tuple[str, ...] = get_args(SharedMemoryEntryScope)


@dataclass
class SharedMemoryEntry:
    type: SharedMemoryEntryType
    content: str
    scope: SharedMemoryEntryScope
    id: str

    @staticmethod
    def create(
        type: SharedMemoryEntryType,
        content: str,
        scope: SharedMemoryEntryScope,
        id: str | None = None,
    ) -> SharedMemoryEntry:
        return SharedMemoryEntry(
            type=type,
            content=content,
            scope=scope,
            id=SHARED_MEMORY_ENTRY_PREFIX + create_id() if id is None else id,
        )

    def to_dict(self) -> dict[str, str]:
        return {"type": self.type, "content": self.content, "scope": self.scope, "id": self.id}

    @staticmethod
    def from_dict(content: Mapping[str, Any], where: Location | None = None) -> SharedMemoryEntry:
        """Rebuild an entry after a load (TaskWeaver leaves a plain dict, which breaks
        `Memory.get_shared_memory_entries`)."""
        where = where or Location()
        what = "a shared memory entry"
        entry_type = text_value(require_key(content, "type", where, what), "type", where)
        scope = text_value(require_key(content, "scope", where, what), "scope", where)
        if entry_type not in ENTRY_TYPES:
            raise where.error(
                f"unknown shared memory entry type '{entry_type}' (expected: {', '.join(ENTRY_TYPES)})",
                key="type",
            )
        if scope not in ENTRY_SCOPES:
            raise where.error(
                f"unknown shared memory entry scope '{scope}' (expected one of: {', '.join(ENTRY_SCOPES)})",
                key="scope",
            )
        raw_id = content.get("id")
        return SharedMemoryEntry(
            type=entry_type,  # type: ignore[arg-type]
            content=text_value(require_key(content, "content", where, what), "content", where),
            scope=scope,  # type: ignore[arg-type]
            id=SHARED_MEMORY_ENTRY_PREFIX + create_id()
            if raw_id is None
            else text_value(raw_id, "id", where),
        )
