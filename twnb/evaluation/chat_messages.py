"""The chat history of an evaluation, in the shape TaskWeaver's `eval_code` reads.

The history is the virtual user's own chat: its instructions, then turn by turn what the agent said
and what the virtual user answered. TaskWeaver keeps it as LangChain messages seen from the virtual
user's side, so the *agent* speaks in `HumanMessage`s and the *virtual user* in `AIMessage`s; case files
rely on that (`isinstance(chat_history[-1], HumanMessage)` is "the agent spoke last"). These classes
keep the names, the `.content` and the `.type` (`"system"`, `"human"`, `"ai"`) without LangChain, and
add the plainer aliases `AgentMessage` and `VirtualUserMessage` for cases written for twnb.

This module imports nothing of twnb and nothing outside the standard library: `eval_code` runs in a
fresh Python that imports it to rebuild the history (see eval_code.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, ClassVar

__all__ = [
    "AIMessage",
    "AgentMessage",
    "ChatMessage",
    "HumanMessage",
    "SystemMessage",
    "VirtualUserMessage",
    "history_from_data",
    "history_to_data",
    "load_history",
]


class ChatMessage:
    """One message: `content` (text) and `type`, which says who spoke."""

    type: ClassVar[str] = ""
    speaker: ClassVar[str] = ""  # how reports name who spoke

    def __init__(self, content: str) -> None:
        self.content = content

    def __repr__(self) -> str:
        return f"{type(self).__name__}(content={self.content!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ChatMessage) and type(other) is type(self) and other.content == self.content

    def __hash__(self) -> int:
        return hash((self.type, self.content))

    def to_dict(self) -> dict[str, str]:
        return {"type": self.type, "content": self.content}


class SystemMessage(ChatMessage):
    """The virtual user's instructions (the task description is in them)."""

    type = "system"
    speaker = "instructions"


class HumanMessage(ChatMessage):
    """What the agent said (the kick-off line, then each Round's answer)."""

    type = "human"
    speaker = "agent"


class AIMessage(ChatMessage):
    """What the virtual user said (its requests and answers, and the stop keyword)."""

    type = "ai"
    speaker = "user"


AgentMessage = HumanMessage
VirtualUserMessage = AIMessage

_BY_TYPE: dict[str, type[ChatMessage]] = {cls.type: cls for cls in (SystemMessage, HumanMessage, AIMessage)}


def history_to_data(history: Iterable[ChatMessage]) -> list[dict[str, str]]:
    return [message.to_dict() for message in history]


def history_from_data(data: Iterable[Mapping[str, Any]]) -> list[ChatMessage]:
    """Messages back from `history_to_data`'s form; an unknown type is a ValueError naming it."""
    history: list[ChatMessage] = []
    for index, item in enumerate(data):
        kind = str(item.get("type", ""))
        if kind not in _BY_TYPE:
            raise ValueError(f"chat message {index + 1} has type {kind!r}; expected system, human or ai")
        history.append(_BY_TYPE[kind](str(item.get("content") or "")))
    return history


def load_history(path: str | Path) -> list[ChatMessage]:
    """The history saved as JSON at `path` (what eval_code.py writes for the subprocess)."""
    return history_from_data(json.loads(Path(path).read_text(encoding="utf-8")))
