""".env files, read into a dict without touching ``os.environ``.

twnb reads the notebook folder's ``.env`` as one layer of its settings (docs/architecture.md, contract 4).
Loading it into ``os.environ`` would hand every secret in it to the code the model writes, which runs in
this very process; so the file is parsed here and only the values twnb needs are used.

Supported syntax (the common subset of python-dotenv and docker's env files)::

    # a comment
    export OPENAI_API_KEY=sk-...      # "export " is optional
    TWNB_MODEL = gpt-4o-mini          # spaces around "=" are fine; " #" starts a comment
    LLM_API_BASE="http://localhost:11434/v1"   # double quotes: \\n, \\t, \\" and \\\\ escapes
    GREETING='hello # not a comment'  # single quotes: taken literally

``${VAR}`` expansion and multi-line values are not supported. A line that is not ``NAME=value`` is
skipped with a warning that names the file and line number but never the line (it may hold a secret).
"""

from __future__ import annotations

import re
from pathlib import Path

from twnb.base import get_logger

__all__ = ["parse_dotenv", "read_dotenv"]

_log = get_logger(__name__)

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_DOUBLE_QUOTE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "$": "$"}


def read_dotenv(path: Path) -> dict[str, str]:
    """The variables of the .env file at ``path``; ``{}`` when there is none."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (FileNotFoundError, IsADirectoryError):
        return {}
    return parse_dotenv(text, source=str(path))


def parse_dotenv(text: str, *, source: str = ".env") -> dict[str, str]:
    """Parse .env text; later assignments of a name win, as when a shell sources the file."""
    values: dict[str, str] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parsed = _parse_line(line)
        if parsed is None:
            _log.warning("%s:%d is not NAME=value; line skipped", source, lineno)
            continue
        name, value = parsed
        values[name] = value
    return values


def _parse_line(line: str) -> tuple[str, str] | None:
    if line.startswith("export ") or line.startswith("export\t"):
        line = line[len("export") :].lstrip()
    name, sep, rest = line.partition("=")
    name = name.strip()
    if not sep or not _NAME.fullmatch(name):
        return None
    value = _parse_value(rest.lstrip())
    if value is None:
        return None
    return name, value


def _parse_value(rest: str) -> str | None:
    if rest.startswith("'"):
        end = rest.find("'", 1)
        if end < 0:
            return None
        return rest[1:end] if _only_comment_after(rest[end + 1 :]) else None
    if rest.startswith('"'):
        out: list[str] = []
        i = 1
        while i < len(rest):
            ch = rest[i]
            if ch == "\\" and i + 1 < len(rest):
                nxt = rest[i + 1]
                out.append(_DOUBLE_QUOTE_ESCAPES.get(nxt, "\\" + nxt))
                i += 2
                continue
            if ch == '"':
                return "".join(out) if _only_comment_after(rest[i + 1 :]) else None
            out.append(ch)
            i += 1
        return None
    # Unquoted: a "#" starts a comment only after whitespace, so URLs with fragments survive.
    comment = re.search(r"\s#", rest)
    if comment:
        rest = rest[: comment.start()]
    return rest.strip()


def _only_comment_after(tail: str) -> bool:
    tail = tail.strip()
    return not tail or tail.startswith("#")
