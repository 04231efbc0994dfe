"""The settings of a `pyproject.toml` or `setup.cfg` that make a developer tool started in its folder
load and run code: pytest's `addopts` (`-p module`) and `pythonpath`, mypy's `plugins` and
`python_executable`, coverage's `plugins`, pylint's `init-hook` and `load-plugins`, flake8's
`local-plugins`, tox's environments (their `commands`).

A person edits these two files while a confined kernel runs (a dependency's version, a description),
and an editor's save renames over the file, which takes the read-only mount away in the kernel's
namespace (docs/architecture.md, "Residual gaps"). So the warden judges their content, not their
name: the launcher keeps their text at the kernel's start (`settings_at_start`: a read, no parser
imported, so a start pays nothing more) in the session's record, outside the kernel's reach, and at
its end the file is moved aside only when the settings read from it now differ from those read from
that text (planted.py); an edit of anything else is left alone.

A file that does not parse (a key given twice included) is judged by its bytes (a digest): the tool's
own parser may read what this one refuses, so an unreadable file counts as changed unless it is byte
for byte the one of the start; so is one larger than MAX_SIZE. Run by the launcher at every start and
by the warden: the standard library only, the parsers imported only at the end, when such a file
changed.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Iterable, Mapping

# Files judged by their content rather than their name.
JUDGED_NAMES = ("pyproject.toml", "setup.cfg")
UNREADABLE = "(unparsed, sha256)"
MAX_SIZE = 256 * 1024  # a larger one is judged by its digest alone (and kept as one)

_PYTEST = ("addopts", "pythonpath", "confcutdir", "plugins", "required_plugins")
_MYPY = ("plugins", "python_executable")
# pylint loads the C extensions of the packages its allow-list names into its own process
_PYLINT = (
    "init-hook",
    "init_hook",
    "load-plugins",
    "load_plugins",
    "extension-pkg-allow-list",
    "extension-pkg-whitelist",
    "unsafe-load-any-extension",
)
_COVERAGE = ("plugins",)
_WHOLE: tuple[str, ...] = ()  # every key of the section

# pyproject.toml: (table path, keys; `*` in a path: any one sub-table)
_TOML_RULES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("tool", "pytest"), _PYTEST),
    (("tool", "pytest", "ini_options"), _PYTEST),
    (("tool", "mypy"), _MYPY),
    (("tool", "coverage", "run"), _COVERAGE),
    (("tool", "pylint"), _PYLINT),
    (("tool", "pylint", "*"), _PYLINT),
    (("tool", "tox"), _WHOLE),
)
# setup.cfg: (section name, or a prefix ending in `*`; keys)
_CFG_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("tool:pytest", _PYTEST),
    ("mypy", _MYPY),
    ("coverage:run", _COVERAGE),
    ("pylint*", _PYLINT),
    ("flake8:local-plugins", _WHOLE),
    ("tox:*", _WHOLE),
    ("testenv*", _WHOLE),
)

Settings = dict[str, str]  # "section key" -> the value as JSON


def code_loading_settings(path: str) -> Settings:
    """The code-loading settings of the file at `path` ({} when it is absent, not a regular file or
    holds none); an unparsable or too large one as its digest under UNREADABLE."""
    content = _read(path)
    return {} if content is None else _settings(os.path.basename(path), content)


def settings_at_start(folders: Iterable[str]) -> dict[str, dict[str, str]]:
    """For each JUDGED_NAMES file at the top of `folders` that exists: its real path and what the end
    compares with (`{"text": ...}`, or `{"digest": ...}` for one that is no UTF-8 text of at most
    MAX_SIZE bytes)."""
    found: dict[str, dict[str, str]] = {}
    for folder in folders:
        for name in JUDGED_NAMES:
            path = os.path.join(folder, name)
            content = _read(path)
            if content is None:
                continue
            kept = {"digest": _digest(content)}
            if len(content) <= MAX_SIZE:
                with contextlib.suppress(UnicodeDecodeError):
                    kept = {"text": content.decode("utf-8")}
            found[os.path.realpath(path)] = kept
    return found


def changed(path: str, at_start: Mapping[str, object]) -> bool:
    """Whether the file's code-loading settings differ from those at the start (`at_start`:
    `settings_at_start`'s answer, a file absent there had none)."""
    kept = at_start.get(os.path.realpath(path))
    before: Settings = {}
    if isinstance(kept, dict) and isinstance(kept.get("text"), str):
        before = _settings(os.path.basename(path), kept["text"].encode("utf-8"))
    elif isinstance(kept, dict) and isinstance(kept.get("digest"), str):
        before = {UNREADABLE: kept["digest"]}
    return code_loading_settings(path) != before


def _read(path: str) -> bytes | None:
    """The file's bytes (MAX_SIZE + 1 at most), None when it is absent or not a regular file."""
    try:  # not blocking on a FIFO the kernel made in the file's place
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        content = b""
        while len(content) <= MAX_SIZE and (chunk := os.read(fd, 1 << 16)):
            content += chunk
        return content
    except OSError:
        return None
    finally:
        os.close(fd)


def _digest(content: bytes) -> str:
    from hashlib import sha256  # lazy: hashlib (~4 ms, OpenSSL): only for a file kept as its digest

    return sha256(content).hexdigest()


def _settings(name: str, content: bytes) -> Settings:
    try:
        if len(content) > MAX_SIZE:
            raise ValueError("too large")
        text = content.decode("utf-8")
        return _from_toml(text) if name.endswith(".toml") else _from_cfg(text)
    except (ValueError, KeyError, TypeError):  # tomllib's errors and UnicodeDecodeError are ValueErrors
        return {UNREADABLE: _digest(content)}


def _pick(found: Settings, section: str, values: Mapping[str, object], keys: tuple[str, ...]) -> None:
    for key, value in values.items():
        # in any case: a tool that took `ADDOPTS` for `addopts` must not find it unlooked at
        if (not keys or key.lower() in keys) and not (keys and isinstance(value, dict)):
            found[f"{section} {key}"] = json.dumps(value, sort_keys=True, default=str)


def _from_toml(text: str) -> Settings:
    import tomllib  # lazy: tomllib (~15 ms): at a kernel's end, when a pyproject.toml changed

    document = tomllib.loads(text)
    found: Settings = {}
    for path, keys in _TOML_RULES:
        tables: list[tuple[str, Mapping[str, object]]] = [("", document)]
        for part in path:
            deeper: list[tuple[str, Mapping[str, object]]] = []
            for name, table in tables:
                items = table.items() if part == "*" else [(part, table.get(part))]
                deeper += [(f"{name}.{k}".lstrip("."), v) for k, v in items if isinstance(v, dict)]
            tables = deeper
        for name, table in tables:
            _pick(found, name, table, keys)
    return found


def _from_cfg(text: str) -> Settings:
    import configparser  # lazy: configparser (~8 ms): at a kernel's end, when a setup.cfg changed

    # strict: a key or section given twice raises (read as unparsable), so no reading of ours can
    # differ from the tool's on which of two values counts
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        parser.read_string(text)
    except configparser.Error as error:
        raise ValueError(str(error)) from error
    found: Settings = {}
    for section in parser.sections():
        for pattern, keys in _CFG_RULES:
            if section == pattern or (pattern.endswith("*") and section.startswith(pattern[:-1])):
                _pick(found, section, dict(parser.items(section, raw=True)), keys)
    return found
