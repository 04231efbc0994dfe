"""A fresh kernel has no Rounds, but the notebook it belongs to may hold them: say how to load them.

Jupyter Server names a kernel's notebook in the `JPY_SESSION_NAME` environment variable (a path, made
absolute by recent servers; older ones give it relative to the server's root). Every Round's output
carries the Round, so a notebook in which Rounds ran can be loaded back. Nothing is loaded here: the
user decides.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def notebook_offer(workdir: Path, environ: Mapping[str, str] | None = None) -> str | None:
    """One line offering `%taskweaver load NOTEBOOK` when this kernel's notebook holds Rounds."""
    name = (environ if environ is not None else os.environ).get("JPY_SESSION_NAME", "")
    if not name.lower().endswith(".ipynb"):
        return None
    path = _find(Path(name), workdir)
    if path is None:
        return None
    from twnb.replay import read_notebook  # lazy: twnb.replay loads nbformat (~300 modules, ~1 s)

    try:
        rounds = len(read_notebook(path).conversation.rounds)
    except (OSError, ValueError):
        return None  # not readable, or no twnb data: nothing to offer
    if not rounds:
        return None
    shown = os.path.relpath(path, workdir) if path.is_relative_to(workdir) else str(path)
    return (
        f"This notebook ({path.name}) holds {rounds} Round{'s' if rounds != 1 else ''} from an earlier "
        f"kernel: %taskweaver load {shown} brings them back (nothing is re-run)."
    )


def _find(path: Path, workdir: Path) -> Path | None:
    candidates = [path] if path.is_absolute() else [workdir / path, workdir / path.name]
    return next((p for p in candidates if p.is_file()), None)
