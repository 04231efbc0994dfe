"""Where an artifact is, as a saved notebook can link to it: relative to the notebook's folder, and
labelled by its file name (the folder is the same for every artifact of a session)."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path, PurePosixPath


def display_path(path: str | Path, base_dir: str | Path | None) -> str:
    """`path` relative to `base_dir` (the notebook's folder) when inside it, so links work from the
    notebook and saved output does not carry the machine's absolute paths."""
    path = Path(path)
    if base_dir is not None and path.is_absolute():
        try:
            return path.resolve().relative_to(Path(base_dir).resolve()).as_posix()
        except ValueError:
            pass
    return str(path)


def artifact_url(name: str) -> str | None:
    """A link target for an artifact shown as `name` (from `display_path`): visible relative paths
    only (Jupyter Server refuses to serve a path with a hidden part, so a link there could only
    fail), percent-encoded so a hostile file name cannot end the link or pick a scheme."""
    if not name or Path(name).is_absolute() or name.startswith(("~", "\\")):
        return None
    if _is_hidden(name):
        return None
    return urllib.parse.quote(name, safe="/")


def artifact_label(name: str) -> str:
    """The name users read for an artifact: its file name, not the folder it was saved in."""
    return PurePosixPath(name.replace("\\", "/")).name or name


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_WEB_URL = re.compile(r"^https?://[^/?#\s]+", re.IGNORECASE)
_RELATIVE_SAFE = "/#?=%-._~+,;@!$*'"  # `&` and `:` are percent-encoded: no entity, no scheme
_URL_SAFE = _RELATIVE_SAFE + "&:[]"


def safe_link_target(target: str) -> str | None:
    """A link target from untrusted text, made safe to write into Markdown or HTML, or None to refuse it.

    Allowed: http(s) URLs, and relative paths (no scheme, not starting with `/`, `\\` or `//`, no
    hidden part such as `.twnb/`, which the server refuses to serve; `..` is fine: a link, not a file
    read). Refused: every other scheme (`javascript:`, `data:`, `vbscript:`,
    `file:` ...). The result is percent-encoded so the renderer cannot read it differently: in a
    relative path `&` and `:` are encoded (some renderers decode character references in link
    targets, twice even, which could spell `javascript&#58;`); an http(s) URL keeps its `&` query
    separators, and decoding after its literal `https://` prefix cannot change the scheme.
    """
    if not target or any(char.isspace() or char in '()<>\\`"' for char in target):
        return None
    if _WEB_URL.match(target):
        return urllib.parse.quote(target, safe=_URL_SAFE)
    if (
        _SCHEME.match(target)
        or target.startswith(("/", "\\"))
        or _is_hidden(target.split("#")[0].split("?")[0])
    ):
        return None
    return urllib.parse.quote(target, safe=_RELATIVE_SAFE)


def _is_hidden(path: str) -> bool:
    """A path with a part starting with a dot: Jupyter Server answers 404 for those, so no link."""
    return any(part.startswith(".") and part not in (".", "..") for part in PurePosixPath(path).parts)
