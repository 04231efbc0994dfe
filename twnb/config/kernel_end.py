"""What a confined kernel's end quarantined or moved aside, said by the batch command that started it
(`twnb export --execute/--check`, `twnb eval`, `twnb demo --live`) once the kernel was shut down.

The warden says it only on the kernel's log, which nobody reads: a `.git` cloned into the folder while
the kernel ran, moved aside, or a `yaml.py` gone, would come as a surprise. So the starter, while the
kernel runs, finds its session in the notebook folder's record (quarantine.py) by the kernel's pid
and start time, and with it the warden's; after the shutdown it waits, bounded, until the warden is
gone (it ends last, after the sub-folders' records), finishes the session itself when the warden
was killed (`FolderQuarantine.record`), and reads what that end entered (`ended` in the record):
one line per item still quarantined, with where it went and the `twnb trust` command that takes
it back. The names come from the kernel's folders: shown with control characters escaped. The
processes the kernel left running, which its warden ended (confine/leftover_processes.py), are said
in `leftover_line`, apart: they are not a thing quarantined (`--check` does not fail on them).
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Mapping

from twnb.config.gone_records import concerning
from twnb.config.quarantine import (
    FolderQuarantine,
    QuarantineError,
    _is_alive,
    load,
    name_in,
    process_id,
    quarantine_root,
    record_dir,
)

END_WAIT_S = 10.0
PREFIX = "Confined kernel's end: "


class KernelEnd:
    """One confined kernel's session, found while it runs (`kernel_pid`: the launcher's, which execs
    the kernel); `lines` after its shutdown."""

    def __init__(
        self,
        notebook_dir: str | os.PathLike[str],
        kernel_pid: int,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.folder = os.path.realpath(notebook_dir)
        self._environ = environ
        self.record_dir = record_dir(self.folder, environ)
        self.kernel = process_id(kernel_pid)
        self.warden: object = None
        # the processes the kernel left running that its warden ended, said once `lines` read the end
        self.leftover_line: str | None = None
        try:
            record = load(self.record_dir) or {}
        except QuarantineError:
            record = {}
        sessions = record.get("sessions")
        for session in sessions if isinstance(sessions, list) else []:
            if isinstance(session, dict) and session.get("kernel") == self.kernel:
                self.warden = session.get("warden")

    @property
    def found(self) -> bool:
        """Whether the kernel's session is in the record (a confined kernel's, started here)."""
        return self.warden is not None

    def lines(self, wait_s: float = END_WAIT_S) -> list[str]:
        """What the kernel's end quarantined or moved aside, one line each (waiting up to `wait_s` for
        its warden); a line saying so when the end did not come in time."""
        if not self.found:
            return []
        deadline = time.monotonic() + wait_s
        while _is_alive(self.warden) and time.monotonic() < deadline:
            time.sleep(0.05)
        quarantine = FolderQuarantine(self.folder, self._environ)
        try:
            record = quarantine.record() or {}
        except QuarantineError as error:
            return [f"{PREFIX}{error}"]
        mine = [
            e for e in _list(record.get("ended")) if isinstance(e, dict) and e.get("kernel") == self.kernel
        ]
        if not mine:
            return [
                f"{PREFIX}not finished after {wait_s:g} s (its warden still ends what the kernel left "
                f"running or looks through the folders); once it is, `twnb trust --folder "
                f"{_arg(self.folder)}` lists what it quarantined."
            ]
        ended = sum(int(e["leftovers"]) for e in mine if isinstance(e.get("leftovers"), int))
        if ended:
            self.leftover_line = (
                f"{PREFIX}ended {ended} process{'' if ended == 1 else 'es'} the kernel left running "
                "(a child its code started outlived it)."
            )
        quarantined = quarantine.quarantined()
        said: list[str] = []
        for end in mine:
            for name in _list(end.get("quarantined")):
                entry = quarantined.get(str(name))
                if entry is not None:
                    said.append(_line(self.folder, str(name), entry, None))
            for pair in _list(end.get("elsewhere")):
                if isinstance(pair, list) and len(pair) == 2:
                    said += _elsewhere(self.folder, str(pair[0]), str(pair[1]), self._environ)
        return list(dict.fromkeys(said))


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _elsewhere(folder: str, holder: str, path: str, environ: Mapping[str, str] | None) -> list[str]:
    """A sub-folder's trust-base file, as its own folder's record holds it."""
    other = FolderQuarantine(holder, environ)
    name = name_in(other.folder, path)
    entry = other.quarantined().get(name)
    return [] if entry is None else [_line(other.folder, name, entry, name_in(folder, path))]


def _line(folder: str, name: str, entry: Mapping[str, object], shown: str | None) -> str:
    """One item: what, where it went, and the command that takes it back (`shown`: its name as seen
    from the notebook's folder, when it is recorded in a sub-folder's record)."""
    command = f"`twnb trust --folder {_arg(folder)} accept {_arg(name)}`"
    moved = entry.get("moved_to")
    if moved:
        return (
            f"{PREFIX}{_shown(name)} ({entry.get('what')}) was moved aside to {_shown(str(moved))}; "
            f"{command} puts it back."
        )
    what = "removed" if entry.get("found") is None else "changed"
    where = "" if shown is None else f" ({_shown(shown)}: for notebooks in {_shown(folder)})"
    return (
        f"{PREFIX}{_shown(name)}{where} was {what} while the confined kernel could write it: quarantined, "
        f"no session loads it; {command} trusts it as it is."
    )


def _shown(text: str) -> str:
    """A name from the kernel's folders, its control characters escaped (it may hold a newline or a
    terminal's escape sequence)."""
    return text if text.isprintable() else text.encode("unicode_escape").decode("ascii")


def _arg(text: str) -> str:
    """`text` as one shell word (bash's $'...' for one with control characters)."""
    if text.isprintable():
        return shlex.quote(text)
    return "$'" + _shown(text).replace("'", "\\'") + "'"


MAX_NAMED = 10  # in the review line: the rest are counted


def quarantine_review(quarantine: FolderQuarantine) -> list[str]:
    """The notebook folder's quarantined and moved-aside entries not yet accepted, named in one line
    with `twnb trust` to review them (none when there are none): a session's first Round says it, so
    a `.git` or `yaml.py` moved aside by an earlier confined kernel's end is no surprise."""
    try:
        found = quarantine.quarantined()
    except QuarantineError as error:
        return [f"{error}: the quarantined files of this folder cannot be listed."]
    if not found:
        return []
    named = []
    for name, entry in sorted(found.items())[:MAX_NAMED]:
        moved = entry.get("moved_to")
        if moved:
            named.append(f"{_shown(name)} ({entry.get('what')}; moved aside to {_shown(str(moved))})")
        else:
            named.append(f"{_shown(name)} ({'removed' if entry.get('found') is None else 'changed'})")
    more = len(found) - len(named)
    listed = ", ".join(named) + (f" and {more} more" if more > 0 else "")
    return [
        f"Quarantined in this folder since a confined kernel could write it (not loaded, and what was "
        f"moved aside out of programs' reach, until you accept it): {listed}. Review them with "
        f"`twnb trust --folder {_arg(quarantine.folder)}`, outside the confined kernel."
    ]


def recorded_elsewhere(
    folder: str | os.PathLike[str], environ: Mapping[str, str] | None = None
) -> list[tuple[str, str, dict[str, object]]]:
    """The entries other folders' records hold for places inside `folder`: what a confined kernel
    started in a parent folder moved aside in it (a `sub/.git`, a `sub/yaml.py`) is entered in that
    kernel's notebook folder's record, so `twnb trust --folder sub` alone would not see it. Each as
    (the record's folder, the entry's name there, the entry). Only the records that can hold such
    entries are parsed, and those of folders deleted or renamed are pruned (gone_records.py)."""
    inside = os.path.realpath(folder)
    own = record_dir(inside, environ)
    root = quarantine_root(os.environ if environ is None else environ)
    found: list[tuple[str, str, dict[str, object]]] = []
    for place, record in concerning(root, inside):  # records of gone folders pruned on the way
        if place == own:
            continue
        holder = record.get("folder")
        entries = record.get("quarantined")
        if not isinstance(holder, str) or not isinstance(entries, dict):
            continue
        for name, entry in sorted(entries.items()):
            path = name if os.path.isabs(name) else os.path.join(holder, name)
            if isinstance(entry, dict) and (path == inside or path.startswith(inside + os.sep)):
                found.append((holder, name, entry))
    return found


def elsewhere_line(holder: str, name: str, entry: Mapping[str, object]) -> str:
    """One entry `recorded_elsewhere` found, as `twnb trust` lists it."""
    return _line(holder, name, entry, None).removeprefix(PREFIX)
