"""An undone Round's links follow the files undo moved into `twnb-undone/<round id>/`.

Undo moves the files a Round's code created out of the way (they may be the inputs of nothing else,
but they are kept). The Round's artifact paths and the Markdown links of its messages (the answer's
"[table](unusual_weeks.csv)") still named the old places, where nothing is now: every view (the static
HTML, the widget, the extension, an export, which copies the files it links) then linked to nothing.
They are pointed at where undo put the files; the undone record keeps the old paths
(`files_moved`: old -> new).
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from twnb.memory import Post, Round

# A Markdown link or image target: `[text](target)`, `![alt](target "title")`.
_LINK_TARGET = re.compile(r"(\]\()(<?)([^)\s>]+)(>?)")


def relink_moved_files(round: Round, moved: Mapping[str, str], workdir: Path) -> None:
    """Point `round`'s artifact paths and message links at the files' places after undo (`moved`:
    old absolute path -> new)."""
    for post in round.post_list:
        relink_post(post, moved, workdir)


def relink_post(post: Post, moved: Mapping[str, str], workdir: Path) -> None:
    """The same for one post: step mode's Undo of the piece of code that just ran moves the files it
    made before its post joins the Round."""
    if not moved:
        return
    by_place = {_real(old, workdir): new for old, new in moved.items()}
    for attachment in post.attachment_list:
        if attachment.type.value != "artifact_paths":
            continue
        content = attachment.content
        paths = [content] if isinstance(content, str) else [str(p) for p in content or []]
        attachment.content = [by_place.get(_real(p, workdir), p) for p in paths]
    if isinstance(post.message, str) and "](" in post.message:
        post.message = _LINK_TARGET.sub(lambda m: _relinked(m, by_place, workdir), post.message)


def _relinked(match: re.Match[str], by_place: Mapping[str, str], workdir: Path) -> str:
    target = urllib.parse.unquote(match.group(3).split("#")[0].split("?")[0])
    if not target or "://" in target:
        return match.group(0)
    new = by_place.get(_real(target, workdir))
    if new is None:
        return match.group(0)
    shown = Path(os.path.relpath(new, workdir)).as_posix() if not Path(target).is_absolute() else new
    return f"{match.group(1)}{match.group(2)}{urllib.parse.quote(shown, safe='/')}{match.group(4)}"


def _real(path: str, workdir: Path) -> str:
    place = Path(path).expanduser()
    return os.path.normpath(place if place.is_absolute() else workdir / place)
