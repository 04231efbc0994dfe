"""Incremental parser for an LLM reply that carries one JSON object ``{"response": {...}}``.

Why a hand-written parser: the reply arrives as a stream of small text chunks and every member of the
``response`` object must reach the Post (and the widget) as it arrives. Re-parsing the growing buffer
on every chunk (jiter's partial mode, say) is quadratic; this parser is a character-level push-down
state machine that keeps its state between chunks, so a reply costs time linear in its length whatever
the chunk size. Runs of plain string characters are skipped with ``str.find`` rather than a Python
loop per character, and a chunk that lies wholly inside a member's string value takes a fast path.

What it accepts around the object (real models emit all of these; TaskWeaver's parser fails on them):

- ``<think>...</think>`` and ``<thinking>...</thinking>`` blocks: their text is collected as
  :attr:`ReplyStreamParser.reasoning` (capped), never emitted as a member. A closing tag without an
  opening one (some servers put ``<think>`` in the prompt template) makes the prose before it reasoning.
  JSON inside a think block is ignored: a model's draft is not its answer.
- Markdown code fences (three backticks + ``json``) and prose before or after the object: the text
  outside the object is skipped; everything after the object is ignored.
- Which object counts: the first top-level JSON object that has a ``"response"`` member whose value is
  an object. Another object before it (an example in the prose, say) is parsed and skipped; text that
  merely starts with ``{`` but is not JSON is skipped as prose.
- A forgotten wrapper, accepted only when unambiguous: when the first key of a top-level object is one
  of ``bare_keys`` (the translator passes the known output keys: ``thought``, ``message``, ``plan``...),
  that object is taken as the ``response`` object itself. An object whose first key is anything else is
  never taken as the reply, so ``{"name": "x"}`` in the prose cannot be mistaken for it.

Values: string members stream as decoded pieces (escapes decoded correctly even when split across
chunks; a lone UTF-16 surrogate escape becomes U+FFFD so the text stays encodable); numbers, booleans
and null are emitted once complete as their JSON text exactly as written (``true``, ``12.50``); nested
objects and arrays are emitted once complete as ``json.dumps`` of their value. Raw control characters
inside strings (a literal newline) are accepted, as ``json.loads(strict=False)`` does, because models
write them; everything else must be strict JSON.

Events are ``(key, text, is_end)`` tuples, TaskWeaver's shape: ``(key, "", False)`` as soon as a key
under ``response`` is known, then the value's pieces, the last one with ``is_end=True``.
:meth:`ReplyStreamParser.feed` never raises; a syntax error stops the parse and
:meth:`ReplyStreamParser.close` raises :class:`JsonStreamError` (as it does for a missing or truncated
object), so a caller can keep draining the stream for its raw text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from json.decoder import scanstring as _scanstring  # type: ignore[attr-defined]  # C speedup, untyped
from typing import Literal

ReplyEvent = tuple[str, str, bool]
ErrorKind = Literal["missing", "truncated", "invalid"]

DEFAULT_REASONING_CAP = 20_000

# Envelope modes: where in the reply the parser is.
_PROSE, _THINK, _JSON, _AFTER, _FAILED = range(5)
# JSON states.
_VALUE, _OBJ_FIRST, _OBJ_KEY, _COLON, _OBJ_NEXT, _ARR_FIRST, _ARR_NEXT, _STRING, _NUMBER, _LITERAL = range(10)
# What a string is for: a member value (streamed), a key whose text matters, or nothing (skipped).
_S_MEMBER, _S_KEY, _S_SKIP = range(3)

_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX = frozenset("0123456789abcdefABCDEF")
_WS = frozenset(" \t\r\n")
_NUM_CHARS = re.compile(r"[0-9eE.+\-]*")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+\-]?[0-9]+)?\Z")
_LIT_CHARS = re.compile(r"[A-Za-z]*")
_LITERALS = frozenset(("true", "false", "null"))
_ANY_VALUE = "a value (a string in double quotes, a number, true, false, null, an object or an array)"
_SURROGATE = re.compile("[\ud800-\udfff]")
_PROSE_SPECIAL = re.compile(r"[{<]")
_OPEN_TAGS = {"<think>": "</think>", "<thinking>": "</thinking>"}
_CLOSE_TAGS = ("</think>", "</thinking>")
_ALL_TAGS = (*_OPEN_TAGS, *_CLOSE_TAGS)
_LONGEST_TAG = max(len(t) for t in _ALL_TAGS)


class JsonStreamError(ValueError):
    """The reply holds no usable JSON object: ``kind`` is ``missing``, ``truncated`` or ``invalid``.

    The message says what is wrong in words a role can quote back to the model.
    """

    def __init__(self, message: str, kind: ErrorKind) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind


def _incomplete_escape_len(text: str) -> int:
    """Length of an escape cut off at the end of string content ``text`` (0 when none)."""
    n = len(text)
    k = text.rfind("\\", n - 6 if n > 6 else 0)
    if k < 0:
        return 0
    j = k
    while j > 0 and text[j - 1] == "\\":
        j -= 1
    if (k - j) % 2 == 1:
        return 0  # text[k] is the second half of an escaped backslash
    rest = n - k - 1
    if rest == 0 or (text[k + 1] == "u" and rest < 5):
        return n - k
    return 0


def _show(ch: str) -> str:
    return "end of text" if not ch else repr(ch)


def _kind_of_value(first: str) -> str:
    """Name the kind of JSON value that starts with ``first``."""
    if first == '"':
        return "a string"
    if first == "[":
        return "an array"
    if first == "-" or first.isdigit():
        return "a number"
    return {"t": "a boolean", "f": "a boolean", "n": "null"}.get(first, repr(first))


class ReplyStreamParser:
    """Feed reply chunks in order; get ``(key, text, is_end)`` events for the members of ``response``.

    ``bare_keys``: first keys that mark a top-level object as the response object itself (the model
    forgot the wrapper). Empty: the wrapper is required.

    Why one class of some 600 lines: it is one push-down state machine over one position in the
    chunk. The envelope (prose, think blocks) and the JSON states hand over to each other mid-chunk,
    and the JSON states decide which object is the reply (the wrapper, bare keys, skipped objects
    named in the error) as they read it; split apart, each hand-over and each string piece would
    cross an object boundary on the per-chunk hot path this parser exists to keep linear and fast.
    """

    def __init__(
        self,
        wrapper_key: str = "response",
        bare_keys: Iterable[str] = (),
        reasoning_cap: int = DEFAULT_REASONING_CAP,
    ) -> None:
        self.wrapper_key = wrapper_key
        self.bare_keys = frozenset(bare_keys) - {wrapper_key}
        self.reasoning_cap = reasoning_cap
        self._reasoning_parts: list[str] = []
        self._reasoning_kept = 0
        #: Characters of reasoning seen, kept or not.
        self.reasoning_chars = 0
        #: True once the object was found (the wrapper's value or a bare object began).
        self.found = False
        #: True once the object is complete; whatever follows is ignored.
        self.complete = False
        #: False when the object was accepted without its "response" wrapper.
        self.wrapped = True
        #: Keys under "response" whose value was JSON null (their text is "null").
        self.null_keys: set[str] = set()
        self.error: JsonStreamError | None = None

        self._mode = _PROSE
        self._carry = ""  # a possible tag split across chunks
        self._prose_parts: list[str] = []
        self._close_tag = ""
        # Notes on skipped objects, to say in the error what was found instead.
        self._skipped_keys: list[str] = []
        self._wrapper_not_object = ""
        self._single_quoted = False  # a candidate object was refused for a single-quoted key

        # Set while inside a member string with no escape or surrogate pending: chunks take a fast path.
        self._member_key: str | None = None
        #: The key whose string value is open with nothing pending (no partial escape, tag or
        #: surrogate). While it is set, a chunk with neither '"' nor a backslash is wholly the next
        #: piece of that value: ``feed`` would return ``[(open_string_key, chunk, False)]`` and change
        #: nothing, so a caller on a hot path may skip the call.
        self.open_string_key: str | None = None
        self._reset_json()

    # ------------------------------------------------------------------ public

    @property
    def reasoning(self) -> str:
        """The think-block text, at most ``reasoning_cap`` characters (the beginning is kept)."""
        return "".join(self._reasoning_parts)

    def feed(self, chunk: str) -> list[ReplyEvent]:
        """Consume the next piece of the reply and return the events it completes."""
        key = self.open_string_key
        if key is not None and chunk and '"' not in chunk and "\\" not in chunk:
            return [(key, chunk, False)]
        if self._member_key is not None and chunk:
            return self._feed_member(chunk)
        return self._feed(chunk)

    def _feed_member(self, chunk: str) -> list[ReplyEvent]:
        """Inside a member string: decode complete escapes with the json module's C string scanner.

        An escape cut by the chunk's end waits in the carry for the next chunk; a surrogate escape
        (whose halves may pair across chunks) or an invalid escape takes the general path.
        """
        key = self._member_key
        assert key is not None
        text = self._carry + chunk if self._carry else chunk
        self._carry = ""
        tail = _incomplete_escape_len(text)
        body = text[: len(text) - tail] if tail else text
        out: list[ReplyEvent] = []
        if body:
            try:
                decoded, end = _scanstring(body + '"', 0, False)
            except ValueError:  # an invalid escape: the general path words the error
                return self._feed(text)
            if "\\u" in body and _SURROGATE.search(decoded):
                return self._feed(text)
            if end <= len(body):
                # The string closed inside this chunk: the general path takes the rest.
                self._state = _OBJ_NEXT
                self.open_string_key = self._member_key = None
                out.append((key, decoded, True))
                out += self._feed(text[end:])
                return out
            out.append((key, decoded, False))
        if tail:
            self._carry = text[len(text) - tail :]
            self.open_string_key = None
        else:
            self.open_string_key = key
        return out

    def close(self) -> list[ReplyEvent]:
        """Mark the end of the reply: raise :class:`JsonStreamError` unless the object was complete."""
        events: list[ReplyEvent] = []
        if self._carry:
            # An unfinished tag at the very end is just text.
            carry, self._carry = self._carry, ""
            if self._mode == _THINK:
                self._add_reasoning(carry)
            elif self._mode == _PROSE:
                self._prose_parts.append(carry)
        self.open_string_key = self._member_key = None
        mode = self._mode
        if mode == _AFTER:
            return events
        if mode == _FAILED:
            assert self.error is not None
            raise self.error
        if mode == _JSON and self.found:
            self.error = JsonStreamError(
                f"the reply ended before the JSON object was complete ({self._where()})", "truncated"
            )
        elif mode == _JSON:
            self.error = JsonStreamError(
                'the reply ended inside a JSON object before any "response" object began', "truncated"
            )
        elif mode == _THINK:
            self.error = JsonStreamError(
                f"the reply ended inside a {self._close_tag.replace('/', '')} block; "
                "it contains no JSON object after it",
                "missing",
            )
        elif self._wrapper_not_object:
            self.error = JsonStreamError(
                f'the value of "{self.wrapper_key}" must be a JSON object, found {self._wrapper_not_object}',
                "invalid",
            )
        elif self._skipped_keys:
            shown = ", ".join(f'"{k}"' for k in self._skipped_keys[:8])
            self.error = JsonStreamError(
                f'the reply has a JSON object but no "{self.wrapper_key}" object in it (its keys: {shown})',
                "missing",
            )
        elif self._single_quoted:
            self.error = JsonStreamError(
                "the reply contains no JSON object: its object uses single quotes, "
                "but JSON keys and strings need double quotes",
                "missing",
            )
        else:
            self.error = JsonStreamError("the reply contains no JSON object", "missing")
        raise self.error

    # ------------------------------------------------------------------ envelope

    def _reset_json(self) -> None:
        self._stack: list[str] = []
        self._state = _VALUE
        self._member_depth = 0  # len(stack) inside the response object; 0 before, -1 after it
        self._key = ""  # the current member's key
        self._root_first_key = True
        self._wrapper_pending = False
        self._str_role = _S_SKIP
        self._in_key = False
        self._str_parts: list[str] = []
        self._esc = ""  # an escape split across chunks, backslash included
        self._hi = 0  # a high surrogate waiting for its low half
        self._scalar = ""  # a number or literal split across chunks
        self._cap_parts: list[str] | None = None  # raw text of a nested member value
        self._cap_start = 0

    def _feed(self, chunk: str) -> list[ReplyEvent]:
        out: list[ReplyEvent] = []
        s = chunk
        if self._carry:
            s = self._carry + s
            self._carry = ""
        i, n = 0, len(s)
        while i < n:
            mode = self._mode
            if mode == _JSON:
                i = self._json(s, i, out)
            elif mode == _PROSE:
                i = self._prose(s, i)
            elif mode == _THINK:
                i = self._think(s, i)
            else:
                break
        if (
            self._mode == _JSON
            and self._state == _STRING
            and self._str_role == _S_MEMBER
            and not self._esc
            and not self._hi
        ):
            self.open_string_key = self._member_key = self._key
        else:
            self.open_string_key = self._member_key = None
        return out

    def _add_reasoning(self, text: str) -> None:
        if not text:
            return
        self.reasoning_chars += len(text)
        room = self.reasoning_cap - self._reasoning_kept
        if room > 0:
            kept = text[:room]
            self._reasoning_parts.append(kept)
            self._reasoning_kept += len(kept)

    def _prose(self, s: str, i: int) -> int:
        n = len(s)
        m = _PROSE_SPECIAL.search(s, i)
        if m is None:
            self._prose_parts.append(s[i:])
            return n
        j = m.start()
        if j > i:
            self._prose_parts.append(s[i:j])
        if s[j] == "{":
            self._reset_json()
            self._stack.append("{")
            self._state = _OBJ_FIRST
            self._mode = _JSON
            return j + 1
        for tag in _ALL_TAGS:
            if s.startswith(tag, j):
                if tag in _OPEN_TAGS:
                    self._close_tag = _OPEN_TAGS[tag]
                    self._mode = _THINK
                else:
                    # A closing tag with no opening one: what came before was reasoning.
                    for part in self._prose_parts:
                        self._add_reasoning(part)
                self._prose_parts = []
                return j + len(tag)
        rest = s[j:]
        if len(rest) < _LONGEST_TAG and any(t.startswith(rest) for t in _ALL_TAGS):
            self._carry = rest
            return n
        self._prose_parts.append("<")
        return j + 1

    def _think(self, s: str, i: int) -> int:
        n = len(s)
        tag = self._close_tag
        j = s.find(tag, i)
        if j >= 0:
            self._add_reasoning(s[i:j])
            self._mode = _PROSE
            return j + len(tag)
        k = s.rfind("<", max(i, n - len(tag) + 1))
        if k >= 0 and tag.startswith(s[k:]):
            self._add_reasoning(s[i:k])
            self._carry = s[k:]
        else:
            self._add_reasoning(s[i:])
        return n

    # ------------------------------------------------------------------ JSON

    def _where(self) -> str:
        """Where the parser is, for error messages."""
        depth, member, st = len(self._stack), self._member_depth, self._state
        if member > 0 and depth > member:
            return f'inside the value of "{self._key}"'
        if member > 0 and depth == member:
            if st == _STRING and self._in_key:
                return f'in a key of the "{self.wrapper_key}" object'
            if st == _COLON:
                return f'after the key "{self._key}"'
            if st in (_VALUE, _STRING, _NUMBER, _LITERAL):
                return f'in the value of "{self._key}"'
            if st == _OBJ_NEXT:
                return f'after the value of "{self._key}"'
            return f'in the "{self.wrapper_key}" object'
        return "in the outer JSON object"

    def _syntax_error(self, s: str, i: int, expected: str) -> int:
        """Reject a candidate object, or fail the parse once the response object was found."""
        ch = s[i] if i < len(s) else ""
        if not self.found:
            # Not the reply after all (a brace in prose): go on scanning from the offending char.
            if ch == "'" and self._state in (_OBJ_FIRST, _OBJ_KEY):
                self._single_quoted = True  # Python's dict repr, most likely: say so if nothing else is found
            self._reset_json()
            self._mode = _PROSE
            return i
        self.error = JsonStreamError(
            f"invalid JSON {self._where()}: expected {expected}, found {_show(ch)}", "invalid"
        )
        self._mode = _FAILED
        self._cap_parts = None
        return len(s)

    def _json(self, s: str, i: int, out: list[ReplyEvent]) -> int:
        n = len(s)
        stack = self._stack
        while i < n:
            if self._mode != _JSON:
                return i
            st = self._state
            if st == _STRING:
                i = self._string(s, i, out)
                continue
            if st in (_NUMBER, _LITERAL):
                i = self._scalar_more(s, i, out)
                continue
            c = s[i]
            if c in _WS:
                i += 1
                continue
            if st == _OBJ_NEXT:
                if c == ",":
                    self._state = _OBJ_KEY
                    i += 1
                elif c == "}":
                    i = self._close(s, i, out)
                else:
                    return self._syntax_error(s, i, "',' or '}'")
            elif st == _ARR_NEXT:
                if c == ",":
                    self._state = _VALUE
                    i += 1
                elif c == "]":
                    i = self._close(s, i, out)
                else:
                    return self._syntax_error(s, i, "',' or ']'")
            elif st in (_OBJ_FIRST, _OBJ_KEY):
                if c == '"':
                    depth = len(stack)
                    if depth == self._member_depth or (depth == 1 and not self.found):
                        self._str_role = _S_KEY
                        self._str_parts = []
                    else:
                        self._str_role = _S_SKIP
                    self._state = _STRING
                    self._in_key = True
                    i += 1
                elif c == "}" and st == _OBJ_FIRST:
                    i = self._close(s, i, out)
                else:
                    return self._syntax_error(s, i, "a key in double quotes")
            elif st == _COLON:
                if c == ":":
                    self._state = _VALUE
                    i += 1
                else:
                    return self._syntax_error(s, i, "':'")
            else:  # _VALUE or _ARR_FIRST
                if c == "]" and st == _ARR_FIRST:
                    i = self._close(s, i, out)
                    continue
                i = self._begin_value(s, i, c, out)
        if self._mode != _JSON:
            return n
        # End of chunk: flush what is partial.
        if self._cap_parts is not None:
            self._cap_parts.append(s[self._cap_start :])
            self._cap_start = 0
        if self._state == _STRING and self._str_role == _S_MEMBER and self._str_parts:
            out.append((self._key, "".join(self._str_parts), False))
            self._str_parts = []
        return n

    def _begin_value(self, s: str, i: int, c: str, out: list[ReplyEvent]) -> int:
        stack = self._stack
        depth = len(stack)
        member = depth == self._member_depth
        if self._wrapper_pending:
            self._wrapper_pending = False
            if c == "{":
                self.found = True
                self._member_depth = 2
                stack.append("{")
                self._state = _OBJ_FIRST
                return i + 1
            self._wrapper_not_object = _kind_of_value(c)
        if c == '"':
            self._str_role = _S_MEMBER if member else _S_SKIP
            self._str_parts = []
            self._state = _STRING
            self._in_key = False
            return i + 1
        if c == "{" or c == "[":
            if member:
                self._cap_parts = []
                self._cap_start = i
            stack.append(c)
            self._state = _OBJ_FIRST if c == "{" else _ARR_FIRST
            return i + 1
        if c == "-" or "0" <= c <= "9":
            self._state = _NUMBER
            self._scalar = ""
            return self._scalar_more(s, i, out)
        if "a" <= c <= "z" or "A" <= c <= "Z":
            self._state = _LITERAL
            self._scalar = ""
            return self._scalar_more(s, i, out)
        return self._syntax_error(s, i, _ANY_VALUE)

    def _scalar_more(self, s: str, i: int, out: list[ReplyEvent]) -> int:
        number = self._state == _NUMBER
        m = (_NUM_CHARS if number else _LIT_CHARS).match(s, i)
        j = m.end() if m is not None else i  # both patterns match the empty string
        self._scalar += s[i:j]
        if j == len(s):
            return j  # may continue in the next chunk
        text = self._scalar
        self._scalar = ""
        if number:
            if not _JSON_NUMBER.match(text):
                return self._scalar_error(s, j, text, "a valid JSON number")
        elif text not in _LITERALS:
            return self._scalar_error(s, j, text, _ANY_VALUE)
        self._end_value(text, out, is_null=text == "null")
        return j

    def _scalar_error(self, s: str, j: int, text: str, expected: str) -> int:
        if not self.found:
            self._reset_json()
            self._mode = _PROSE
            return j
        self.error = JsonStreamError(
            f"invalid JSON {self._where()}: expected {expected}, found {text!r}", "invalid"
        )
        self._mode = _FAILED
        self._cap_parts = None
        return len(s)

    def _end_value(self, text: str, out: list[ReplyEvent], is_null: bool = False) -> None:
        """A scalar value (or a string) just ended."""
        stack = self._stack
        if len(stack) == self._member_depth:
            out.append((self._key, text, True))
            if is_null:
                self.null_keys.add(self._key)
        self._state = _OBJ_NEXT if stack[-1] == "{" else _ARR_NEXT

    def _close(self, s: str, i: int, out: list[ReplyEvent]) -> int:
        stack = self._stack
        stack.pop()
        depth = len(stack)
        if self._cap_parts is not None and depth == self._member_depth:
            raw = "".join(self._cap_parts) + s[self._cap_start : i + 1]
            self._cap_parts = None
            try:
                value = json.loads(raw, strict=False)
            except (ValueError, RecursionError) as exc:
                self.error = JsonStreamError(
                    f'invalid JSON inside the value of "{self._key}": {exc}', "invalid"
                )
                self._mode = _FAILED
                return len(s)
            out.append((self._key, json.dumps(value), True))
        elif self._member_depth > 0 and depth == self._member_depth - 1:
            # The response object itself closed: nothing later is a member.
            self._member_depth = -1
        if depth == 0:
            return self._finish_root(i)
        self._state = _OBJ_NEXT if stack[-1] == "{" else _ARR_NEXT
        return i + 1

    def _finish_root(self, i: int) -> int:
        if self.found:
            self.complete = True
            self._mode = _AFTER
        else:
            # A JSON object that is not the reply (an example in the prose): skip it.
            self._mode = _PROSE
        return i + 1

    def _key_done(self, key: str, out: list[ReplyEvent]) -> None:
        depth = len(self._stack)
        if depth == self._member_depth:
            self._key = key
            out.append((key, "", False))
        elif depth == 1 and not self.found:
            if key == self.wrapper_key:
                self._wrapper_pending = True
            elif self._root_first_key and key in self.bare_keys:
                self.found = True
                self.wrapped = False
                self._member_depth = 1
                self._key = key
                out.append((key, "", False))
            else:
                self._skipped_keys.append(key)
            self._root_first_key = False
        self._state = _COLON

    def _string(self, s: str, i: int, out: list[ReplyEvent]) -> int:
        """Inside a string: consume up to its closing quote or the end of the chunk."""
        n = len(s)
        role = self._str_role
        keep = role != _S_SKIP
        parts = self._str_parts
        while i < n:
            if self._esc:
                i = self._escape(s, i, parts, keep)
                if self._mode != _JSON:
                    return i
                continue
            q = s.find('"', i)
            end = q if q >= 0 else n
            b = s.find("\\", i, end)
            if b >= 0:
                if b > i and keep:
                    if self._hi:
                        parts.append("\ufffd")
                        self._hi = 0
                    parts.append(s[i:b])
                self._esc = "\\"
                i = self._escape(s, b + 1, parts, keep)
                if self._mode != _JSON:
                    return i
                continue
            if keep and end > i:
                if self._hi:
                    parts.append("\ufffd")
                    self._hi = 0
                parts.append(s[i:end])
            if q < 0:
                return n
            # Closing quote.
            if self._hi:
                if keep:
                    parts.append("\ufffd")
                self._hi = 0
            self._str_parts = []
            if self._in_key:
                if role == _S_KEY:
                    self._key_done("".join(parts), out)
                else:
                    self._state = _COLON
            elif role == _S_MEMBER:
                out.append((self._key, "".join(parts), True))
                self._state = _OBJ_NEXT
            else:
                self._end_value("", out)
            return q + 1
        return n

    def _escape(self, s: str, i: int, parts: list[str], keep: bool) -> int:
        """Complete the escape in ``self._esc`` (it starts with the backslash) from ``s[i:]``."""
        esc = self._esc
        n = len(s)
        if len(esc) == 1:
            if i >= n:
                return n
            c = s[i]
            if c != "u":
                self._esc = ""
                decoded = _ESCAPES.get(c)
                if decoded is None:
                    return self._bad_escape(s, i, "\\" + c)
                if keep:
                    if self._hi:
                        parts.append("\ufffd")
                        self._hi = 0
                    parts.append(decoded)
                return i + 1
            esc = "\\u"
            i += 1
        # Hex digits one at a time, so a bad one is found at the same place however the text is cut.
        while len(esc) < 6:
            if i >= n:
                self._esc = esc
                return n
            h = s[i]
            if h not in _HEX:
                return self._bad_escape(s, i, esc + h)
            esc += h
            i += 1
        self._esc = ""
        code = int(esc[2:], 16)
        if 0xD800 <= code < 0xDC00:
            if self._hi and keep:
                parts.append("\ufffd")
            self._hi = code
        elif 0xDC00 <= code < 0xE000:
            if self._hi:
                ch = chr(0x10000 + ((self._hi - 0xD800) << 10) + (code - 0xDC00))
                self._hi = 0
            else:
                ch = "\ufffd"
            if keep:
                parts.append(ch)
        else:
            if keep:
                if self._hi:
                    parts.append("\ufffd")
                parts.append(chr(code))
            self._hi = 0
        return i

    def _bad_escape(self, s: str, i: int, esc: str) -> int:
        """``s[i]`` completed an invalid escape ``esc``."""
        self._esc = ""
        self._hi = 0
        if not self.found:
            # A backslash in a brace-led bit of prose: not the reply; rescan from the offending char.
            self._reset_json()
            self._mode = _PROSE
            return i
        self.error = JsonStreamError(
            f"invalid JSON {self._where()}: invalid escape {esc!r} in a string "
            '(valid: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)',
            "invalid",
        )
        self._mode = _FAILED
        self._cap_parts = None
        return len(s)


def parse_reply_stream(
    chunks: Iterable[str], wrapper_key: str = "response", bare_keys: Iterable[str] = ()
) -> Iterator[ReplyEvent]:
    """Events for a whole reply; raises :class:`JsonStreamError` at the end if it held no complete object."""
    parser = ReplyStreamParser(wrapper_key, bare_keys)
    for chunk in chunks:
        yield from parser.feed(chunk)
    yield from parser.close()
