"""Which files twnb loads as its settings, plugins and MCP servers: never one a Round wrote; and, when
the user adds or changes one by hand, the next Round says once what it loaded and from where.

Generated code may not write these files (the runtime guard refuses it: kernel/guard/trust_base.py), but a
Round run without verification, or a file written before, could still hold what a model put there.
The loaders ask `FileTrust.allows(path, what)` before reading: a file generated code wrote (the
guard's record, `written_by_code`) is refused, with one line, for as long as it is as the Round left
it; once its fingerprint (size, modification time, SHA-256) changes, the user edited it and it is
theirs. Every file allowed is remembered by fingerprint: one that appears or changes after the first
look is said once ("loaded ... from ..."), so a change nobody announced never goes unseen.

A file a confined kernel could write and changed (`quarantine`, the notebook folder's
`FolderQuarantine.line`: quarantine.py) is refused too, with one line naming the command that
accepts it, for as long as it is not accepted from outside the confined kernel.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Fingerprint:
    size: int
    mtime_ns: int
    digest: str


def fingerprint(path: str | os.PathLike[str]) -> Fingerprint | None:
    """The file's fingerprint, None when there is no such regular file."""
    try:
        info = os.stat(path)
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as file:
            digest = hashlib.sha256(file.read()).hexdigest()
    except OSError:
        return None
    return Fingerprint(info.st_size, info.st_mtime_ns, digest)


_NOT_SEEN = object()


@dataclass
class FileTrust:
    """The notebook's record of the files its loaders read (see the module docstring). `lines` holds
    what is still to be said, taken by the next Round (`take_lines`)."""

    written_by_code: Callable[[str], bool] = lambda path: False
    # (path, what, its SHA-256) -> the line refusing it, None when it is not quarantined
    quarantine: Callable[[str, str, str], str | None] | None = None
    lines: list[str] = field(default_factory=list)
    _seen: dict[str, Fingerprint | None] = field(default_factory=dict)
    _left_by_code: dict[str, Fingerprint] = field(default_factory=dict)
    _said: set[tuple[str, Fingerprint | None]] = field(default_factory=set)
    _started: bool = False

    def allows(self, path: str | os.PathLike[str], what: str) -> bool:
        """Whether `path` may be loaded as `what` ("settings", "a plugin"); an absent file is allowed
        (there is nothing to load)."""
        key = os.path.abspath(os.fspath(path))
        now = fingerprint(key)
        if now is None:
            self._seen[key] = None
            return True
        refused = None if self.quarantine is None else self.quarantine(key, what, now.digest)
        if refused is not None:
            self._say_once(key, now, refused)
            return False
        if self.written_by_code(key):
            left = self._left_by_code.setdefault(key, now)
            if left == now:
                self._say_once(
                    key,
                    now,
                    f"{key} was written by generated code in a Round: twnb does not load it as {what}. "
                    "Read it; if you want it, edit and save it yourself.",
                )
                return False
        before = self._seen.get(key, _NOT_SEEN)
        self._seen[key] = now
        if self._started and before != now:
            change = "new" if before is None or before is _NOT_SEEN else "changed"
            self._say_once(key, now, f"loaded {what} from {key} ({change} since the last Round).")
        return True

    def refusal(self, path: str | os.PathLike[str], what: str) -> str | None:
        """The quarantine's line refusing `path` as `what`, None when it does not refuse it."""
        now = fingerprint(path)
        if now is None or self.quarantine is None:
            return None
        return self.quarantine(os.path.abspath(os.fspath(path)), what, now.digest)

    def take_lines(self) -> list[str]:
        """What to say at the Round starting now; later changes are compared with what it loaded."""
        lines, self.lines = self.lines, []
        self._started = True
        return lines

    def _say_once(self, key: str, now: Fingerprint | None, line: str) -> None:
        if (key, now) not in self._said:
            self._said.add((key, now))
            self.lines.append(line)
