"""`%taskweaver undo [ROUND]`: put the kernel back as it was before a Round, for what the Round did.

The kernel layer's `UndoLog` holds each run's snapshot (undo_log.py); this decides which Round, whether
it may be undone, and records it. A Round may be undone when nothing changed the names it touched
since: the later Rounds' records (their code's variable deltas, the names their code may have changed
in place, the user's cells recorded with them) and the names as they are now (bound to the object the
Round left, of the same type, shape and dtype, and with the content it left in what undo would put back
or drop: a fingerprint taken right after the Round's runs, so `lst[0] = 9` in the user's cell counts).
Otherwise undo is refused in one line naming them, unless forced. The undone Round stays in the
record, marked (`Round.extra["undone"]`), and autosaved.

Snapshots are kept for the last `KEPT_ROUNDS` Rounds only (and within the undo budget: undo_log.py);
an older Round can no longer be undone, and undo says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from twnb.base import now_iso
from twnb.kernel import UNDONE_FOLDER, UndoLog, UndoReport
from twnb.memory import Conversation, Round, UndoneRecord
from twnb.session.undone_links import relink_moved_files

KEPT_ROUNDS = 5
"""How many of the latest Rounds keep their snapshots (references to replaced objects, copies)."""


@dataclass
class UndoOutcome:
    """What `%taskweaver undo` did: `done`, and the one line to show (the refusal, or what was undone)."""

    done: bool
    line: str
    round: Round | None = None


def find_undo_round(conversation: Conversation, ref: str | None) -> Round | None:
    """`ref`: as `find_round` reads it; None: the last Round not undone yet."""
    if ref is None:
        return next((r for r in reversed(conversation.rounds) if not r.undone), None)
    return find_round(conversation, ref)


def find_round(conversation: Conversation, ref: str) -> Round | None:
    """A Round by id, by its 1-based number, or `last`; None when there is no such Round."""
    rounds = conversation.rounds
    if ref == "last":
        return rounds[-1] if rounds else None
    if ref.isdigit():
        index = int(ref) - 1
        return rounds[index] if 0 <= index < len(rounds) else None
    return next((r for r in rounds if r.id == ref), None)


def run_ids(round: Round, log: UndoLog) -> list[str]:
    """The Round's code runs the log holds, in the order they ran (a run's id is its post's)."""
    return [post.id for post in round.post_list if log.get(post.id) is not None]


def undo_round(
    conversation: Conversation,
    log: UndoLog,
    ref: str | None,
    *,
    force: bool,
    workdir: Path,
) -> UndoOutcome:
    round = find_undo_round(conversation, ref)
    rounds = conversation.rounds
    if round is None:
        what = "no Round to undo" if ref is None else f"no Round {ref!r} in this conversation"
        return UndoOutcome(False, f"Nothing was undone: {what}.")
    number = rounds.index(round) + 1
    if round.undone:
        return UndoOutcome(False, f"Round {number} was undone already; nothing was done.", round)
    ids = run_ids(round, log)
    ran_code = any(a.type.value == "execution_result" for p in round.post_list for a in p.attachment_list)
    if not ids and ran_code:
        return UndoOutcome(
            False,
            f"Round {number} cannot be undone: its snapshots are gone (only the last {KEPT_ROUNDS} "
            "Rounds of this kernel can be undone, and a restarted or reloaded kernel has none).",
            round,
        )
    changed = _changed_since(conversation, round, log, ids)
    if changed and not force:
        return UndoOutcome(
            False,
            f"Undo of Round {number} refused: {_changed_text(changed)} changed since the Round; "
            f"%taskweaver undo {number} --force undoes it anyway (their later changes are lost).",
            round,
        )
    report = log.undo(ids, workdir / UNDONE_FOLDER / round.id, within=workdir)
    record = _record(report, changed if force else {}, workdir)
    round.extra["undone"] = record
    relink_moved_files(round, report.files_moved, workdir)
    return UndoOutcome(True, f"Round {number}: {record['line']}", round)


def undo_piece(log: UndoLog, post_id: str, round: Round, workdir: Path) -> UndoneRecord | None:
    """Step mode's Undo: the piece of code that just ran (post `post_id`), before the Round goes on.
    None when its run keeps no snapshot (code run elsewhere)."""
    if log.get(post_id) is None:
        return None
    report = log.undo([post_id], workdir / UNDONE_FOLDER / round.id, within=workdir)
    return _record(report, {}, workdir)


def _changed_since(conversation: Conversation, round: Round, log: UndoLog, ids: list[str]) -> dict[str, str]:
    """The names the Round touched that something changed since -> what changed them."""
    touched: set[str] = set()
    for execution_id in ids:
        snapshot = log.get(execution_id)
        if snapshot is not None:
            touched.update(snapshot.touched)
    changed: dict[str, str] = {}
    rounds = conversation.rounds
    for number, later in enumerate(rounds[rounds.index(round) + 1 :], start=rounds.index(round) + 2):
        if later.undone:
            continue
        for cell in later.extra.get("user_cells") or []:
            count = cell.get("execution_count")
            for change in cell.get("variables") or []:
                name = change.get("name")
                if name in touched:
                    changed.setdefault(name, f"your cell [{count}]" if count is not None else "your cell")
        for name in _round_names(later):
            if name in touched:
                changed.setdefault(name, f"Round {number}")
    for name in log.changed_since(ids):
        changed.setdefault(name, "")
    for name in log.changed_in_place_since(ids):
        changed.setdefault(name, "in place")
    return changed


def _round_names(round: Round) -> list[str]:
    """The names a Round's code created, rebound, changed or deleted, and may have changed in place."""
    names: list[str] = list(round.extra.get("changed_in_place") or [])
    for post in round.post_list:
        for attachment in post.attachment_list:
            if attachment.type.value == "execution_result":
                extra = attachment.extra if isinstance(attachment.extra, dict) else {}
                names += [str(v.get("name")) for v in extra.get("variables") or [] if isinstance(v, dict)]
    return names


def _changed_text(changed: dict[str, str]) -> str:
    by: dict[str, list[str]] = {}
    for name, who in changed.items():
        by.setdefault(who, []).append(name)
    parts = [
        ", ".join(names) + (f" ({who})" if who == "in place" else f" (by {who})" if who else "")
        for who, names in by.items()
    ]
    return "; ".join(parts)


def _record(report: UndoReport, changed: dict[str, str], workdir: Path) -> UndoneRecord:
    parts: list[str] = []
    if report.removed:
        parts.append(f"removed {', '.join(report.removed)}")
    if report.restored:
        parts.append(f"restored {', '.join(report.restored)}")
    if report.files_restored:
        parts.append(f"restored {', '.join(Path(p).name for p in report.files_restored)}")
    if report.files_moved:
        folder = Path(next(iter(report.files_moved.values()))).parent
        shown = _relative(folder, workdir)
        parts.append(f"moved {', '.join(Path(p).name for p in report.files_moved)} to {shown}/")
    line = "Undone by the user: " + ("; ".join(parts) if parts else "its code changed nothing to take back")
    if report.not_undone:
        line += ". Not undone: " + "; ".join(report.not_undone)
    if changed:
        line += f". Forced past later changes to {', '.join(changed)}"
    record: UndoneRecord = {
        "undone_at": now_iso(),
        "line": line + ".",
        "forced": bool(changed),
        "restored": report.restored,
        "removed": report.removed,
        "files_restored": report.files_restored,
        "files_moved": report.files_moved,
        "not_undone": report.not_undone,
    }
    if changed:
        record["changed_since"] = list(changed)
    return record


def _relative(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)
