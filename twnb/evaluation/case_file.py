"""TaskWeaver's evaluation case files, read unchanged, and the folders that hold them.

A case is one YAML mapping (TaskWeaver's `auto_eval` format)::

    version: 0.1                      # read, not used
    app_dir: ../project/              # TaskWeaver's project folder: its plugins, see case_settings.py
    config_var: {...}                 # TaskWeaver settings: mapped to twnb's, see case_settings.py
    dependencies: [numpy, "pandas>=2"]
    data_files: [demo_data.csv]       # beside the case file; copied beside the case's notebook
    task_description: |-              # for the virtual user, never shown to the agent
      ...
    scoring_points:
      - score_point: "The mean is 78172.75"
        weight: 1
        eval_code: null               # or Python that asserts over `chat_history`

TaskWeaver's other keys are kept: `verbose` (the agent's inner messages go to the virtual user too) and
`pre_command` (shell commands run first, as TaskWeaver runs them: pre_command.py). twnb
adds one optional key, `max_rounds`, the Rounds the virtual user may ask for (default: the command's).

TaskWeaver keeps each case in a folder of its own with its data files; `twnb eval` takes a case file, a
folder holding case files, or a folder of such folders (one level down).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twnb.memory import load_yaml_file

__all__ = ["CaseError", "EvalCase", "ScoringPoint", "case_name", "find_cases", "read_case"]

# Keys TaskWeaver's case files use, and the one twnb adds; anything else is named in the case's notes.
KNOWN_KEYS = frozenset(
    {
        "version",
        "app_dir",
        "config_var",
        "dependencies",
        "data_files",
        "task_description",
        "scoring_points",
        "verbose",
        "pre_command",
        "max_rounds",
    }
)


class CaseError(ValueError):
    """A case file that cannot be run as written; the message names the file and what to fix."""


@dataclass(frozen=True)
class ScoringPoint:
    """One criterion: judged by the evaluator LLM, or by `eval_code` when the case gives some."""

    score_point: str
    weight: float
    eval_code: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"score_point": self.score_point, "weight": self.weight, "eval_code": self.eval_code}


@dataclass(frozen=True)
class EvalCase:
    name: str  # the case folder's name, as TaskWeaver's results name it (`case_file`)
    path: Path  # the case YAML
    task_description: str
    scoring_points: tuple[ScoringPoint, ...]
    data_files: tuple[str, ...] = ()
    dependencies: tuple[str, ...] = ()
    config_var: Mapping[str, Any] = field(default_factory=dict)
    app_dir: str | None = None
    verbose: bool = False
    pre_command: tuple[str, ...] = ()
    max_rounds: int | None = None
    unknown_keys: tuple[str, ...] = ()

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def max_score(self) -> float:
        return sum(point.weight for point in self.scoring_points)


def read_case(path: str | os.PathLike[str], name: str | None = None) -> EvalCase:
    """The case in the YAML file at `path`, checked; a CaseError says what is wrong and where.

    `name` defaults to the folder's name when the folder holds this one case (TaskWeaver's layout),
    else to the file's name without `.yaml`."""
    path = Path(path).resolve()
    where = str(path)
    try:
        data = load_yaml_file(path)
    except FileNotFoundError:
        raise CaseError(f"{where}: no such case file") from None
    except (OSError, ValueError) as error:
        raise CaseError(
            f"{where}: not a readable case file: {_yaml_problem(error, path)}; fix it, or move it out of "
            "the cases' folder"
        ) from None
    if not isinstance(data, Mapping):
        raise CaseError(f"{where}: a case file is a YAML mapping with task_description and scoring_points")
    task = data.get("task_description")
    if not isinstance(task, str) or not task.strip():
        raise CaseError(
            f"{where}: task_description must be the task, as text for the virtual user"
            + _near_spellings(data)
        )
    points = _scoring_points(data.get("scoring_points"), where, _near_spellings(data))
    config_var = data.get("config_var") or {}
    if not isinstance(config_var, Mapping):
        raise CaseError(f"{where}: config_var must be a mapping of TaskWeaver settings to values")
    app_dir = data.get("app_dir")
    max_rounds = data.get("max_rounds")
    if max_rounds is not None and (
        isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1
    ):
        raise CaseError(f"{where}: max_rounds must be a whole number of Rounds, 1 or more")
    return EvalCase(
        name=name or case_name(path),
        path=path,
        task_description=task.strip(),
        scoring_points=points,
        data_files=_texts(data.get("data_files"), "data_files", where),
        dependencies=_texts(data.get("dependencies"), "dependencies", where),
        config_var=dict(config_var),
        app_dir=str(app_dir) if app_dir else None,
        verbose=bool(data.get("verbose", False)),
        pre_command=_texts(data.get("pre_command"), "pre_command", where),
        max_rounds=max_rounds,
        unknown_keys=tuple(sorted(str(key) for key in data if key not in KNOWN_KEYS)),
    )


def _yaml_problem(error: Exception, path: Path) -> str:
    """The reader's message on one line, without the file's name it starts with (the line already
    names it) and with PyYAML's own words kept: `not valid YAML: while parsing ... (line 3, column 1)`."""
    text = str(error).removeprefix(f"{path}: ")
    text = " ".join(text.split())
    return _YAML_MARK.sub(r" (line \1, column \2)", text)


def _scoring_points(raw: Any, where: str, near: str = "") -> tuple[ScoringPoint, ...]:
    if not isinstance(raw, list) or not raw:
        raise CaseError(f"{where}: scoring_points must be a list of {{score_point, weight}} entries" + near)
    points = []
    for number, item in enumerate(raw, start=1):
        at = f"{where}: scoring point {number}"
        if not isinstance(item, Mapping):
            raise CaseError(f"{at} must be a mapping with score_point and weight")
        text = item.get("score_point")
        if not isinstance(text, str) or not text.strip():
            raise CaseError(f"{at}: score_point must say what the agent should have done, as text")
        weight = item.get("weight", 1)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight):
            raise CaseError(f"{at}: weight must be a number, got {weight!r}")
        if weight <= 0:
            raise CaseError(f"{at}: weight must be more than 0, got {weight!r}")
        code = item.get("eval_code")
        if code is not None and not isinstance(code, str):
            raise CaseError(f"{at}: eval_code must be Python code as text, or null")
        points.append(ScoringPoint(text.strip(), float(weight), code if code and code.strip() else None))
    return tuple(points)


def _texts(raw: Any, key: str, where: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(item, str) and item.strip() for item in raw):
        raise CaseError(f"{where}: {key} must be a list of texts")
    return tuple(item.strip() for item in raw)


# A top-level key that is, or nearly is, one a case must have (`scoring_point:`, `task_desc:`,
# `Scoring_Points:`): such a file is a case, valid or not, and gets a row either way.
_CASE_KEY = re.compile(
    r"^['\"]?(task[ _-]?desc\w*|scor(e|ing)[ _-]?points?)['\"]?\s*:", re.IGNORECASE | re.MULTILINE
)
# Where PyYAML says the problem is, and the line and caret it quotes after.
_YAML_MARK = re.compile(r"\s*line (\d+), column (\d+):.*$")
# The keys a near spelling stands for, to say which one was meant.
_MEANT = {"task": "task_description", "scor": "scoring_points"}


def _looks_like_case(path: Path) -> bool:
    """A YAML file with task_description or scoring_points, or a near spelling of either, as a
    top-level key (a cassette, a conversation or twnb.yaml has neither)."""
    if path.name.endswith(".cassette.yaml") or not path.is_file():
        return False
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:200_000]
    except OSError:
        return False
    return _CASE_KEY.search(head) is not None


def _near_spellings(data: Mapping[Any, Any]) -> str:
    """` (it has scoring_point: did you mean scoring_points?)` for a key that nearly is a case's."""
    for key in data:
        match = _CASE_KEY.match(f"{key}:")
        meant = _MEANT[str(key)[:4].lower()] if match else None
        if meant is not None and key != meant:
            return f" (it has {key}: did you mean {meant}?)"
    return ""


def case_name(path: Path) -> str:
    """A case's name: its folder's when the folder holds this one case (TaskWeaver's layout), else
    its file's without `.yaml`."""
    return path.parent.name if len(_case_files_in(path.parent)) == 1 else path.stem


def _case_files_in(folder: Path) -> list[Path]:
    files = sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")])
    return [path for path in files if _looks_like_case(path)]


def find_cases(paths: list[str | os.PathLike[str]]) -> tuple[list[EvalCase], list[tuple[Path, str]]]:
    """The cases at `paths` (files, folders of case files, folders of case folders), in the order
    given and by name within a folder, and the case files that could not be read, each with why.

    A path that does not exist, or a folder with no case in it or one level down, is a CaseError: the
    command line was wrong, not a case."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise CaseError(f"{path}: no such file or folder")
        if path.is_file():
            found.append(path)
            continue
        here = _case_files_in(path)
        below = [
            case for sub in sorted(p for p in path.iterdir() if p.is_dir()) for case in _case_files_in(sub)
        ]
        if not here and not below:
            raise CaseError(
                f"{path}: no case files here or in its folders (a case file is YAML with "
                "task_description and scoring_points)"
            )
        found.extend(here + below)
    cases: list[EvalCase] = []
    broken: list[tuple[Path, str]] = []
    seen: set[Path] = set()
    for path in found:
        resolved = path.resolve()
        if resolved in seen:
            continue
        seen.add(resolved)
        try:
            cases.append(read_case(resolved))
        except CaseError as error:
            broken.append((resolved, str(error)))
    return cases, broken
