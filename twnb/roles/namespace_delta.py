"""The namespace summary in a cache-friendly form: a snapshot in the history, the changes at the end.

The summary of the user's variables changes whenever code runs, and it is long (up to 4,000
characters). Sent whole at the end of every prompt, it would be the largest part a provider's prompt
cache can never reuse. So a role's prompt carries the summary as it was when its history last changed
shape (a snapshot, at the head of the history), and the last message only says what changed since: lines
that are new or different, and the names no longer defined. The role sees the same facts.

When the history changes shape again, the snapshot is extended rather than made again: the changes so
far are appended to it (`EXTENDED_HEADER`), so the cached prefix keeps the snapshot and breaks only after
it. Changes that only add names simply continue the list (no header), so the list reads as if made then
and a snapshot made again later over the same names still starts with all of it. Made again it is once
it would outgrow twice the summary (a summary at its size limit slides, so a new one differs from its
first line: everything after it is sent anew).
"""

from __future__ import annotations

from dataclasses import dataclass, field

SNAPSHOT_HEADER = (
    "The notebook's variables when this list was made (the last message says what changed since):"
)
CHANGES_HEADER = "Changes to the notebook's variables since the list at the start of the conversation:"
EXTENDED_HEADER = "Then changed:"
REMOVED = "No longer defined: {names}"
# The snapshot and its extensions may grow to (1 + this) times the summary's own length before the
# snapshot is taken again.
EXTENSIONS_MAX = 1.0


def _name(line: str) -> str:
    """The variable a summary line describes (`- name: ...`), else the line."""
    body = line[2:] if line.startswith("- ") else line
    return body.split(":", 1)[0].strip()


def summary_changes(before: str, after: str) -> str:
    """What `after` says that `before` did not: its new or changed lines, then the names gone."""
    if before == after:
        return ""
    old = before.splitlines()
    return _changes(old, set(old), after)


def _changes(old: list[str], old_set: set[str], after: str) -> str:
    """`summary_changes` from the lines of `before`, as a list and a set (a snapshot keeps them)."""
    new = after.splitlines()
    new_set = set(new)
    # The sets tell in C which lines differ; only then are the lists walked for their order (a summary
    # has a line per variable, and this runs at every call of both roles).
    new_only, old_only = new_set - old_set, old_set - new_set
    added = [line for line in new if line in new_only] if new_only else []
    added_names = {_name(line) for line in added}
    # A summary cut at its size or time limit leaves out the oldest names: absent is not gone then.
    cut = "[... " in after and any(line.startswith("[... ") for line in new)
    gone = (
        [
            _name(line)
            for line in old
            if line in old_only and line.startswith("- ") and _name(line) not in added_names
        ]
        if old_only and not cut
        else []
    )
    parts = [CHANGES_HEADER, *added]
    if gone:
        parts.append(REMOVED.format(names=", ".join(gone)))
    return "\n".join(parts) if len(parts) > 1 else ""


@dataclass
class NamespaceSnapshot:
    """One role's snapshot of the summary, kept while its history keeps the same layout (`key`), and
    extended with the changes so far when the layout changes (the module's docstring)."""

    key: object = None
    text: str = ""
    # The changes appended since `text` was taken, one block per layout change, oldest first.
    extensions: list[str] = field(default_factory=list)
    # The last summary split against this snapshot and its changes: a role's next call often sees the
    # same summary (no code ran since), and the changes are a function of the two texts alone.
    _last: tuple[str, str] | None = field(default=None, init=False, repr=False)
    # The summary the changes are against (`text`, or the one the last extension brought the snapshot
    # up to), and its lines as a list and a set, split once for every call they serve.
    _against: str = field(init=False, repr=False)
    _lines: tuple[list[str], set[str]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._set_against(self.text)

    def _set_against(self, summary: str) -> None:
        lines = summary.splitlines()
        self._against, self._lines, self._last = summary, (lines, set(lines)), None

    def split(self, key: object, summary: str) -> tuple[str, str]:
        """(the snapshot text for the history, the changes for the last message) for this call."""
        summary = summary.strip()
        if key != self.key:
            self._move_to(summary)
            self.key = key
        snapshot = "\n".join([f"{SNAPSHOT_HEADER}\n{self.text}", *self.extensions]) if self.text else ""
        if self._last is None or self._last[0] != summary:
            changes = _changes(*self._lines, summary) if summary != self._against else ""
            self._last = (summary, changes)
        return snapshot, self._last[1]

    def _move_to(self, summary: str) -> None:
        """The layout changed: extend the snapshot to `summary`, or take it again when it would
        outgrow twice the summary."""
        if summary == self._against:
            return
        changes = _changes(*self._lines, summary) if self.text else ""
        # (a summary cut at its limit says so in its first line: not a change worth keeping)
        kept = [line for line in changes.splitlines()[1:] if not line.startswith("[... ")]
        # Only new names, and no extension yet: the list goes on with no header, as if it had been made
        # now, so a snapshot taken again later over the same names keeps all of it as its prefix.
        plain = bool(kept) and not self.extensions and self._only_new_names(kept)
        extension = "\n".join(kept if plain else [EXTENDED_HEADER, *kept]) if kept else ""
        grown = len(self.text) + sum(len(e) + 1 for e in self.extensions) + len(extension) + 1
        if not extension or grown > (1 + EXTENSIONS_MAX) * len(summary):
            self.text, self.extensions = summary, []
        elif plain:
            self.text += "\n" + extension
        else:
            self.extensions.append(extension)
        self._set_against(summary)

    def _only_new_names(self, lines: list[str]) -> bool:
        """Whether `lines` only add variables the snapshot does not name yet."""
        known = {_name(line) for line in self.text.splitlines()}
        return all(line.startswith("- ") and _name(line) not in known for line in lines)
