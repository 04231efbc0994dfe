"""@-mentions in a `%%taskweaver` request: what the user points at, described for the CodeInterpreter.

- `@name`: a variable of the notebook: its one-line description from the kernel's namespace summary
  (type, shape, columns with dtypes; a lazy frame from its schema only) and, for an eager frame, a few
  rows;
- `@path`: a file in the notebook's folder: its kind, size and head (CSV, JSON, text; Parquet's schema;
  an image described, not sent);
- `@cell N`: the cell with that execution count: its code and a bounded part of its result;
- `@round N`: an earlier Round: its request, its answer and the variables its code made.

A mention is an `@` at the start of the text or after a space or an opening bracket, outside code
(fenced blocks and inline backticks): an e-mail address (`bob@example.com`) and a decorator in a code
fence are not mentions. A mention that names nothing is an error said in one line, and the Round does
not start. Every description is redacted and bounded.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twnb.base import clip
from twnb.kernel import summarize_namespace
from twnb.memory import Conversation

MENTION = re.compile(r"(?<![\w@.])@(?:(cell|round)\s+(\d+)\b|([^\s,;:!?()\[\]{}\"'`<>]+))")
FENCED = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`", re.DOTALL)
MAX_MENTION_CHARS = 2_000  # per mention: about 500 tokens
HEAD_BYTES = 4_096
HEAD_LINES = 6
FRAME_ROWS = 3
TEXT_KINDS = {
    ".csv": "CSV",
    ".tsv": "TSV",
    ".json": "JSON",
    ".jsonl": "JSON lines",
    ".txt": "text",
    ".md": "Markdown",
    ".yaml": "YAML",
    ".yml": "YAML",
    ".py": "Python",
    ".sql": "SQL",
    ".log": "text",
}
IMAGE_KINDS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".gif": "GIF", ".webp": "WebP", ".svg": "SVG"}


class MentionError(ValueError):
    """A mention that names nothing: the one line to show; the Round does not start."""


@dataclass(frozen=True)
class Mention:
    """One mention and what it adds to the CodeInterpreter's prompt."""

    mention: str  # as written: "@sales", "@cell 3"
    kind: str  # variable, file, cell, round
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"mention": self.mention, "kind": self.kind, "text": self.text}


def find_mentions(request: str) -> list[tuple[str, str, str]]:
    """(as written, kind word or "", target) for each mention outside code, in order, once each."""
    prose = FENCED.sub(lambda m: " " * len(m.group(0)), request)
    found: list[tuple[str, str, str]] = []
    for match in MENTION.finditer(prose):
        if match.group(1):
            item = (f"@{match.group(1)} {match.group(2)}", match.group(1), match.group(2))
        else:
            target = match.group(3).rstrip(".")
            if not target:
                continue
            item = (f"@{target}", "", target)
        if item not in found:
            found.append(item)
    return found


@dataclass
class MentionResolver:
    """What the mentions of a request point at, in this notebook."""

    namespace: Mapping[str, Any]
    folder: Path
    conversation: Conversation
    redact: Callable[[str], str]

    def resolve(self, request: str) -> list[Mention]:
        """The mentions' descriptions; MentionError naming those that name nothing."""
        described = self.describe(request)
        unknown = [written for written, mention in described.items() if mention is None]
        if unknown:
            raise MentionError(
                f"{', '.join(unknown)}: no such variable, file in the notebook's folder, cell or Round; "
                "the Round did not start. Check the name (an @ before an e-mail-like word is fine; put code "
                "in backticks)."
            )
        return [mention for mention in described.values() if mention is not None]

    def describe(self, request: str) -> dict[str, Mention | None]:
        """Each mention as written, in order, with its description (None: it names nothing)."""
        return {written: self._one(written, kind, target) for written, kind, target in find_mentions(request)}

    def _one(self, written: str, kind: str, target: str) -> Mention | None:
        if kind == "cell":
            text = self._cell(int(target))
        elif kind == "round":
            text = self._round(target)
        elif target.isidentifier() and target in self.namespace:
            text = self._variable(target)
            kind = "variable"
        else:
            text = self._file(target)
            kind = "file"
        if text is None:
            return None
        bounded = _bounded(self.redact(text))
        return Mention(written, kind or "file", bounded)

    def _variable(self, name: str) -> str:
        value = self.namespace[name]
        line = _variable_line(name, value)
        rows = _frame_rows(value) if "[hidden]" not in line else ""
        return f"{line.removeprefix('- ')}" + (f"\nfirst rows:\n{rows}" if rows else "")

    def _file(self, target: str) -> str | None:
        folder = self.folder.resolve()
        path = (folder / target).resolve()
        if not path.is_relative_to(folder) or not path.is_file():
            return None
        size = path.stat().st_size
        suffix = path.suffix.lower()
        if suffix in IMAGE_KINDS:
            return f"{target}: {IMAGE_KINDS[suffix]} image, {size:,} bytes (not sent; the code can open it)"
        if suffix == ".parquet":
            return f"{target}: Parquet, {size:,} bytes\n{_parquet_schema(path)}"
        kind = TEXT_KINDS.get(suffix, "file")
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
        if b"\0" in head:
            return f"{target}: binary file, {size:,} bytes"
        lines = head.decode("utf-8", errors="replace").splitlines()[:HEAD_LINES]
        return f"{target}: {kind}, {size:,} bytes; first lines:\n" + "\n".join(lines)

    def _cell(self, number: int) -> str | None:
        inputs = self.namespace.get("In")
        outputs = self.namespace.get("Out")
        if not isinstance(inputs, list) or not 0 < number < len(inputs):
            return None
        text = f"cell [{number}]:\n{inputs[number]}"
        if isinstance(outputs, dict) and number in outputs:
            text += f"\nits result:\n{_short(repr(outputs[number]), MAX_MENTION_CHARS // 2)}"
        return text

    def _round(self, number: str) -> str | None:
        rounds = self.conversation.rounds
        index = int(number) - 1
        if not 0 <= index < len(rounds):
            return None
        round = rounds[index]
        answers = [p.message for p in round.post_list if p.send_to == "User" and p.send_from != "User"]
        made: list[str] = []
        for post in round.post_list:
            for attachment in post.attachment_list:
                extra = attachment.extra if isinstance(attachment.extra, dict) else {}
                for change in extra.get("variables", []) or []:
                    name = change.get("name") if isinstance(change, dict) else None
                    if name and change.get("kind") in ("created", "rebound") and name not in made:
                        made.append(name)
        lines = [f"Round {number}: the request: {round.user_query}"]
        lines.append(f"its answer: {answers[-1] if answers else '(none: ' + round.state + ')'}")
        if made:
            lines.append(f"variables it made: {', '.join(made)}")
        return "\n".join(lines)


def _variable_line(name: str, value: Any) -> str:
    """The namespace summary's line for one variable (secrets hidden, lazy frames by schema only)."""
    summary = summarize_namespace({name: value}, describe_libraries=False, total_budget_s=0.5)
    lines = [line for line in summary.splitlines() if line.startswith(f"- {name}:")]
    return lines[0] if lines else f"- {name}: {type(value).__name__}"


def _frame_rows(value: Any) -> str:
    """A few rows of an eager pandas or polars frame ("" for anything else, lazy frames included)."""
    module = type(value).__module__.split(".")[0]
    if module not in ("pandas", "polars") or "Lazy" in type(value).__name__ or not hasattr(value, "head"):
        return ""
    try:
        return _short(str(value.head(FRAME_ROWS)), MAX_MENTION_CHARS // 2)
    except Exception:  # a frame whose head fails: its description is enough
        return ""


def _parquet_schema(path: Path) -> str:
    try:
        # lazy: pyarrow (~150 ms, 120 modules), optional: absent, the schema is not read
        import pyarrow.parquet as pq  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        return "(its schema needs pyarrow)"
    try:
        metadata = pq.read_metadata(path)
        columns = ", ".join(f"{f.name} ({f.type})" for f in metadata.schema.to_arrow_schema())
        return f"{metadata.num_rows:,} rows; columns: {columns}"
    except Exception as error:  # a damaged file: say so, the Round goes on
        return f"(its schema could not be read: {type(error).__name__})"


def _short(text: str, limit: int) -> str:
    return clip(text, limit, count=True)


def _bounded(text: str) -> str:
    return _short(text, MAX_MENTION_CHARS)


__all__ = [
    "Mention",
    "MentionError",
    "MentionResolver",
    "find_mentions",
]
