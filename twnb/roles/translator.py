"""LLM reply text <-> Post, TaskWeaver's ``PostTranslator`` (docs/architecture.md, contract 3).

A reply is one JSON object ``{"response": {...}}`` (found amid think blocks, code fences and prose by
:mod:`twnb.roles.json_stream`). In the Post it becomes:

- ``message``: the Post's message, streamed as :class:`MessageDelta` events;
- ``send_to``: the Post's ``send_to``, set once its value is complete (no event: the view learns it
  from ``PostCommitted``);
- any other key that names an :class:`AttachmentType`: one Attachment, created (and announced with an
  empty :class:`AttachmentDelta`) as soon as the key is known, then streamed piece by piece; a repeated
  key gives a second attachment of that type, as TaskWeaver's ``post_to_raw_text`` renders them;
- any other key: its text is kept in ``post.extra["unknown_keys"][key]`` and logged, never an error
  here (a role that forbids it passes ``validate``);
- non-string values: their JSON text (``"12"``, ``"true"``, nested values as ``json.dumps``); JSON
  ``null`` gives an empty ``message``/``send_to`` and the text ``"null"`` elsewhere;
- think-block text: ``post.extra["reasoning"]``, capped at :data:`REASONING_CAP` characters, never in
  the message or an attachment (so it never reaches a prompt through ``post_to_raw_text``).

The raw reply: always on :class:`TranslationError` (``.raw_text``); on success only when asked
(``keep_raw_text=True`` puts it in ``post.extra["raw_text"]``), so saved conversations do not carry
every reply twice.

Events: :meth:`PostTranslator.raw_text_to_post` emits only the deltas of the attempt it translates.
``PostStarted``, ``PostRetry`` and ``PostCommitted`` belong to the role, which owns the Post's life.

Retrying (after a dropped stream or an invalid reply; docs/architecture.md, "A Round's data flow");
``LLMTurn`` (:mod:`twnb.roles.llm_turn`) does this, in outline::

    post_id = new_post_id()
    observer.on_event(PostStarted(post_id, role, "Unknown"))
    for attempt in range(attempts):
        stream = client.stream(messages, model=model, role=role)
        try:
            post = translator.raw_text_to_post(stream, role, observer, post_id=post_id,
                                               required_keys=REQUIRED, validate=check)
            break  # only a complete attempt is committed
        except (TranslationError, LLMStreamDropped) as err:
            dropped.append(getattr(err, "raw_text", None) or stream.raw_text)  # kept in extra
            observer.on_event(PostRetry(post_id, str(err)))  # the view clears that post
    observer.on_event(PostCommitted(post))

Each attempt builds a fresh scratch Post with the same ``post_id``, so nothing of a failed attempt is
left in the committed Post; the events of every attempt carry that one id, so the view that cleared
the post on ``PostRetry`` fills it again. ``post_id`` is the whole hook: nothing else is needed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from twnb.base import get_logger
from twnb.memory import Attachment, AttachmentDelta, AttachmentType, MessageDelta, Observer, Post
from twnb.roles.errors import TranslationError
from twnb.roles.json_stream import JsonStreamError, ReplyEvent, ReplyStreamParser, parse_reply_stream

__all__ = ["OUTPUT_KEYS", "REASONING_CAP", "PostTranslator", "TranslationError"]

logger = get_logger(__name__)

#: Characters of think-block text kept in ``post.extra["reasoning"]``.
REASONING_CAP = 20_000

#: Keys that may appear under "response": every attachment type, plus message and send_to. They are
#: also the first keys that let a reply without the "response" wrapper be accepted (json_stream).
OUTPUT_KEYS: frozenset[str] = frozenset({t.value for t in AttachmentType} | {"message", "send_to"})

_REPLY_SHAPE = 'Reply with exactly one JSON object of the form {"response": {...}}.'

_MESSAGE, _SEND_TO, _ATTACHMENT, _UNKNOWN = range(4)


class _PostBuilder:
    """Applies parser events to a scratch Post, emitting delta events as pieces arrive."""

    def __init__(self, post: Post, observer: Observer | None, parser: ReplyStreamParser) -> None:
        self.post = post
        self.observer = observer
        self.parser = parser
        self.seen: list[str] = []
        #: The current value's pieces, and how to announce a new (not final) piece of it.
        self.parts: list[str] = []
        self.emit_piece: Callable[[str], None] | None = None
        self._kind = _UNKNOWN
        self._key = ""
        self._message_parts: list[str] = []
        self._attachment: Attachment | None = None
        self._open = False  # a value has started and not ended

    def apply(self, events: list[ReplyEvent]) -> None:
        observer = self.observer
        for key, text, is_end in events:
            if not is_end and not text:
                self._start(key)
                continue
            kind = self._kind
            if kind == _MESSAGE:
                if is_end and text == "null" and not self.parts and key in self.parser.null_keys:
                    text = ""
                self.parts.append(text)
                if observer is not None:
                    observer.on_event(MessageDelta(self.post.id, text, is_end))
            else:
                self.parts.append(text)
                if kind == _ATTACHMENT and observer is not None:
                    attachment = self._attachment
                    assert attachment is not None
                    observer.on_event(
                        AttachmentDelta(self.post.id, attachment.id, attachment.type, text, is_end)
                    )
            if is_end:
                self._finish()

    def _start(self, key: str) -> None:
        self.seen.append(key)
        self._key = key
        self.parts = []
        self.emit_piece = None
        self._open = True
        observer, post_id = self.observer, self.post.id
        if key == "message":
            self._kind = _MESSAGE
            if observer is not None:
                self.emit_piece = lambda text: observer.on_event(MessageDelta(post_id, text, False))
            if self._message_parts:
                # A repeated "message" key continues the message on a new line.
                self.parts.append("\n")
                if observer is not None:
                    observer.on_event(MessageDelta(post_id, "\n", False))
        elif key == "send_to":
            self._kind = _SEND_TO
        elif key in OUTPUT_KEYS:
            self._kind = _ATTACHMENT
            attachment = Attachment.create(AttachmentType(key), "")
            self._attachment = attachment
            self.post.add_attachment(attachment)
            if observer is not None:
                att_id, att_type = attachment.id, attachment.type
                self.emit_piece = lambda text: observer.on_event(
                    AttachmentDelta(post_id, att_id, att_type, text, False)
                )
                observer.on_event(AttachmentDelta(post_id, att_id, att_type, "", False))
        else:
            self._kind = _UNKNOWN
            logger.warning(
                "reply key %r is not an attachment type; its text is kept in post.extra['unknown_keys']",
                key,
            )

    def _finish(self) -> None:
        """Write the current value into the Post (also for a value cut short, on error)."""
        if not self._open:
            return
        text = "".join(self.parts)
        kind = self._kind
        if kind == _MESSAGE:
            self._message_parts.append(text)
            self.post.message = "".join(self._message_parts)
        elif kind == _SEND_TO:
            null = text == "null" and self._key in self.parser.null_keys
            self.post.send_to = "" if null else text
        elif kind == _ATTACHMENT:
            attachment = self._attachment
            assert attachment is not None
            if attachment.type is AttachmentType.artifact_paths:
                attachment.content = _artifact_paths(text)
            else:
                attachment.content = text
        else:
            self.post.extra.setdefault("unknown_keys", {})[self._key] = text
        self._open = False

    def finish_partial(self) -> None:
        """On error: keep what arrived of the value in progress."""
        self._finish()
        self._add_reasoning()

    def _add_reasoning(self) -> None:
        parser = self.parser
        if not parser.reasoning_chars:
            return
        reasoning = parser.reasoning
        dropped = parser.reasoning_chars - len(reasoning)
        if dropped > 0:
            reasoning += f"\n[... {dropped} more characters of reasoning not kept]"
        self.post.extra["reasoning"] = reasoning

    def finish(self) -> None:
        self._add_reasoning()


def _artifact_paths(text: str) -> list[str]:
    """artifact_paths content is a list of paths: a JSON array's strings, or one path."""
    if text.startswith("["):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, list):
            return [str(item) for item in value]
    return [text] if text else []


class PostTranslator:
    """Translates between LLM reply text and Posts. Holds no state: one instance serves every role."""

    def parse_llm_output_stream(self, chunks: Iterable[str]) -> Iterator[tuple[str, str, bool]]:
        """``(key, text_delta, is_end)`` for each key under "response", as the chunks arrive.

        ``(key, "", False)`` comes first for each key, so a view can show the attachment at once.
        Raises :class:`~twnb.roles.json_stream.JsonStreamError` (a ``ValueError``) at the end when the
        reply held no complete object, after yielding everything that was valid.
        """
        if isinstance(chunks, str):
            chunks = (chunks,)
        return parse_reply_stream(chunks, bare_keys=OUTPUT_KEYS)

    def raw_text_to_post(
        self,
        chunks: Iterable[str],
        send_from: str,
        observer: Observer | None = None,
        *,
        post_id: str | None = None,
        send_to: str = "Unknown",
        validate: Callable[[Post], None] | None = None,
        required_keys: Iterable[str] = (),
        keep_raw_text: bool = False,
    ) -> Post:
        """Translate one attempt's streamed reply into a new Post, emitting deltas to ``observer``.

        ``send_to`` is the default when the reply has no "send_to" key. ``required_keys`` must all
        appear under "response"; then ``validate(post)`` may raise (``ValueError``, ``AssertionError``
        or :class:`TranslationError`) for a role's own rules. Every failure is a
        :class:`TranslationError` carrying the partial Post and the raw text. An exception from
        ``chunks`` itself (a dropped stream) propagates unchanged: the stream holds its raw text.
        """
        if isinstance(chunks, str):
            chunks = (chunks,)
        post = Post.create("", send_from, send_to)
        if post_id is not None:
            post.id = post_id
        parser = ReplyStreamParser(bare_keys=OUTPUT_KEYS, reasoning_cap=REASONING_CAP)
        builder = _PostBuilder(post, observer, parser)
        raw: list[str] = []
        append, feed, apply = raw.append, parser.feed, builder.apply
        add_piece, emit_piece = builder.parts.append, builder.emit_piece
        for chunk in chunks:
            append(chunk)
            # Hot path: a chunk of plain text inside an open string value (parser.open_string_key).
            if parser.open_string_key is not None and chunk and '"' not in chunk and "\\" not in chunk:
                add_piece(chunk)
                if emit_piece is not None:
                    emit_piece(chunk)
                continue
            events = feed(chunk)
            if events:
                apply(events)
                add_piece, emit_piece = builder.parts.append, builder.emit_piece
        try:
            apply(parser.close())
        except JsonStreamError as exc:
            builder.finish_partial()
            raise TranslationError(
                f"{_capitalized(str(exc))}. {_REPLY_SHAPE}",
                kind=exc.kind,
                partial_post=post,
                raw_text="".join(raw),
            ) from exc
        builder.finish()
        if not parser.wrapped:
            logger.info('reply from %s had no "response" wrapper; accepted its object as is', send_from)

        missing = [key for key in dict.fromkeys(required_keys) if key not in builder.seen]
        if missing:
            present = ", ".join(f'"{key}"' for key in dict.fromkeys(builder.seen)) or "none"
            raise TranslationError(
                f'The "response" object is missing the required key(s) '
                f"{', '.join(_quoted(k) for k in missing)} (it has: {present}).",
                kind="missing_keys",
                partial_post=post,
                raw_text="".join(raw),
            )
        if validate is not None:
            try:
                validate(post)
            except TranslationError as exc:
                if exc.partial_post is None:
                    exc.partial_post = post
                if not exc.raw_text:
                    exc.raw_text = "".join(raw)
                raise
            except (ValueError, AssertionError) as exc:
                raise TranslationError(
                    str(exc) or type(exc).__name__,
                    kind="invalid_value",
                    partial_post=post,
                    raw_text="".join(raw),
                ) from exc
        if keep_raw_text:
            post.extra["raw_text"] = "".join(raw)
        return post

    def post_to_raw_text(
        self,
        post: Post,
        content_formatter: Callable[[Attachment], Any] = lambda a: a.content,
        if_format_message: bool = True,
        if_format_send_to: bool = True,
        ignored_types: Iterable[AttachmentType | str] | None = None,
    ) -> str:
        """The Post as the JSON text the model would have written (prompt history), TaskWeaver's shape.

        Attachments in order (a repeated type joined with a newline), then "send_to", then "message";
        ``shared_memory_entry`` attachments and ``ignored_types`` are left out (``ignored_types`` is
        not modified). A list content (``artifact_paths``) becomes its items, one per line.
        """
        ignored = {AttachmentType(t) for t in ignored_types or ()}
        ignored.add(AttachmentType.shared_memory_entry)
        structured: dict[str, str] = {}
        for attachment in post.attachment_list:
            if attachment.type in ignored:
                continue
            text = _as_text(content_formatter(attachment))
            key = attachment.type.value
            structured[key] = structured[key] + "\n" + text if key in structured else text
        if if_format_send_to:
            structured["send_to"] = post.send_to
        if if_format_message:
            structured["message"] = post.message
        return json.dumps({"response": structured})


def _quoted(key: str) -> str:
    return f'"{key}"'


def _as_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list | tuple):
        return "\n".join(str(item) for item in content)
    if content is None:
        return ""
    if isinstance(content, dict):
        return json.dumps(content)
    return str(content)


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]
