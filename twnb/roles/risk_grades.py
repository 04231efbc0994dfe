"""Approvals graded by risk: the one table of what step mode's risky mode (`--step=risky`) runs without
asking and what it pauses on, and the verdict for one piece of code before it runs.

Each row is a grade: what the code would do, how verification finds it in the code (risk_effects.py,
and the kernel layer's in-place estimate), and what the runtime guard sees when the code does it
anyway (twnb/kernel/guard_effects.py; a sighting verification did not predict is recorded in the
Round). The README's table is made from this one (`python -m twnb.roles.risk_readme`;
tests/roles/test_risk_grades.py fails until it is).

A path is judged against the notebook's folder (the kernel's working folder) as it is when the code is
about to run: a file that exists then is one the code would overwrite. What verification cannot tell
(a computed path in a folder that exists, code it cannot follow) pauses, never passes.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twnb.analysis import PathGuess
from twnb.kernel import estimate_in_place
from twnb.roles.risk_effects import (
    CREATE,
    DATABASE,
    DELETE,
    ENVIRONMENT,
    MAYBE_WRITE,
    NETWORK,
    UNFOLLOWED,
    WORKING_FOLDER,
    Effect,
    code_effects,
)

# Grade keys: what a finding and a guard sighting are about.
OVERWRITE, REMOVE, OUTSIDE = "overwrite", "delete", "outside"
FOLDER, ENVIRON, NET = "working_folder", "environment", "network"
IN_PLACE, UNDO_BUDGET = "in_place", "undo_budget"


@dataclass(frozen=True)
class Grade:
    """One row of the table: `key`, whether risky mode pauses on it, what the code would do, how
    verification finds it, and what the runtime guard sees as the code runs."""

    key: str
    pauses: bool
    the_code: str
    verification: str
    guard: str


GRADES: tuple[Grade, ...] = (
    Grade(
        "reads",
        False,
        "reads files, computes, displays",
        "everything not below",
        "files opened for reading are not recorded",
    ),
    Grade(
        "artifacts",
        False,
        "writes inside the artifacts folder",
        "a path under `artifacts_dir`",
        "files written there",
    ),
    Grade(
        "new_file",
        False,
        "creates a file in the notebook's folder that did not exist",
        "a path under the notebook's folder that does not exist yet (a computed name: in a folder that "
        "does not exist yet)",
        "a file written that did not exist before",
    ),
    Grade(
        OVERWRITE,
        True,
        "overwrites a file that existed before",
        "`open` for writing or appending, `os.open` with any flag but read-only ones, `Path.write_text`, "
        "`to_csv`/`to_parquet`/`savefig`/`np.save` and other writers, `np.memmap` unless its mode reads, "
        "copies, moves, archives extracted, a database opened: at an existing path (through the links "
        "that exist, and those the code makes first with `os.symlink`, `os.link`, `Path.symlink_to`), "
        "a path it cannot tell, or a computed name in a folder that exists; `to_sql` or a statement "
        "other than a query written in the code (`SELECT`, `WITH ... SELECT`, `EXPLAIN`, `SHOW`, a `PRAGMA` "
        "that asks) through a database connection or cursor of the namespace",
        "a file written that existed before the code ran",
    ),
    Grade(
        REMOVE,
        True,
        "deletes a file that existed before",
        "`os.remove`, `Path.unlink`, `rmdir`, `shutil.rmtree`, the source of a move, at an existing or "
        "unknown path",
        "a file removed that existed before the code ran",
    ),
    Grade(
        OUTSIDE,
        True,
        "writes outside the notebook's folder",
        "any of the writes above at a path outside the notebook's folder (absolute, `..`, `~`)",
        "a file written outside the notebook's folder (not the temporary folder or caches)",
    ),
    Grade(
        FOLDER,
        True,
        "changes the working folder",
        "`os.chdir`, `os.fchdir`, `contextlib.chdir`",
        "the working folder changed",
    ),
    Grade(
        ENVIRON,
        True,
        "changes the environment",
        "`os.environ` changed (item, `update`, `pop`, ...), `os.putenv`/`unsetenv`, `sys.path` changed, an "
        "attribute of `sys` or `os` set, `os.umask`, `locale.setlocale`",
        "an environment variable set or unset; `sys.path` changed",
    ),
    Grade(
        NET,
        True,
        "reaches the network",
        "`requests`, `httpx`, `urllib.request`, `socket`, `http.client` and other network modules; a URL "
        "(`https://`, `s3://`, `postgresql://`, ...) given to a call; downloaders (`load_dataset`, "
        "scikit-learn's `fetch_*`)",
        "a connection, a name looked up, a URL opened",
    ),
    Grade(
        IN_PLACE,
        True,
        "changes in place a variable the Round did not create",
        "undo's estimate (`estimate_in_place`): item and attribute assignment, `del x[k]`, `inplace=True`, "
        "`out=`, mutating methods judged by the object's type (a query or a fetch on a database "
        "connection only reads), `x += ...` on a mutable object, through aliases, loop variables and "
        "functions the code defines",
        "a variable the Round did not create changed type, shape or dtype",
    ),
    Grade(
        UNDO_BUDGET,
        True,
        "changes in place more than the undo budget can copy",
        "a variable it may change in place whose copy does not fit `undo_budget_mb` (undo's estimate)",
        "(the undo bookkeeping names what it could not copy)",
    ),
    Grade(
        UNFOLLOWED,
        True,
        "does what verification cannot follow",
        "`exec`, `eval`, `compile`, `globals()`, `vars()`, `__import__`, `getattr`/`setattr`/`delattr` "
        "with a computed name, a module passed around as a value (`f(shutil)`), `__dict__`, "
        "`from shutil import *`",
        "whatever of the above it does",
    ),
)
GRADES_BY_KEY = {grade.key: grade for grade in GRADES}


@dataclass(frozen=True)
class RiskFinding:
    """Why risky mode pauses on a piece of code: the grade's `key`, what it concerns (`subject`: a
    path, a variable, an environment name), the line, and the reason in words."""

    key: str
    subject: str
    line: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"grade": self.key, "subject": self.subject, "line": self.line, "reason": self.reason}


@dataclass(frozen=True)
class RiskPlace:
    """Where the code will run: the notebook's folder (the working folder), the artifacts folder, the
    namespace (None when it lives in another process), the names this Round's earlier code created,
    the undo budget in megabytes (None: no budget), and the namespace's names that are not the user's
    (IPython's own)."""

    folder: Path
    artifacts: Path | None = None
    values: Mapping[str, Any] | None = None
    round_names: Collection[str] = ()
    undo_budget_mb: float | None = None
    hidden: Collection[str] = ()


def grade_code(code: str, place: RiskPlace) -> list[RiskFinding]:
    """The findings risky mode pauses on for `code` run in `place`, in code order (none: it may run
    without asking)."""
    findings: list[RiskFinding] = []
    for effect in code_effects(code, place.values):
        finding = _judge_effect(effect, place)
        if finding is not None:
            findings.append(finding)
    findings += _in_place(code, place)
    return sorted(findings, key=lambda f: f.line)


def _in_place(code: str, place: RiskPlace) -> list[RiskFinding]:
    """The user's variables the code may change in place, and those over the undo budget: undo's own
    estimate (twnb.kernel.estimate_in_place), less what this Round created (undoing the Round removes
    those whole)."""
    if place.values is None:
        return []  # another process's namespace: the guard's variable delta is the only check
    budget = place.undo_budget_mb if place.undo_budget_mb is not None else 1e12  # no budget: all fit
    estimate = estimate_in_place(code, place.values, budget, hidden=place.hidden)
    found: list[RiskFinding] = []
    for target in estimate.targets:
        if target.name in place.round_names:
            continue
        found.append(
            RiskFinding(
                IN_PLACE,
                target.name,
                target.line,
                f"it changes `{target.name}` in place (line {target.line}: {target.why}), a variable this "
                "Round did not create",
            )
        )
        if target in estimate.over_budget and place.undo_budget_mb is not None:
            found.append(
                RiskFinding(
                    UNDO_BUDGET,
                    target.name,
                    target.line,
                    f"`{target.name}` ({target.size_text}) is over the undo budget of "
                    f"{place.undo_budget_mb:g} MB: its change in place could not be undone",
                )
            )
    return found


# -- files and the rest ------------------------------------------------------------------------------


def _judge_effect(effect: Effect, place: RiskPlace) -> RiskFinding | None:
    where = f"line {effect.line}: {effect.how}"
    if effect.kind == WORKING_FOLDER:
        return RiskFinding(FOLDER, effect.subject, effect.line, f"it changes the working folder ({where})")
    if effect.kind == ENVIRONMENT:
        return RiskFinding(
            ENVIRON, effect.subject, effect.line, f"it changes the environment, {effect.subject} ({where})"
        )
    if effect.kind == DATABASE:
        return RiskFinding(
            OVERWRITE,
            effect.subject,
            effect.line,
            f"it may change the database `{effect.subject}` is connected to ({where})",
        )
    if effect.kind == UNFOLLOWED:
        return RiskFinding(
            UNFOLLOWED, effect.subject, effect.line, f"verification cannot follow what it does ({where})"
        )
    if effect.kind == NETWORK:
        return RiskFinding(NET, effect.subject, effect.line, f"it reaches the network ({where})")
    path = effect.path or PathGuess()
    if path.not_a_path:
        return None
    if effect.kind == DELETE:
        return _judge_delete(path, effect, place, where)
    return _judge_write(path, effect, place, where)


def _judge_write(path: PathGuess, effect: Effect, place: RiskPlace, where: str) -> RiskFinding | None:
    if path.text is None and path.prefix is None:
        return RiskFinding(
            OVERWRITE,
            "",
            effect.line,
            f"it writes to a path verification cannot tell, which may exist ({where})",
        )
    if path.text is None:  # a computed name: judged by the folder its known start names
        folder = _absolute(os.path.dirname(path.prefix or "") or ".", place)
        shown_folder = _shown(folder, place)
        if _under(folder, place.artifacts):
            return None
        if not _under(folder, place.folder) or not _under(os.path.realpath(folder), _real(place.folder)):
            return RiskFinding(
                OUTSIDE, shown_folder, effect.line, f"it writes outside the notebook's folder ({where})"
            )
        if not os.path.isdir(folder):
            return None  # every file it makes there is new
        return RiskFinding(
            OVERWRITE,
            shown_folder,
            effect.line,
            f"it writes files whose names it computes in {shown_folder}, which exists: it may overwrite one "
            f"({where})",
        )
    target = _absolute(path.text, place)
    shown = _shown(target, place)
    # Judged as the file system will see it: through links that exist now (a folder or file that is a
    # symlink to elsewhere is elsewhere).
    real = os.path.realpath(target)
    if _under(real, _real(place.artifacts)) and _under(target, place.artifacts):
        return None
    if not _under(real, _real(place.folder)):
        through = f" (a link to {real})" if _under(target, place.folder) else ""
        return RiskFinding(
            OUTSIDE,
            shown,
            effect.line,
            f"it writes {shown}{through}, outside the notebook's folder ({where})",
        )
    if effect.kind == CREATE or not os.path.lexists(target):
        return None
    verb = "may change" if effect.kind == MAYBE_WRITE else "overwrites"
    return RiskFinding(OVERWRITE, shown, effect.line, f"it {verb} {shown}, which exists ({where})")


def _judge_delete(path: PathGuess, effect: Effect, place: RiskPlace, where: str) -> RiskFinding | None:
    if path.text is None:
        return RiskFinding(
            REMOVE, path.prefix or "", effect.line, f"it deletes a path verification cannot tell ({where})"
        )
    target = _absolute(path.text, place)
    if _under(target, place.artifacts) or not os.path.lexists(target):
        return None
    shown = _shown(target, place)
    return RiskFinding(REMOVE, shown, effect.line, f"it deletes {shown}, which exists ({where})")


def _absolute(text: str, place: RiskPlace) -> str:
    return os.path.normpath(os.path.join(place.folder, os.path.expanduser(text)))


def _real(folder: Path | None) -> Path | None:
    return Path(os.path.realpath(folder)) if folder is not None else None


def _under(path: str, folder: Path | None) -> bool:
    if folder is None:
        return False
    base = os.path.normpath(os.fspath(folder))
    return path == base or path.startswith(base.rstrip(os.sep) + os.sep)


def _shown(path: str, place: RiskPlace) -> str:
    """`sales.csv` for a path in the notebook's folder, the absolute path elsewhere."""
    return os.path.relpath(path, place.folder) if _under(path, place.folder) else path
