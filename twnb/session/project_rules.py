"""The user's standing instructions: `AGENTS.md` (the file Codex, Cursor, Jules and other agents read from
a project's folders) and `TWNB.md` (rules for twnb alone), put into both roles' system prompts.

Where they are read: the notebook's folder and its parents up to the project's root (the nearest folder
holding `.git`, else the home folder); outside both, the notebook's folder alone, so a notebook in a
shared folder such as /tmp never takes up a stranger's rules. At each folder `AGENTS.md` comes before
`TWNB.md`; the farthest folder first, the nearest last (the nearest has the last word).

They are read at each Round, cheaply: each candidate is stat'ed and read again only when its size or
modification time changed. A file a Round's code wrote (an artifact of the conversation) is never read
as a rule: generated code must not be able to give the next Round its instructions; nor one a confined
kernel could write and changed, until the user accepts it (`refuse`: twnb/config/quarantine.py). The text goes
through the session's redactor and is bounded per file.

The section sits in the system message after the role's own instructions, before the plugins' section:
it changes only when a rule file does, so a provider's prompt cache keeps reusing it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twnb.base import clip
from twnb.llm import estimate_tokens
from twnb.memory import Conversation

RULE_FILE_NAMES = ("AGENTS.md", "TWNB.md")
# Per file: rules are a page or two; a longer file is clipped (and says so) rather than fill the prompt.
MAX_RULE_CHARS = 12_000
SECTION_HEADER = (
    "# The user's rules for this project\n"
    "The user wrote these standing instructions (AGENTS.md, TWNB.md) for work in this project. Follow "
    "them unless the current request says otherwise."
)


@dataclass(frozen=True)
class RuleFile:
    """One rules file in force: where it is, its text (redacted, bounded) and about how many tokens."""

    path: Path
    shown_as: str  # the path relative to the notebook's folder (what the prompt names)
    text: str
    tokens: int


@dataclass(frozen=True)
class RulesInForce:
    """What a Round's prompts carry: the files read, in prompt order, and those left out because a
    Round's code wrote them."""

    files: tuple[RuleFile, ...] = ()
    written_by_code: tuple[str, ...] = ()
    quarantined: tuple[str, ...] = ()  # one line for each file left out by the quarantine

    @property
    def section(self) -> str:
        """The system message's rules section ("" when there are none)."""
        if not self.files:
            return ""
        parts = [SECTION_HEADER]
        parts += [f"## {rule.shown_as}\n{rule.text.strip()}" for rule in self.files]
        return "\n\n".join(parts)

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.section)

    def record(self, text_in: str | None = None) -> dict[str, Any]:
        """`Round.extra["rules"]`: the files with their text as the prompts carried it (redacted) and
        their estimated token cost, and what was left out; a replay builds its prompts from it. With
        `text_in` (an earlier Round of the conversation whose record holds these texts: rules_record.py)
        the texts are left out and that Round is named."""
        files = [{"path": r.shown_as, "tokens": r.tokens, "text": r.text} for r in self.files]
        if text_in is not None:
            files = [{k: v for k, v in entry.items() if k != "text"} for entry in files]
        data: dict[str, Any] = {"files": files, "tokens": self.tokens}
        if text_in is not None:
            data["text_in"] = text_in
        if self.written_by_code:
            data["written_by_code"] = list(self.written_by_code)
        return data

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> RulesInForce | None:
        """The rules a Round's record (`record()`) says its prompts carried; None for a record that
        kept no texts (made before they were kept)."""
        files: list[RuleFile] = []
        for entry in data.get("files") or []:
            text = entry.get("text") if isinstance(entry, Mapping) else None
            if not isinstance(text, str):
                return None
            shown = str(entry.get("path"))
            tokens = entry.get("tokens")
            files.append(RuleFile(Path(shown), shown, text, tokens if isinstance(tokens, int) else 0))
        return cls(tuple(files), tuple(str(p) for p in data.get("written_by_code") or []))

    def describe(self) -> str:
        """`%taskweaver rules`: what is in force, from which files, at what cost."""
        lines = []
        if self.files:
            lines.append(f"Rules in force (~{self.tokens:,} tokens in each role's system prompt):")
            lines += [f"  {r.shown_as} (~{r.tokens:,} tokens): {r.path}" for r in self.files]
        else:
            lines.append(
                "No rules in force. Write AGENTS.md (for every agent) or TWNB.md (for twnb alone) in the "
                "notebook's folder or a parent up to the project's root."
            )
        lines += [f"  {path}: not read, a Round's code wrote it" for path in self.written_by_code]
        lines += [f"  not read: {line}" for line in self.quarantined]
        return "\n".join(lines)


@dataclass
class _Cached:
    stamp: tuple[int, int]  # (size, mtime_ns)
    text: str


@dataclass
class ProjectRules:
    """The rule files around the notebook's folder, read again only when they change."""

    folder: Path
    redact: Callable[[str], str] = str
    home: Path | None = None
    # a file's path -> the line refusing it (the notebook folder's quarantine), None: it may be read
    refuse: Callable[[Path], str | None] | None = None
    _cache: dict[Path, _Cached] = field(default_factory=dict, repr=False)

    def folders(self) -> list[Path]:
        """The folders read, farthest first: up to the project's root, else the notebook's alone."""
        start = self.folder.resolve()
        home = (self.home or Path.home()).resolve()
        chain: list[Path] = []
        for folder in (start, *start.parents):
            chain.append(folder)
            if folder == home or (folder / ".git").exists():
                return chain[::-1]
        return [start]

    def read(self, written: Collection[Path] = ()) -> RulesInForce:
        """The rules in force now. `written`: files a Round's code wrote (absolute), never read."""
        wrote = {_resolved(p) for p in written}
        files: list[RuleFile] = []
        left_out: list[str] = []
        refused: list[str] = []
        for folder in self.folders():
            for name in RULE_FILE_NAMES:
                path = folder / name
                text = self._text(path)
                if text is None:
                    continue
                shown = _shown(path, self.folder.resolve())
                if path in wrote:
                    left_out.append(shown)
                    continue
                line = None if self.refuse is None else self.refuse(path)
                if line is not None:
                    refused.append(line)
                    continue
                text = clip(self.redact(text), MAX_RULE_CHARS, count=True)
                files.append(RuleFile(path, shown, text, estimate_tokens(text)))
        return RulesInForce(tuple(files), tuple(left_out), tuple(refused))

    def _text(self, path: Path) -> str | None:
        try:
            info = path.stat()
        except OSError:
            self._cache.pop(path, None)
            return None
        stamp = (info.st_size, info.st_mtime_ns)
        cached = self._cache.get(path)
        if cached is not None and cached.stamp == stamp:
            return cached.text
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        self._cache[path] = _Cached(stamp, text)
        return text


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path


def _shown(path: Path, folder: Path) -> str:
    return os.path.relpath(path, folder)


def recorded_files(conversation: Conversation) -> list[object]:
    """Every file the conversation's code wrote, as its posts record them (`artifact_paths`)."""
    return [
        path
        for round in conversation.rounds
        for post in round.post_list
        for attachment in post.attachment_list
        if attachment.type.value == "artifact_paths"
        for path in (attachment.content if isinstance(attachment.content, list) else [attachment.content])
    ]


def written_by_rounds(conversation: Conversation, workdir: Path) -> list[Path]:
    """The files the conversation's code wrote, as absolute paths (`artifact_paths` may be relative to
    the code's working folder)."""
    found = []
    for each in recorded_files(conversation):
        if isinstance(each, str) and each:
            path = Path(each)
            found.append(path if path.is_absolute() else workdir / path)
    return found


__all__ = [
    "MAX_RULE_CHARS",
    "RULE_FILE_NAMES",
    "ProjectRules",
    "RuleFile",
    "RulesInForce",
    "recorded_files",
    "written_by_rounds",
]
