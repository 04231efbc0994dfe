"""Artifacts copied beside an exported notebook, so its links work wherever the folder goes.

Jupyter Server answers 404 for anything in a hidden folder (`.twnb/`), and a notebook sent to a
colleague cannot point into the sender's disk: each file a Round points at is copied into one visible
folder beside the notebook and linked relative to it. A file that is gone is named, not fatal.
"""

from __future__ import annotations

import filecmp
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

DEFAULT_FOLDER = "twnb-artifacts"


def visible_folder(setting: object) -> str:
    """The folder (relative to the notebook) the `artifacts_dir` setting names, when it is a visible
    relative one; else the default. A hidden folder would leave every link answering 404."""
    if not isinstance(setting, str) or not setting or Path(setting).is_absolute():
        return DEFAULT_FOLDER
    parts = PurePosixPath(setting.replace("\\", "/")).parts
    return DEFAULT_FOLDER if any(p.startswith(".") or p == ".." for p in parts) else setting


@dataclass
class ArtifactCopies:
    """Where each artifact path of the conversation went: `moved[original] = absolute path beside the
    notebook`; `missing` the paths that named no file (kept as they were)."""

    moved: dict[str, Path] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    copied: list[Path] = field(default_factory=list)


def artifact_paths(conversation: Any) -> Iterable[Any]:
    """Every `artifact_paths` attachment of the conversation."""
    for round in conversation.rounds:
        for post in round.post_list:
            for attachment in post.attachment_list:
                if attachment.type.value == "artifact_paths":
                    yield attachment


def copy_artifacts(
    conversation: Any, *, source_dir: Path, out_dir: Path, folder: str = DEFAULT_FOLDER
) -> ArtifactCopies:
    """Copy every file the conversation points at into `out_dir/folder` (a file already visible
    inside `out_dir` stays where it is) and rewrite the attachments to the new absolute paths."""
    copies = ArtifactCopies()
    target_dir = out_dir / folder
    for attachment in artifact_paths(conversation):
        content = attachment.content
        paths = [content] if isinstance(content, str) else [str(p) for p in content or []]
        attachment.content = [str(_place(p, source_dir, out_dir, target_dir, copies)) for p in paths]
    return copies


def _place(
    path: str, source_dir: Path, out_dir: Path, target_dir: Path, copies: ArtifactCopies
) -> str | Path:
    if path in copies.moved:
        return copies.moved[path]
    source = Path(path).expanduser()
    if not source.is_absolute():
        source = source_dir / source
    if not source.is_file():
        if path not in copies.missing:
            copies.missing.append(path)
        # Named as the conversation file named it (relative to its folder), not by this machine's path.
        return _relative_to(source, source_dir) or path
    source = source.resolve()
    inside = _visible_inside(source, out_dir.resolve())
    if inside:
        copies.moved[path] = source
        return source
    target_dir.mkdir(parents=True, exist_ok=True)
    target = _free_name(target_dir, source)
    if not target.exists():
        shutil.copy2(source, target)
        copies.copied.append(target)
    copies.moved[path] = target
    return target


def _relative_to(path: Path, folder: Path) -> str | None:
    try:
        return path.resolve().relative_to(folder.resolve()).as_posix()
    except ValueError:
        return None


def _visible_inside(path: Path, folder: Path) -> bool:
    try:
        relative = path.relative_to(folder)
    except ValueError:
        return False
    return not any(part.startswith(".") for part in PurePosixPath(relative.as_posix()).parts)


def _free_name(folder: Path, source: Path) -> Path:
    """`folder/<name>`, or `<stem>-2<suffix>` ... when another file of that name is already there
    (two Rounds may each have saved `plot.png`); the same file copied again reuses its name."""
    candidate = folder / source.name
    number = 1
    while candidate.exists() and not filecmp.cmp(candidate, source, shallow=False):
        number += 1
        candidate = folder / f"{source.stem}-{number}{source.suffix}"
    return candidate
