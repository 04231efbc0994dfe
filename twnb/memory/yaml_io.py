"""YAML reading and writing: safe loader only, libyaml when present, atomic saves.

Writing: keys in the order given (`sort_keys=False`), unicode as is, multi-line text as `|-` blocks
when YAML allows it (as TaskWeaver's hand-written examples look), never anchors/aliases.

Reading takes plain data only, and refuses what a hostile or broken file could use to hang or crash
the kernel, each with a `ConversationFormatError` naming the file and line: aliases (a few hundred
bytes of `*a` references expand to billions of values on the next save), nesting deeper than
`MAX_DEPTH` (the pure-Python loader and every walk over the data recurse), files over `MAX_FILE_BYTES`,
and tagged values that are not plain data (`!!set`, `!!binary`, `!!omap`, `!!pairs`, `!!timestamp`).
An untagged date or time (`2024-05-01`) stays the text it is: conversations keep times as ISO text.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from twnb.base import gc_paused
from twnb.memory.reading import ConversationFormatError, Location

# Far deeper than any conversation (about 12 levels, tool output included), far shallower than
# Python's recursion limit, which the pure-Python loader and every recursive walk would hit.
MAX_DEPTH = 100
# A conversation is text: even hundreds of Rounds with big results stay well below this.
MAX_FILE_BYTES = 128 * 1024 * 1024
# What one save may write once shared values are counted as often as they appear.
MAX_VALUES = 20_000_000

_TAG = "tag:yaml.org,2002:"
_NOT_PLAIN_TAGS = {
    f"{_TAG}set": "a set (!!set)",
    f"{_TAG}binary": "binary data (!!binary)",
    f"{_TAG}omap": "an ordered map (!!omap)",
    f"{_TAG}pairs": "a list of pairs (!!pairs)",
    f"{_TAG}timestamp": "a timestamp (!!timestamp)",
}


class _Refused(yaml.YAMLError):
    """A file this module will not read; the text says where and why."""


def _at(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "somewhere"


def _refuse_tag(loader: Any, node: yaml.Node) -> Any:
    raise _Refused(
        f"{_at(node.start_mark)}: {_NOT_PLAIN_TAGS[node.tag]} is not plain data; conversation files hold "
        "text, numbers, true/false, lists and mappings only: write the value as text or a list"
    )


def _check_nodes(root: yaml.Node) -> None:
    """Refuse aliases, non-scalar or empty keys and nesting beyond MAX_DEPTH, before any value is built.

    An alias makes the composer hand out the node it refers to again, so a node met twice is one. The
    walk uses its own stack: it must not recurse on the very files it is there to refuse. (Every load
    pays for it: it looks at collections only, scalars are most of a conversation.)"""
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    scalar, mapping, null = yaml.ScalarNode, yaml.MappingNode, f"{_TAG}null"
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _Refused(
                f"{_at(node.start_mark)}: nested deeper than {MAX_DEPTH} levels (MAX_DEPTH); a "
                "conversation needs about a dozen: this file is broken or hostile"
            )
        if type(node) is scalar:
            continue
        is_mapping = type(node) is mapping
        # Reversed: the last pushed is walked first, so the walk meets values in the file's order.
        for item in reversed(node.value):
            if is_mapping:
                key, child = item
                if type(key) is not scalar or key.tag == null:
                    raise _Refused(
                        f"{_at(key.start_mark)}: a mapping key must be text or a number, not "
                        f"{'nothing' if type(key) is scalar else 'a list or mapping'}"
                    )
            else:
                child = item
            if type(child) is scalar:
                continue  # an alias of a scalar repeats one value: harmless
            if id(child) in seen:
                raise _Refused(
                    f"{_at(node.start_mark)}: a YAML alias (*name) repeats the value anchored at "
                    f"{_at(child.start_mark)}; conversation files never need aliases (a few of them can "
                    "expand to billions of values): write the value out"
                )
            seen.add(id(child))
            stack.append((child, depth + 1))


def _check_events(text: str) -> None:
    """The same refusals from the pure-Python parser's events (it keeps its own stack: no recursion),
    run before the pure-Python loader, whose composer recurses once per level."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(
                f"{_at(event.start_mark)}: a YAML alias (*{event.anchor}) is not allowed; conversation "
                "files never need aliases (a few of them can expand to billions of values): write the "
                "value out"
            )
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise _Refused(
                    f"{_at(event.start_mark)}: nested deeper than {MAX_DEPTH} levels (MAX_DEPTH); a "
                    "conversation needs about a dozen: this file is broken or hostile"
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _make_loader(base: Any) -> type:  # yaml.CSafeLoader or yaml.SafeLoader
    class Loader(base):  # type: ignore[misc]
        def construct_document(self, node: yaml.Node) -> Any:
            _check_nodes(node)
            return super().construct_document(node)

    # Untagged dates and times stay text: a datetime is not plain data and would fail the next save.
    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != f"{_TAG}timestamp"]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    for tag in _NOT_PLAIN_TAGS:
        Loader.add_constructor(tag, _refuse_tag)
    return Loader


# libyaml is 5-10x faster on the large execution results conversations carry; fall back silently.
_Loader: type = _make_loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader))
_PyLoader: type = _Loader if _Loader.__mro__[1] is yaml.SafeLoader else _make_loader(yaml.SafeLoader)
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
    class Dumper(base):  # type: ignore[misc]
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
    """The path of the first value that is not plain data (dict/list/str/number/bool/None), or nested
    deeper than MAX_DEPTH (a container that holds itself, say); None when all of it is plain."""
    return _find_non_plain(data, path, 1, {})


def _size(data: Any, sizes: dict[int, int]) -> int:
    return sizes.get(id(data), 1) if isinstance(data, dict | list) else 1


def _find_non_plain(data: Any, path: str, depth: int, sizes: dict[int, int]) -> str | None:
    if data is None or isinstance(data, str | bool | int | float):
        return None
    if depth > MAX_DEPTH:
        return f"{path or '<top>'} (nested deeper than {MAX_DEPTH} levels)"
    if id(data) in sizes:
        return None  # a shared container, checked already: counted again below, never walked again
    if isinstance(data, Mapping) and type(data) is dict:
        total = 1
        for key, value in data.items():
            if not isinstance(key, str | int | float | bool):
                return f"{path or '<top>'} (key {key!r} of type {type(key).__name__})"
            found = _find_non_plain(value, f"{path}.{key}" if path else str(key), depth + 1, sizes)
            if found is not None:
                return found
            total += _size(value, sizes)
        sizes[id(data)] = min(total, MAX_VALUES + 1)
        return None
    if type(data) is list:
        total = 1
        for index, value in enumerate(data):
            found = _find_non_plain(value, f"{path}[{index}]", depth + 1, sizes)
            if found is not None:
                return found
            total += _size(value, sizes)
        sizes[id(data)] = min(total, MAX_VALUES + 1)
        return None
    return f"{path or '<top>'} ({type(data).__module__}.{type(data).__qualname__})"


def dump_yaml(data: Any) -> str:
    """`data` as YAML text; a ValueError names the first value that is not plain data."""
    sizes: dict[int, int] = {}  # one walk finds both what is not plain and how much would be written
    bad = _find_non_plain(data, "", 1, sizes)
    if bad is not None:
        raise ValueError(
            f"cannot write YAML: {bad} is not plain data (dict, list, str, number, bool or None); "
            "convert it before saving"
        )
    if _size(data, sizes) > MAX_VALUES:
        raise ValueError(
            f"cannot write YAML: the data holds more than {MAX_VALUES:,} values (MAX_VALUES) once the "
            "values it shares are written out, each copy in full; it repeats the same data over and over"
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
    """Parse YAML text with the safe loader and the refusals above; a ConversationFormatError (a
    ValueError) names `source` and the line for anything it will not read."""
    return _parse(text, source, lambda loader: yaml.load(text, Loader=loader))


def load_yaml_documents(text: str, source: str = "<string>") -> list[Any]:
    """Every document of a multi-document YAML text (`---` between them), read as `load_yaml_text`
    reads one."""
    documents: list[Any] = _parse(text, source, lambda loader: list(yaml.load_all(text, Loader=loader)))
    return documents


def _parse(text: str, source: str, load: Callable[[type], Any]) -> Any:
    where = Location(file=source)
    if len(text) > MAX_FILE_BYTES:
        raise where.error(_too_big(len(text), "characters"))
    try:
        try:
            return load(_Loader)  # _Loader is a safe loader
        except _Refused:
            raise
        except yaml.YAMLError:
            if _Loader is _PyLoader:
                raise
            # Either truly malformed (the safe pure-Python loader says so again, as clearly), or text
            # libyaml refuses, such as an escaped lone surrogate (see _PyDumper) or nesting past its
            # own limit, which the event check refuses before the recursive composer sees it.
            _check_events(text)
            return load(_PyLoader)
    except _Refused as refused:
        raise where.error(str(refused)) from None
    except yaml.YAMLError as error:
        raise where.error(
            # The location prefix names the file; PyYAML's own placeholder name would only confuse.
            f"not valid YAML: {error}".replace("\n", " ").replace('in "<unicode string>", ', "")
        ) from None


def _too_big(size: int, unit: str) -> str:
    return (
        f"{size:,} {unit} is more than the {MAX_FILE_BYTES:,} twnb reads (MAX_FILE_BYTES); "
        "a conversation file this large is not one twnb wrote"
    )


def load_yaml_file(path: str | os.PathLike[str]) -> Any:
    """Parse a YAML file with the safe loader; malformed YAML is a ValueError naming the file."""
    path = os.fspath(path)
    with open(path, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        if size > MAX_FILE_BYTES:
            raise Location(file=path).error(_too_big(size, "bytes"))
        raw = file.read(MAX_FILE_BYTES + 1)  # a file that grew since: still bounded
    if len(raw) > MAX_FILE_BYTES:
        raise Location(file=path).error(_too_big(len(raw), "bytes"))
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
