"""Which files a conversation's `artifact_paths` may bring along: only those in its own folders.

A conversation file is data from anywhere (a colleague's, a download, a hand edit), and its
`artifact_paths` name files that export copies beside the notebook and a Round's previews read. A path
may name `/etc/passwd`, `/proc/self/environ`, `../../elsewhere/secret.txt` or a symlink out of the
folder: each is judged by the real file it reaches (symlinks and `..` resolved), which must be a regular
file inside one of the conversation's folders (the notebook's folder tree, the session folder, the
artifacts folder), and neither hidden nor in a hidden folder below it (`.env` beside the notebook,
`~/.ssh` when the conversation sits in the home folder; the session folder is one of the folders).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DEFAULT_SESSION_FOLDER", "ArtifactPlaces", "notebook_folder_of"]

# The session folder's name beside the notebook unless the `session_dir` setting says otherwise (the
# settings table's default, kept equal by a test: importing the data model there would slow
# `%load_ext twnb`): autosaves, cassettes, and an older session's images.
DEFAULT_SESSION_FOLDER = ".twnb"


@dataclass(frozen=True)
class ArtifactPlaces:
    """The folders a conversation's artifact files may be read from, resolved."""

    folders: tuple[Path, ...]

    @classmethod
    def of(cls, folders: Iterable[str | os.PathLike[str] | None]) -> ArtifactPlaces:
        found: list[Path] = []
        for folder in folders:
            if folder is None:
                continue
            real = Path(folder).expanduser().resolve()
            if real not in found:
                found.append(real)
        return cls(tuple(found))

    def admits(self, path: str | os.PathLike[str]) -> Path | None:
        """The real path of `path` when it is a regular file inside one of the folders; else None."""
        try:
            real = Path(path).expanduser().resolve()
        except (OSError, RuntimeError):  # a symlink loop
            return None
        for folder in self.folders:
            if real.is_relative_to(folder) and not _hidden_between(folder, real):
                return real if real.is_file() else None
        return None

    def inside(self, path: str | os.PathLike[str]) -> bool:
        """True when `path` (existing or not) resolves into one of the folders."""
        try:
            real = Path(path).expanduser().resolve()
        except (OSError, RuntimeError):
            return False
        return any(real.is_relative_to(f) and not _hidden_between(f, real) for f in self.folders)


def _hidden_between(folder: Path, real: Path) -> bool:
    # The file's own name counts: `.env` beside the notebook holds its secrets.
    return any(part.startswith(".") for part in real.relative_to(folder).parts)


def notebook_folder_of(path: str | os.PathLike[str]) -> Path:
    """The folder of the notebook a conversation file belongs to: its own folder, or, for an autosave
    (`<notebook folder>/.twnb/<session>/rounds/`, the session folder hidden), the notebook's."""
    real = Path(path).expanduser().resolve()
    folder = real if real.is_dir() else real.parent
    if folder.name == "rounds" and folder.parent.parent.name.startswith("."):  # any session folder
        return folder.parent.parent.parent
    return folder
