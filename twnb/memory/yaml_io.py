"""YAML reading and writing: safe loader only, libyaml when present, atomic saves.

Writing: keys in the order given (`sort_keys=False`), unicode as is, multi-line text as `|-` blocks
when YAML allows it (as TaskWeaver's hand-written examples look), never anchors/aliases.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from twnb.memory.gc_pause import gc_paused
from twnb.memory.reading import ConversationFormatError, Location

# libyaml is 5-10x faster on the large execution results conversations carry; fall back silently.
_Loader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


# Line breaks YAML knows beyond \n: pure-Python PyYAML writes them raw in quoted scalars and then
# reads them back as line breaks (libyaml escapes them). Double quotes always escape them.
_UNICODE_BREAKS = ("\x85", "\u2028", "\u2029")


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    if any(mark in data for mark in _UNICODE_BREAKS):
        style: str | None = '"'
    else:
        # Multi-line text as a `|` block, as TaskWeaver's examples look; the emitter still picks a
        # quoted style when a block cannot hold the text exactly (trailing spaces, tabs, controls).
        style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


def _make_dumper(base: type) -> type:
    class Dumper(base):  # type: ignore[misc, valid-type]
        def ignore_aliases(self, data: Any) -> bool:
            return True

    Dumper.add_representer(str, _represent_str)
    return Dumper


_Dumper = _make_dumper(_BaseDumper)
# libyaml cannot hold a lone surrogate (a half emoji from a model's `"\ud83d"`, an undecodable file
# name from os.listdir): its dumper fails to encode it and its loader refuses the `\uD83D` escape.
# The pure-Python pair writes and reads that escape, so text libyaml refuses goes through them.
_PyDumper = _make_dumper(yaml.SafeDumper)


def find_non_plain(data: Any, path: str = "") -> str | None:
    """The path of the first value that is not plain data (dict/list/str/number/bool/None)."""
    if data is None or isinstance(data, str | bool | int | float):
        return None
    if isinstance(data, Mapping) and type(data) is dict:
        for key, value in data.items():
            if not isinstance(key, str | int | float | bool):
                return f"{path or '<top>'} (key {key!r} of type {type(key).__name__})"
            found = find_non_plain(value, f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
        return None
    if type(data) is list:
        for index, value in enumerate(data):
            found = find_non_plain(value, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    return f"{path or '<top>'} ({type(data).__module__}.{type(data).__qualname__})"


def dump_yaml(data: Any) -> str:
    """`data` as YAML text; a ValueError names the first value that is not plain data."""
    bad = find_non_plain(data)
    if bad is not None:
        raise ValueError(
            f"cannot write YAML: {bad} is not plain data (dict, list, str, number, bool or None); "
            "convert it before saving"
        )
    # The representer builds a node per value: pausing cycle collection keeps big saves linear.
    with gc_paused():
        try:
            return _dump(data, _Dumper)
        except UnicodeEncodeError:
            return _dump(data, _PyDumper)


def _dump(data: Any, dumper: type) -> str:
    return yaml.dump(
        data, Dumper=dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=4096
    )


def load_yaml_text(text: str, source: str = "<string>") -> Any:
    try:
        try:
            return yaml.load(text, Loader=_Loader)  # _Loader is a safe loader
        except yaml.YAMLError:
            if _Loader is yaml.SafeLoader:
                raise
            # Either truly malformed (the safe pure-Python loader says so again, as clearly) or
            # text libyaml refuses, such as an escaped lone surrogate (see _PyDumper).
            return yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        raise ConversationFormatError(
            # The location prefix names the file; PyYAML's own placeholder name would only confuse.
            f"not valid YAML: {error}".replace("\n", " ").replace('in "<unicode string>", ', ""),
            location=Location(file=source),
        ) from None


def load_yaml_file(path: str | os.PathLike[str]) -> Any:
    """Parse a YAML file with the safe loader; malformed YAML is a ValueError naming the file."""
    path = os.fspath(path)
    with open(path, "rb") as file:
        raw = file.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConversationFormatError(
            f"not UTF-8 text (byte {error.start} is {raw[error.start : error.start + 1]!r}); "
            "YAML conversation files are UTF-8: re-save it with that encoding",
            location=Location(file=path),
        ) from None
    return load_yaml_text(text, source=path)


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Replace `path` with `text` in one step: a temp file in the same folder, then `os.replace`.

    On any failure the old file is untouched and the temp file is removed. The file keeps an existing
    file's permissions; a new one gets the usual 0o666 less the umask, applied by the OS when the temp
    file is created (mkstemp's 0o600 would hide the conversation from other tools, and reading the
    umask means setting it, which would race other threads of the user's kernel).
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    handle, temp_name = _create_temp(folder, target.name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temp_name, target.stat().st_mode & 0o7777)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise


def _create_temp(folder: Path, name: str) -> tuple[int, str]:
    """A new file `.NAME.<random>.tmp` in `folder`, created with mode 0o666 (less the umask)."""
    for _ in range(100):
        temp_name = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(temp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), temp_name
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file beside {name} in {folder}")


def save_yaml_file(path: str | os.PathLike[str], data: Any) -> None:
    """Serialise first (so a bad value never touches the disk), then replace the file atomically."""
    write_text_atomic(path, dump_yaml(data))
