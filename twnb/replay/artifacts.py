"""Artifacts copied beside an exported notebook, so its links work wherever the folder goes.

Jupyter Server answers 404 for anything in a hidden folder (`.twnb/`), and a notebook sent to a
colleague cannot point into the sender's disk: each file a Round points at is copied into one visible
folder beside the notebook and linked relative to it, and the Round's messages that linked to the
original link to the copy. A file that is gone is named, not fatal. Only files in the conversation's
own folders are copied (`twnb.memory.artifact_places`): any other path is named and left out.
"""

from __future__ import annotations

import filecmp
import os
import re
import shutil
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from twnb.memory import DEFAULT_SESSION_FOLDER, ArtifactPlaces, notebook_folder_of

if TYPE_CHECKING:
    from twnb.memory import Attachment, Conversation

DEFAULT_FOLDER = "twnb-artifacts"


def conversation_places(source_dir: Path, folders: Iterable[str | Path | None] = ()) -> ArtifactPlaces:
    """The conversation's own folders: the notebook's folder (the conversation file's, or the one an
    autosave belongs to), the session folder of that name by default, and `folders` (the settings'
    session and artifacts folders)."""
    notebook = notebook_folder_of(source_dir)
    return ArtifactPlaces.of([notebook, notebook / DEFAULT_SESSION_FOLDER, *folders])


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
    notebook`; `missing` the paths that named no file (kept as they were); `refused` the paths outside
    the conversation's folders (left out of the notebook, never read)."""

    moved: dict[str, Path] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    copied: list[Path] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    by_source: dict[Path, Path] = field(default_factory=dict)  # the real file -> where the notebook has it


def artifact_paths(conversation: Conversation) -> Iterable[Attachment]:
    """Every `artifact_paths` attachment of the conversation."""
    for round in conversation.rounds:
        for post in round.post_list:
            for attachment in post.attachment_list:
                if attachment.type.value == "artifact_paths":
                    yield attachment


def copy_artifacts(
    conversation: Conversation,
    *,
    source_dir: Path,
    out_dir: Path,
    folder: str = DEFAULT_FOLDER,
    places: ArtifactPlaces | None = None,
) -> ArtifactCopies:
    """Copy every file the conversation points at that `places` admits (default: conversation_places)
    into `out_dir/folder` (a file already visible inside `out_dir` stays where it is) and rewrite the
    attachments to the new absolute paths; a path outside is left out of its attachment."""
    copies = ArtifactCopies()
    target_dir = out_dir / folder
    places = places if places is not None else conversation_places(source_dir)
    for attachment in artifact_paths(conversation):
        content = attachment.content
        paths = [content] if isinstance(content, str) else [str(p) for p in content or []]
        placed = [_place(p, source_dir, out_dir, target_dir, copies, places) for p in paths]
        attachment.content = [str(p) for p in placed if p is not None]
    return copies


def _place(
    path: str,
    source_dir: Path,
    out_dir: Path,
    target_dir: Path,
    copies: ArtifactCopies,
    places: ArtifactPlaces,
) -> str | Path | None:
    if path in copies.moved:
        return copies.moved[path]
    if path in copies.refused:
        return None
    source = Path(path).expanduser()
    if not source.is_absolute():
        source = source_dir / source
    if not places.inside(source):
        copies.refused.append(path)
        return None
    if not source.is_file():
        if path not in copies.missing:
            copies.missing.append(path)
        # Named as the conversation file named it (relative to its folder), not by this machine's path.
        return _relative_to(source, source_dir) or path
    admitted = places.admits(source)
    if admitted is None:  # not a regular file (a device, a fifo): never read
        copies.refused.append(path)
        return None
    source = admitted
    inside = _visible_inside(source, out_dir.resolve())
    if inside:
        copies.moved[path] = copies.by_source[source] = source
        return source
    target_dir.mkdir(parents=True, exist_ok=True)
    target = _free_name(target_dir, source)
    if not target.exists():
        shutil.copy2(source, target)
        copies.copied.append(target)
    copies.moved[path] = target
    copies.by_source[source] = target
    return target


# A Markdown link or image target: `[text](target)`, `![alt](target "title")`.
_LINK_TARGET = re.compile(r"(\]\()(<?)([^)\s>]+)(>?)")


def relink_messages(
    conversation: Conversation, copies: ArtifactCopies, *, source_dir: Path, out_dir: Path
) -> None:
    """Point the Markdown links in the conversation's messages (the answer's "[chart](plot.png)") at
    the copies beside the notebook, where they named a file that was copied or kept."""
    if not copies.by_source:
        return
    out_real = out_dir.resolve()
    for round in conversation.rounds:
        for post in round.post_list:
            if isinstance(post.message, str) and "](" in post.message:
                post.message = _LINK_TARGET.sub(
                    lambda m: _relinked(m, copies, source_dir, out_real), post.message
                )


def _relinked(match: re.Match[str], copies: ArtifactCopies, source_dir: Path, out_dir: Path) -> str:
    target = urllib.parse.unquote(match.group(3).split("#")[0].split("?")[0])
    if "://" in target or not target:
        return match.group(0)
    path = Path(target).expanduser()
    try:
        real = (path if path.is_absolute() else source_dir / path).resolve()
    except (OSError, RuntimeError):
        return match.group(0)
    new = copies.by_source.get(real)
    if new is None:
        return match.group(0)
    relative = urllib.parse.quote(Path(os.path.relpath(new, out_dir)).as_posix(), safe="/")
    return f"{match.group(1)}{match.group(2)}{relative}{match.group(4)}"


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
