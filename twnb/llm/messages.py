"""Chat messages in AgentScope's shape (a `Msg` holding content blocks), and the one conversion to OpenAI's.

Every request is built as a list of :class:`Msg` and turned into the openai ``messages`` list only by
:func:`to_openai_messages`, so images, thinking and tool calls are handled in one place: images become
``image_url`` parts (for vision models), thinking is never sent back, tool calls become ``tool_calls``
plus ``tool`` messages.

Blocks are plain dicts (``TypedDict``), as in AgentScope: they serialise as they are and unknown keys
survive. A :class:`~twnb.memory.Post` converts to a Msg and back without loss (:func:`post_to_msg`,
:func:`msg_to_post`): blocks carry what the model should see, ``metadata["twnb"]`` carries what is
needed to rebuild the Post exactly (agentscope.md §5.2).
"""

from __future__ import annotations

import copy
import json
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict, cast

from twnb.base import now_iso
from twnb.memory import Attachment, AttachmentType, Post, PostExtra, SharedMemoryEntry

__all__ = [
    "Base64Source",
    "ContentBlock",
    "ImageBlock",
    "Msg",
    "TextBlock",
    "ThinkingBlock",
    "ToolResultBlock",
    "ToolUseBlock",
    "URLSource",
    "msg_to_post",
    "post_to_msg",
    "to_openai_messages",
]


class TextBlock(TypedDict):
    type: Literal["text"]
    text: str


class ThinkingBlock(TypedDict):
    type: Literal["thinking"]
    thinking: str


class Base64Source(TypedDict):
    type: Literal["base64"]
    media_type: str
    data: str  # base64 text, or a whole RFC 2397 data URL


class URLSource(TypedDict):
    type: Literal["url"]
    url: str


class ImageBlock(TypedDict):
    type: Literal["image"]
    source: Base64Source | URLSource


class ToolUseBlock(TypedDict):
    type: Literal["tool_use"]
    id: str
    name: str
    input: dict[str, Any]
    raw_input: NotRequired[str]


class ToolResultBlock(TypedDict):
    type: Literal["tool_result"]
    id: str
    name: str
    output: str | list[TextBlock | ImageBlock]


ContentBlock = TextBlock | ThinkingBlock | ImageBlock | ToolUseBlock | ToolResultBlock
Role = Literal["user", "assistant", "system"]
_ROLES = ("user", "assistant", "system")


def _new_msg_id() -> str:
    return secrets.token_urlsafe(16)[:22]


@dataclass
class Msg:
    """One chat message: who sent it (``name``), its chat ``role``, and text or content blocks.

    Note the argument order, ``Msg(name, role, content)``; a misplaced role is refused by name.
    """

    name: str
    role: Role
    content: str | list[ContentBlock]
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=_new_msg_id)
    timestamp: str = field(default_factory=now_iso)  # UTC, ISO 8601 (AgentScope: local time)

    def __post_init__(self) -> None:
        if self.role not in _ROLES:
            raise ValueError(
                f"Msg role must be one of {', '.join(_ROLES)}, got {self.role!r} "
                "(the order is Msg(name, role, content))."
            )
        if not isinstance(self.content, (str, list)):
            raise TypeError(
                f"Msg content must be a str or a list of blocks, got {type(self.content).__name__}."
            )
        if self.metadata is None:
            self.metadata = {}

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "role": self.role,
            "content": copy.deepcopy(self.content),
            "metadata": copy.deepcopy(self.metadata),
            "timestamp": self.timestamp,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Msg:
        missing = [k for k in ("name", "role", "content") if k not in data]
        if missing:
            raise ValueError(
                f"A Msg dict needs the keys name, role and content; missing: {', '.join(missing)}."
            )
        msg = cls(
            data["name"],
            data["role"],
            copy.deepcopy(data["content"]),
            copy.deepcopy(data.get("metadata") or {}),
        )
        if data.get("id"):
            msg.id = data["id"]
        if data.get("timestamp"):
            msg.timestamp = data["timestamp"]
        return msg

    def get_text_content(self, separator: str = "\n") -> str | None:
        """str content as is; else the text blocks joined (thinking skipped); None when there are none."""
        if isinstance(self.content, str):
            return self.content
        texts = [str(b.get("text", "")) for b in self.content if b.get("type") == "text"]
        return separator.join(texts) if texts else None

    def get_content_blocks(self, block_type: str | Sequence[str] | None = None) -> list[ContentBlock]:
        """The blocks, optionally of one type or of several; str content counts as one text block."""
        blocks: list[ContentBlock] = (
            [TextBlock(type="text", text=self.content)] if isinstance(self.content, str) else self.content
        )
        if block_type is None:
            return blocks
        wanted = {block_type} if isinstance(block_type, str) else set(block_type)
        return [b for b in blocks if b.get("type") in wanted]

    def has_content_blocks(self, block_type: str | Sequence[str] | None = None) -> bool:
        return len(self.get_content_blocks(block_type)) > 0


# --- the one conversion to the OpenAI chat format -------------------------------------------------


def to_openai_messages(msgs: Iterable[Msg], *, vision: bool = True) -> list[dict[str, Any]]:
    """OpenAI chat ``messages`` for these Msgs.

    Text blocks are joined into the content string; with ``vision`` images become ``image_url``
    parts, otherwise a short ``[image: ...]`` note. Thinking blocks are dropped (never sent back).
    Tool use blocks become the assistant message's ``tool_calls``; each tool result becomes a ``tool``
    message (images in a result, which a tool message cannot hold, follow as a user message).
    """
    out: list[dict[str, Any]] = []
    for msg in msgs:
        out.extend(_convert(msg, vision))
    return out


def _convert(msg: Msg, vision: bool) -> list[dict[str, Any]]:
    if isinstance(msg.content, str):
        return [{"role": msg.role, "content": msg.content}]
    parts: list[dict[str, Any]] = []
    tool_calls: list[dict[str, Any]] = []
    after: list[dict[str, Any]] = []
    for block in msg.content:
        kind = block.get("type")
        if kind == "text":
            parts.append({"type": "text", "text": block.get("text", "")})
        elif kind == "image":
            parts.append(_image_part(block, vision))  # type: ignore[arg-type]
        elif kind == "tool_use":
            tool = cast(ToolUseBlock, block)
            tool_calls.append(
                {
                    "id": tool["id"],
                    "type": "function",
                    "function": {
                        "name": tool["name"],
                        "arguments": tool.get("raw_input") or json.dumps(tool.get("input", {})),
                    },
                }
            )
        elif kind == "tool_result":
            after.extend(_tool_result_messages(block, vision))  # type: ignore[arg-type]
        # "thinking" and unknown blocks (audio, video) are not sent.
    if msg.role != "assistant" and tool_calls:
        # Only assistant messages may carry tool calls: say in words what was called.
        parts.extend({"type": "text", "text": f"[called {c['function']['name']}]"} for c in tool_calls)
        tool_calls = []
    message: dict[str, Any] = {"role": msg.role, "content": _join_parts(parts, msg.role)}
    if tool_calls:
        message["tool_calls"] = tool_calls
    result = [message] if parts or tool_calls or not after else []
    return result + after


def _join_parts(parts: list[dict[str, Any]], role: str) -> str | list[dict[str, Any]]:
    # Plain text stays a string: every server takes it, and it keeps the prompt prefix byte-stable.
    if role != "user" or all(p["type"] == "text" for p in parts):
        return "\n".join(p["text"] for p in parts if p["type"] == "text")
    return parts


def _image_part(block: ImageBlock, vision: bool) -> dict[str, Any]:
    source: Any = block.get("source", {})  # a loaded Msg's block may lack any key
    if source.get("type") == "url":
        url = str(source.get("url", ""))
        label = url if not url.startswith("data:") else "inline image"
    else:
        data = str(source.get("data", ""))
        media_type = str(source.get("media_type", "image/png"))
        url = data if data.startswith("data:") else f"data:{media_type};base64,{data}"
        label = f"{media_type} image"
    if not vision:
        return {"type": "text", "text": f"[image: {label}]"}
    return {"type": "image_url", "image_url": {"url": url}}


def _tool_result_messages(block: ToolResultBlock, vision: bool) -> list[dict[str, Any]]:
    output = block.get("output", "")
    if isinstance(output, str):
        return [{"role": "tool", "tool_call_id": block["id"], "content": output}]
    texts = [str(b.get("text", "")) for b in output if b.get("type") == "text"]
    images = [_image_part(b, vision) for b in output if b.get("type") == "image"]  # type: ignore[arg-type]
    messages: list[dict[str, Any]] = [
        {"role": "tool", "tool_call_id": block["id"], "content": "\n".join(texts)}
    ]
    if images:
        if vision:
            intro = {
                "type": "text",
                "text": f"Images from {block.get('name', 'the tool')} call {block['id']}:",
            }
            messages.append({"role": "user", "content": [intro, *images]})
        else:
            messages[0]["content"] = "\n".join([*texts, *(p["text"] for p in images)])
    return messages


# --- Post <-> Msg (agentscope.md §5.2) -----------------------------------------------------------

_THINKING_TYPES = {"thought"}
_CODE_TYPES = {"reply_content"}
_RESULT_TYPES = {"execution_status", "execution_result", "code_error", "artifact_paths"}
_IMAGE_TYPES = {"image_url", "web_exploring_screenshot"}
_HIDDEN_TYPES = {"shared_memory_entry"}  # metadata only, never shown to the model as a block


def post_to_msg(post: Post, *, round_id: str | None = None) -> Msg:
    """The Msg for a Post: message and attachments as blocks, everything else in ``metadata["twnb"]``."""
    blocks: list[ContentBlock] = [TextBlock(type="text", text=post.message)]
    entries: list[dict[str, Any]] = []
    reply_type = next((a.content for a in post.attachment_list if a.type.value == "reply_type"), None)
    call_id = _call_id(post)
    result_index: int | None = None
    for attachment in post.attachment_list:
        kind = attachment.type.value
        extra = attachment.extra
        if isinstance(extra, SharedMemoryEntry):
            extra = extra.to_dict()
        entry: dict[str, Any] = {
            "id": attachment.id,
            "type": kind,
            "block": None,
            "extra": copy.deepcopy(extra),
        }
        block: ContentBlock | None = None
        content = attachment.content
        if kind in _RESULT_TYPES:
            if result_index is None:
                result_index = len(blocks)
                blocks.append(ToolResultBlock(type="tool_result", id=call_id, name="python", output=[]))
            if kind == "execution_result":
                result_block = cast(ToolResultBlock, blocks[result_index])
                output = cast(list[TextBlock | ImageBlock], result_block["output"])
                output.append(TextBlock(type="text", text=_text(content)))
                output.extend(_images_in_outputs(attachment.extra))
                entry["block"] = result_index
        elif kind in _CODE_TYPES and reply_type in (None, "python"):
            block = ToolUseBlock(
                type="tool_use",
                id=call_id,
                name="python",
                input={"code": _text(content)},
                raw_input=_text(content),
            )
        elif kind == "function":
            block = _function_block(attachment.id, content)
        elif kind in _THINKING_TYPES:
            block = ThinkingBlock(type="thinking", thinking=_text(content))
        elif kind in _IMAGE_TYPES and isinstance(content, str) and content.startswith(("http", "data:")):
            block = ImageBlock(type="image", source=URLSource(type="url", url=content))
        elif kind not in _HIDDEN_TYPES and kind != "reply_type" and isinstance(content, str):
            block = TextBlock(type="text", text=content)
        if block is not None:
            entry["block"] = len(blocks)
            blocks.append(block)
        entries.append(entry)
    # Checked once every block is complete: a tool result gathers the text of several attachments.
    for entry, attachment in zip(entries, post.attachment_list, strict=True):
        index, content = entry["block"], attachment.content
        if index is None or _content_from_block(entry["type"], blocks[index]) != content:
            entry["content"] = copy.deepcopy(content)
    twnb: dict[str, Any] = {"send_to": post.send_to, "attachments": entries}
    if post.extra:
        twnb["extra"] = copy.deepcopy(post.extra)
    if round_id is not None:
        twnb["round_id"] = round_id
    role: Role = "user" if post.send_from == "User" else "assistant"
    msg = Msg(post.send_from, role, blocks, {"twnb": twnb})
    msg.id = post.id
    return msg


def msg_to_post(msg: Msg) -> Post:
    """The Post a :func:`post_to_msg` Msg came from, field by field (ids included)."""

    twnb = msg.metadata.get("twnb")
    if not isinstance(twnb, dict):
        # A Msg made elsewhere: its text is the message, no attachments.
        return Post(
            id=msg.id,
            send_from=msg.name,
            send_to="Unknown",
            message=msg.get_text_content() or "",
            attachment_list=[],
        )
    blocks = msg.get_content_blocks()
    attachments = []
    for entry in twnb.get("attachments", []):
        kind = entry["type"]
        if "content" in entry:
            content = copy.deepcopy(entry["content"])
        else:
            content = _content_from_block(kind, blocks[entry["block"]])
        data = {
            "id": entry["id"],
            "type": kind,
            "content": content,
            "extra": copy.deepcopy(entry.get("extra")),
        }
        if kind == "text":  # a valid member that TaskWeaver's from_dict refuses as deprecated
            attachments.append(Attachment(entry["id"], AttachmentType.text, content, data["extra"]))
        else:
            attachments.append(Attachment.from_dict(data))
    first = blocks[0] if blocks else None
    message = str(first.get("text", "")) if first and first.get("type") == "text" else ""
    return Post(
        id=msg.id,
        send_from=msg.name,
        send_to=twnb.get("send_to", "Unknown"),
        message=message,
        attachment_list=attachments,
        extra=cast(PostExtra, copy.deepcopy(twnb.get("extra") or {})),
    )


def _call_id(post: Post) -> str:
    """The id linking a Post's code (tool use) to its result: the code attachment's id."""
    for attachment in post.attachment_list:
        if attachment.type.value in _CODE_TYPES or attachment.type.value in _RESULT_TYPES:
            return attachment.id
    return post.id


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return json.dumps(content, ensure_ascii=False)


def _function_block(attachment_id: str, content: Any) -> ToolUseBlock:
    try:
        parsed = json.loads(content) if isinstance(content, str) else content
    except ValueError:
        parsed = None
    name = "function"
    arguments: Any = parsed
    if isinstance(parsed, dict) and isinstance(parsed.get("name"), str):
        name = parsed["name"]
        arguments = parsed.get("arguments", {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            arguments = {"arguments": arguments}
    if not isinstance(arguments, dict):
        arguments = {"value": arguments}
    return ToolUseBlock(
        type="tool_use", id=attachment_id, name=name, input=arguments, raw_input=_text(content)
    )


def _content_from_block(kind: str, content_block: ContentBlock) -> Any:
    block: Any = content_block  # a loaded Msg's block may lack any key: read each one with .get
    block_type = block.get("type")
    if block_type == "text":
        return block.get("text", "")
    if block_type == "thinking":
        return block.get("thinking", "")
    if block_type == "tool_use":
        return block.get("raw_input") if kind == "function" else block.get("input", {}).get("code", "")
    if block_type == "image":
        return block.get("source", {}).get("url")
    if block_type == "tool_result":
        output = block.get("output", "")
        if isinstance(output, str):
            return output
        return "\n".join(b.get("text", "") for b in output if b.get("type") == "text")
    return None


def _images_in_outputs(extra: Any) -> list[ImageBlock]:
    """Images among captured nbformat outputs (``execution_result.extra["outputs"]``)."""
    if not isinstance(extra, dict):
        return []
    images: list[ImageBlock] = []
    for output in extra.get("outputs") or []:
        data = output.get("data") if isinstance(output, dict) else None
        if not isinstance(data, dict):
            continue
        for media_type in ("image/png", "image/jpeg"):
            payload = data.get(media_type)
            if isinstance(payload, str):
                b64 = payload.replace("\n", "")
                images.append(
                    ImageBlock(
                        type="image", source=Base64Source(type="base64", media_type=media_type, data=b64)
                    )
                )
                break
    return images
