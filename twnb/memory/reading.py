"""Reading plain data (a YAML file, a notebook's metadata) into the model, with located errors.

Every problem in a conversation becomes a `ConversationFormatError` (a `ValueError`) whose text names
the file, the round and post (and attachment) index and the key, e.g.
`conv.yaml: round 1, post 2: missing required key 'send_from' ...` or
`conv.yaml: round 0: key 'state': unknown round state 'done' ...`. Indexes count from 0, as in
`conversation.rounds[1].post_list[2]`. Never a bare KeyError/AttributeError from a typo'd file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Location:
    """Where in a conversation a piece of data came from (all parts optional)."""

    file: str | None = None
    round_index: int | None = None
    post_index: int | None = None
    attachment_index: int | None = None

    def at_round(self, index: int) -> Location:
        return replace(self, round_index=index, post_index=None, attachment_index=None)

    def at_post(self, index: int) -> Location:
        return replace(self, post_index=index, attachment_index=None)

    def at_attachment(self, index: int) -> Location:
        return replace(self, attachment_index=index)

    def __str__(self) -> str:
        parts = [] if self.file is None else [str(self.file)]
        places = [
            f"{name} {index}"
            for name, index in (
                ("round", self.round_index),
                ("post", self.post_index),
                ("attachment", self.attachment_index),
            )
            if index is not None
        ]
        if places:
            parts.append(", ".join(places))
        return ": ".join(parts)

    def error(self, message: str, key: str | None = None) -> ConversationFormatError:
        return ConversationFormatError(message, location=self, key=key)


class ConversationFormatError(ValueError):
    """Bad conversation data; `location` and `key` say exactly where."""

    def __init__(self, message: str, *, location: Location | None = None, key: str | None = None):
        self.location = location or Location()
        self.key = key
        self.reason = message
        places = [str(self.location)] if str(self.location) else []
        if key is not None and f"'{key}'" not in message:
            places.append(f"key '{key}'")  # the key is always named, in the text as well as `.key`
        super().__init__(": ".join([*places, message]))


def require_mapping(value: Any, where: Location, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        got = "nothing (empty)" if value is None else type(value).__name__
        raise where.error(f"expected {what} to be a mapping of keys to values, got {got}")
    return value


def require_key(content: Mapping[str, Any], key: str, where: Location, what: str) -> Any:
    if key not in content:
        present = ", ".join(repr(k) for k in content) or "none"
        raise where.error(
            f"missing required key '{key}' in {what} (keys present: {present}); add '{key}:' to it", key=key
        )
    return content[key]


def text_value(value: Any, key: str, where: Location) -> str:
    """A text field: YAML may hand us a number or boolean (`content: 42`), which we keep as text;
    nothing (`message:` left empty) is empty text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return str(value)
    raise where.error(f"key '{key}' must be text, got {type(value).__name__}", key=key)


def list_value(value: Any, key: str, where: Location) -> list[Any]:
    """A list field; YAML's `attachment_list:` with nothing after it is None, read as empty."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise where.error(f"key '{key}' must be a list, got {type(value).__name__}", key=key)
    return value


def dict_value(value: Any, key: str, where: Location) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise where.error(f"key '{key}' must be a mapping, got {type(value).__name__}", key=key)
    return dict(value)
