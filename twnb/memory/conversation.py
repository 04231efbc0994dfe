"""TaskWeaver's `Conversation`: the rounds of one session, plus plugins and roles."""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from twnb.base import create_id, gc_paused, loaded_id
from twnb.memory.plugin import PluginEntry
from twnb.memory.reading import Location, list_value, require_key, require_mapping, text_value
from twnb.memory.round import Round
from twnb.memory.yaml_io import load_yaml_file

CONVERSATION_PREFIX = "conv-"  # TaskWeaver's prefix for the ids it makes

# TaskWeaver's top-level keys, in its order; anything else in a file is kept in `unknown_keys`.
_KNOWN_KEYS = ("id", "plugins", "roles", "enabled", "rounds")


@dataclass
class Conversation:
    """`enabled` is used for example conversations only. `unknown_keys` holds top-level keys TaskWeaver
    ignores (its own `plugin_only: True`, say) so that saving never drops them."""

    id: str = ""
    rounds: list[Round] = field(default_factory=list)
    plugins: list[PluginEntry] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    enabled: bool = True
    unknown_keys: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def init() -> Conversation:
        return Conversation(id=CONVERSATION_PREFIX + create_id())

    def add_round(self, round: Round) -> None:
        self.rounds.append(round)

    def all_roles(self) -> list[str]:
        """`roles` plus every sender and receiver in the rounds, sorted."""
        names = set(self.roles)
        for round in self.rounds:
            for post in round.post_list:
                names.add(post.send_from)
                names.add(post.send_to)
        return sorted(names)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (`yaml.safe_dump` writes it as is), keys in TaskWeaver's order, then unknown keys."""
        data: dict[str, Any] = {
            "id": self.id,
            "plugins": [plugin.to_dict() for plugin in self.plugins],
            "roles": self.all_roles(),
            "enabled": self.enabled,
            "rounds": [round.to_dict() for round in self.rounds],
        }
        data.update(copy.deepcopy(self.unknown_keys))
        return data

    @staticmethod
    def from_dict(
        content: Mapping[str, Any], *, keep_ids: bool = True, source: str | None = None
    ) -> Conversation:
        """twnb's loader for the `to_dict()` form (a YAML file, a notebook's metadata).

        Keeps the ids it finds (new ones where missing) unless `keep_ids=False`. `source` names the file
        in error messages.
        """
        where = Location(file=source)
        content = require_mapping(content, where, "a conversation (top level)")
        rounds = list_value(
            require_key(content, "rounds", where, "a conversation (top level)"), "rounds", where
        )
        enabled = content.get("enabled", True)
        if not isinstance(enabled, bool):
            raise where.error(f"key 'enabled' must be true or false, got {enabled!r}", key="enabled")
        plugins = list_value(content.get("plugins"), "plugins", where)
        roles = list_value(content.get("roles"), "roles", where)
        raw_id = content.get("id") if keep_ids else None
        conversation = Conversation(
            id=loaded_id(CONVERSATION_PREFIX) if raw_id is None else text_value(raw_id, "id", where),
            rounds=[
                Round._load(item, keep_ids=keep_ids, where=where.at_round(index))
                for index, item in enumerate(rounds)
            ],
            plugins=[PluginEntry.from_yaml_content(item, where, index) for index, item in enumerate(plugins)],
            roles=[text_value(role, "roles", where) for role in roles],
            enabled=enabled,
            unknown_keys=copy.deepcopy({k: v for k, v in content.items() if k not in _KNOWN_KEYS}),
        )
        # TaskWeaver derives roles from the posts (its example filters rely on them).
        conversation.roles = conversation.all_roles()
        return conversation

    @staticmethod
    def from_yaml(path: str | os.PathLike[str]) -> Conversation:
        """Read a TaskWeaver conversation file, keeping the ids it holds (new ones where missing).

        Any problem is a ValueError naming the file, round, post and key.
        """
        path = os.fspath(path)
        with gc_paused():
            return Conversation.from_dict(load_yaml_file(path), keep_ids=True, source=path)
