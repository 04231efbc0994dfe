"""Is a re-run cell's output the recorded one? Compared after removing what changes from run to run.

Normalised away: terminal colour codes, whitespace runs, memory addresses (`0x7f3a...`), the way a
stream was split into messages. Images compare by their dimensions (a plot re-drawn by another
matplotlib differs in bytes, not in meaning) unless `strict_images`, then by their bytes. TaskWeaver's
own files recorded only result prose ("The execution ... succeeded. The result is: 42"): a re-run
reproduces it when its new text is contained in that prose.
"""

from __future__ import annotations

import base64
import hashlib
import re
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from twnb.kernel import strip_ansi
from twnb.replay.large_outputs import text_of

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,16}")
_IMAGES = ("image/png", "image/jpeg", "image/gif", "image/svg+xml")


@dataclass
class Comparison:
    reproduced: bool
    reason: str = ""  # what differs, in a few words, when not reproduced


def normalise(text: str) -> str:
    return " ".join(_ADDRESS.sub("0x…", strip_ansi(text)).split())


def compare_outputs(
    recorded: Sequence[Mapping[str, Any]],
    new: Sequence[Mapping[str, Any]],
    *,
    prose: bool = False,
    strict_images: bool = False,
) -> Comparison:
    """`prose`: `recorded` holds TaskWeaver's result text only (one stream output)."""
    if prose:
        return _compare_prose(recorded, new)
    old_items, new_items = _items(recorded, strict_images), _items(new, strict_images)
    if old_items == new_items:
        return Comparison(True)
    for index in range(max(len(old_items), len(new_items))):
        old = old_items[index] if index < len(old_items) else None
        now = new_items[index] if index < len(new_items) else None
        if old != now:
            return Comparison(False, _difference(old, now))
    return Comparison(False, "the outputs differ")  # unreachable: the lists differ somewhere


# The sections of a Round's result text (kernel/capture/execution_text.py) that show what the code printed,
# returned and displayed; the others (headline, variables, notes, artifacts) describe the run.
_SHOWN_SECTIONS = ("Result:", "Output:", "Displayed:")
_SECTION = re.compile(
    r"^(Refused:|Result:|Output:|Warnings \(stderr\):|Error:|Displayed:|Artifacts:|Variables: |Notes:)",
    re.MULTILINE,
)
_NOT_COMPARED = ("[hidden]", "[redacted]", "…", "[...", "characters left out", "more characters)")


def compare_shown_result(shown: str, new: Sequence[Mapping[str, Any]]) -> Comparison:
    """The result text a Round's view shows (`shown`) against the re-run's outputs: each line it shows
    as printed, returned or displayed must be in what the re-run printed, returned or displayed (a
    line added to the record by hand is what a reader believes the code printed). Lines a clip cut or
    a secret screen changed are not compared."""
    new_text = "\n".join(normalise(line) for text in _texts(new) for line in strip_ansi(text).splitlines())
    for section in _sections(shown):
        for line in section.splitlines():
            wanted = normalise(line)
            if not wanted or any(mark in line for mark in _NOT_COMPARED):
                continue
            if wanted not in new_text:
                return Comparison(
                    False, f"the Round's result shows {_short(wanted)!r}, which the re-run did not print"
                )
    return Comparison(True)


def _sections(text: str) -> list[str]:
    """The bodies of `text`'s shown sections (each runs to the next section's heading)."""
    starts = [(m.start(), m.group(1)) for m in _SECTION.finditer(text)]
    bodies = []
    for number, (start, heading) in enumerate(starts):
        end = starts[number + 1][0] if number + 1 < len(starts) else len(text)
        if heading in _SHOWN_SECTIONS:
            bodies.append(text[start + len(heading) : end])
    return bodies


def compare_raised(recorded_error: str | None, new: Sequence[Mapping[str, Any]]) -> Comparison:
    """A user's cell, recorded only by whether it raised (`recorded_error`: "NameError: ..."): it
    reproduces when it raises now exactly when it did, with the same exception type."""
    error = next((o for o in new if o.get("output_type") == "error"), None)
    if error is None:
        return (
            Comparison(True)
            if recorded_error is None
            else Comparison(False, "it raised when recorded, not now")
        )
    ename = str(error.get("ename", ""))
    if recorded_error is None:
        return Comparison(False, f"now raises {ename}: {_short(normalise(str(error.get('evalue', ''))))}")
    recorded_name = recorded_error.split(":", 1)[0].strip()
    return (
        Comparison(True)
        if recorded_name == ename
        else Comparison(False, f"raised {recorded_name}, now {ename}")
    )


def _compare_prose(recorded: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]) -> Comparison:
    old_text = normalise(" ".join(_texts(recorded)))
    old_failed = any(o.get("name") == "stderr" for o in recorded if o.get("output_type") == "stream")
    new_failed = any(o.get("output_type") == "error" for o in new)
    if old_failed != new_failed:
        return Comparison(False, "it raised now" if new_failed else "it raised when recorded, not now")
    if new_failed:  # a traceback's text differs in paths and frames: the exception's type decides
        ename = next(str(o.get("ename", "")) for o in new if o.get("output_type") == "error")
        return Comparison(ename in old_text, "" if ename in old_text else f"now raises {ename}")
    new_text = normalise(" ".join(_texts(new)))
    if new_text in old_text:
        return Comparison(True)
    return Comparison(False, f"new output {_short(new_text)!r} is not in the recorded result")


def _items(outputs: Iterable[Mapping[str, Any]], strict_images: bool) -> list[tuple[str, Any]]:
    """What must match, in order: results, displays and errors; streams as one text per stream (how
    a print is split into messages varies between runs)."""
    streams: dict[str, list[str]] = {}
    items: list[tuple[str, Any]] = []
    for output in outputs:
        kind = output.get("output_type")
        if kind == "stream":
            streams.setdefault(str(output.get("name", "stdout")), []).append(text_of(output.get("text", "")))
        elif kind in ("display_data", "execute_result"):
            items.append(_display_item(output.get("data") or {}, output.get("metadata") or {}, strict_images))
        elif kind == "error":
            items.append(("error", f"{output.get('ename', '')}: {normalise(str(output.get('evalue', '')))}"))
    stream_items = [(name, _lines("".join(parts))) for name, parts in sorted(streams.items())]
    return [(name, lines) for name, lines in stream_items if lines] + items


def _lines(text: str) -> tuple[str, ...]:
    """A text as its normalised non-empty lines: a difference can then be named by its line."""
    return tuple(line for line in (normalise(raw) for raw in strip_ansi(text).splitlines()) if line)


def _display_item(data: Mapping[str, Any], metadata: Mapping[str, Any], strict: bool) -> tuple[str, Any]:
    for mime in _IMAGES:
        if mime in data:
            raw = text_of(data[mime])
            if strict:
                return ("image", hashlib.sha256(raw.encode()).hexdigest())
            return ("image", _dimensions(mime, raw, metadata.get(mime)))
    if "text/plain" in data:
        return ("text", _lines(text_of(data["text/plain"])))
    return ("data", sorted(data))


def _dimensions(mime: str, raw: str, metadata: Any) -> Any:
    """(width, height) of an image; for a format read here without a library, the MIME type only."""
    if isinstance(metadata, Mapping) and "width" in metadata and "height" in metadata:
        return (metadata["width"], metadata["height"])
    if mime == "image/svg+xml":
        width, height = (re.search(rf'\b{side}="([\d.]+)', raw) for side in ("width", "height"))
        return (width.group(1), height.group(1)) if width and height else mime
    try:
        data = base64.b64decode(raw)
    except ValueError:
        return mime
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return struct.unpack("<HH", data[6:10])
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data) or mime
    return mime


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    index = 2
    while index + 9 < len(data):
        if data[index] != 0xFF:
            return None
        marker, length = data[index + 1], struct.unpack(">H", data[index + 2 : index + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[index + 5 : index + 9])
            return (width, height)
        index += 2 + length
    return None


def _texts(outputs: Iterable[Mapping[str, Any]]) -> Iterable[str]:
    for output in outputs:
        kind = output.get("output_type")
        if kind == "stream":
            yield text_of(output.get("text", ""))
        elif kind in ("display_data", "execute_result"):
            data = output.get("data") or {}
            if not any(mime in data for mime in _IMAGES):  # a figure's repr is not in result prose
                yield text_of(data.get("text/plain", ""))
        elif kind == "error":
            yield f"{output.get('ename', '')}: {output.get('evalue', '')}"


def _difference(old: tuple[str, Any] | None, now: tuple[str, Any] | None) -> str:
    if old is None:
        return f"new {now[0] if now else 'output'}: {_short(_value(now[1]) if now else '')!r}"
    if now is None:
        return f"recorded {old[0]} missing now: {_short(_value(old[1]))!r}"
    if old[0] != now[0]:
        return f"recorded {old[0]}, now {now[0]}"
    if old[0] not in ("image", "error", "data") and isinstance(old[1], tuple) and isinstance(now[1], tuple):
        return _line_difference(old[0], old[1], now[1])
    return f"{old[0]} differs: recorded {_short(str(old[1]))!r}, now {_short(str(now[1]))!r}"


def _value(value: Any) -> str:
    """An item's value as one line: a text's lines joined by spaces."""
    if isinstance(value, tuple) and all(isinstance(part, str) for part in value):
        return " ".join(value)
    return str(value)


def _line_difference(kind: str, old: tuple[str, ...], now: tuple[str, ...]) -> str:
    """The first differing line, each side shown from a little before its first differing character;
    in a table (a header line, then rows of an index and one value per column), its row and column."""
    index = next(i for i in range(max(len(old), len(now))) if _at(old, i) != _at(now, i))
    before, after = _at(old, index), _at(now, index)
    if not before or not after:
        missing = "missing now" if not after else "new"
        return f"{kind} line {index + 1} {missing}: {_short(before or after)!r}"
    cell = _table_cell(old[0], before, after) if index else None
    where = f" (row {cell[0]}, column {cell[1]!r})" if cell else ""
    start = next((i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b), None)
    start = min(len(before), len(after)) if start is None else start
    return (
        f"{kind} line {index + 1} differs{where}: recorded {_from(before, start)!r}, "
        f"now {_from(after, start)!r}"
    )


def _at(lines: tuple[str, ...], index: int) -> str:
    return lines[index] if index < len(lines) else ""


def _table_cell(header: str, before: str, after: str) -> tuple[str, str] | None:
    """(row label, column name) of the first differing value, when both lines are rows of the table
    whose header is `header`; None for text that is not a table."""
    columns, old, new = header.split(), before.split(), after.split()
    if not columns or len(old) != len(columns) + 1 or len(new) != len(columns) + 1 or old[0] != new[0]:
        return None
    column = next(i for i in range(1, len(old)) if old[i] != new[i]) if old != new else None
    return (old[0], columns[column - 1]) if column is not None else None


def _from(text: str, start: int, limit: int = 60) -> str:
    """`text` from a little before `start` (marked … when cut), at most `limit` characters."""
    begin = max(0, start - 20)
    shown = ("…" if begin else "") + text[begin:]
    return _short(shown, limit)


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
