"""TaskWeaver's `Round`: one user request and every post exchanged to answer it."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, cast, get_args

from twnb.base import create_id, loaded_id
from twnb.memory.extras import RoundExtra
from twnb.memory.post import Post
from twnb.memory.reading import Location, dict_value, list_value, require_key, require_mapping, text_value

ROUND_PREFIX = "round-"  # TaskWeaver's prefix for the ids it makes

RoundState = Literal["finished", "failed", "created"]
ROUND_STATES: tuple[str, ...] = get_args(RoundState)


# The Round.extra key of the one note a failed autosave leaves in the Round (shown with it, and in
# `%taskweaver history`): the Round goes on, so the failure must be seen where the Round is.
AUTOSAVE_FAILED: Final = "autosave_failed"


@dataclass
class Round:
    """`extra` is twnb's addition (written last, only when non-empty; see `Post`). Its keys
    (`twnb.memory.extras.RoundExtra`): `usage`, `timing`, `failure_reason`, `autosave_failed`, `ledger`,
    `plan`, `plan_recovered_from`, `held_back_cells`, `user_cells`, `user_cells_omitted`, `replay`,
    `plugins`, `plugin_only`, `plugin_problems`, `changed_in_place`, `undo_limits`, `undone`,
    `confinement`,
    `trust_notes`, `rules`, `mentions`, `experiences`, `context_notes`."""

    id: str
    user_query: str
    state: RoundState
    post_list: list[Post]
    extra: RoundExtra = field(default_factory=lambda: RoundExtra())

    @staticmethod
    def create(
        user_query: str,
        id: str | None = None,
        state: RoundState = "created",
        post_list: list[Post] | None = None,
    ) -> Round:
        return Round(
            id=ROUND_PREFIX + create_id() if id is None else id,
            user_query=user_query,
            state=state,
            post_list=post_list if post_list is not None else [],
        )

    def __repr__(self) -> str:
        posts = "\n".join("  " + str(post) for post in self.post_list)
        return "\n".join(
            [
                "Round:",
                f"- Query: {self.user_query}",
                f"- State: {self.state}",
                f"- Post Num:{len(self.post_list)}",
                f"- Post List: \n{posts}\n\n",
            ]
        )

    def __str__(self) -> str:
        return self.__repr__()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "user_query": self.user_query,
            "state": self.state,
            "post_list": [post.to_dict() for post in self.post_list],
        }
        if self.extra:
            data["extra"] = copy.deepcopy(self.extra)
        return data

    @staticmethod
    def from_dict(content: Mapping[str, Any], *, keep_ids: bool = False) -> Round:
        """As TaskWeaver: new round and post ids unless `keep_ids` (twnb's own load paths)."""
        return Round._load(content, keep_ids=keep_ids, where=Location())

    @staticmethod
    def _load(content: Any, *, keep_ids: bool, where: Location) -> Round:
        what = "a round"
        content = require_mapping(content, where, what)
        state = require_key(content, "state", where, what)
        if state not in ROUND_STATES:
            raise where.error(
                f"unknown round state {state!r} (expected one of: {', '.join(ROUND_STATES)})", key="state"
            )
        posts = list_value(require_key(content, "post_list", where, what), "post_list", where)
        raw_id = content.get("id") if keep_ids else None
        return Round(
            id=loaded_id(ROUND_PREFIX) if raw_id is None else text_value(raw_id, "id", where),
            user_query=text_value(require_key(content, "user_query", where, what), "user_query", where),
            state=state,
            post_list=[
                Post._load(item, keep_ids=keep_ids, where=where.at_post(index))
                for index, item in enumerate(posts)
            ],
            extra=cast(RoundExtra, copy.deepcopy(dict_value(content.get("extra"), "extra", where))),
        )

    def add_post(self, post: Post) -> None:
        self.post_list.append(post)

    @property
    def undone(self) -> bool:
        """The user undid this Round (`%taskweaver undo`): it stays in the record, marked."""
        return bool(self.extra.get("undone"))

    def change_round_state(self, new_state: RoundState) -> None:
        self.state = new_state
