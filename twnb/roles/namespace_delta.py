"""The namespace summary in a cache-friendly form: a snapshot in the history, the changes at the end.

The summary of the user's variables changes whenever code runs, and it is long (up to 4,000
characters). Sent whole at the end of every prompt, it would be the largest part a provider's prompt
cache can never reuse. So a role's prompt carries the summary as it was when its history last changed
shape (a snapshot, at the head of the history), and the last message only says what changed since: lines
that are new or different, and the names no longer defined. The role sees the same facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SNAPSHOT_HEADER = (
    "The notebook's variables when this list was made (the last message says what changed since):"
)
CHANGES_HEADER = "Changes to the notebook's variables since the list at the start of the conversation:"
REMOVED = "No longer defined: {names}"


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
    """One role's snapshot of the summary, kept while its history keeps the same layout (`key`)."""

    key: object = None
    text: str = ""
    # The last summary split against this snapshot and its changes: a role's next call often sees the
    # same summary (no code ran since), and the changes are a function of the two texts alone.
    _last: tuple[str, str] | None = field(default=None, init=False, repr=False)
    # The snapshot's lines, as a list and a set, split once for every call it serves.
    _lines: tuple[list[str], set[str]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        lines = self.text.splitlines()
        self._lines = (lines, set(lines))

    def split(self, key: object, summary: str) -> tuple[str, str]:
        """(the snapshot text for the history, the changes for the last message) for this call."""
        summary = summary.strip()
        if key != self.key:
            if summary != self.text:
                lines = summary.splitlines()
                self.text, self._last, self._lines = summary, None, (lines, set(lines))
            self.key = key
        snapshot = f"{SNAPSHOT_HEADER}\n{self.text}" if self.text else ""
        if self._last is None or self._last[0] != summary:
            changes = "" if summary == self.text else _changes(*self._lines, summary)
            self._last = (summary, changes)
        return snapshot, self._last[1]
