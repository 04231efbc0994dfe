"""Files data libraries write from C, told to the runtime guard: their writes raise no audit event.

pandas 3 writes Parquet through `pyarrow.OSFile`, which opens the file in C++; pyarrow's and polars'
own writers do the same. Python's `open` is never called, so the guard's audit hook (runtime_guard.py)
never sees these files. Their Python entry points are few and public: each is wrapped once, so that
a call from an armed thread records the path it was given as written, then does exactly what it did.
File objects need nothing (they were opened through Python); a dataset written into a folder is not
followed.

Libraries are wrapped when they are already loaded as the guard starts and, through a finder on
`sys.meta_path`, right after they are imported later (often by the generated code itself).
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from twnb.kernel.guard.guard_events import FileEffect


@dataclass(frozen=True)
class Writer:
    """`attribute` of `module` (a dotted path: `DataFrame.write_parquet`) writes to the path given as
    argument `position` (a method's `self` is 0; a class's arguments count from 0) or keyword
    `keyword`; `mode` names its mode argument when it may also read (`pyarrow.OSFile`), as
    (position, keyword, default)."""

    module: str
    attribute: str
    position: int
    keyword: str
    mode: tuple[int, str, str] | None = None


WRITERS: tuple[Writer, ...] = (
    Writer("pyarrow", "OSFile", 0, "path", mode=(1, "mode", "r")),
    Writer("pyarrow", "output_stream", 0, "source"),
    Writer("pyarrow.parquet", "write_table", 1, "where"),
    Writer("pyarrow.parquet.core", "write_table", 1, "where"),
    Writer("pyarrow.feather", "write_feather", 1, "dest"),
    Writer("pyarrow.orc", "write_table", 1, "where"),
    Writer("pyarrow.csv", "write_csv", 1, "output_file"),
    *(
        Writer("polars.dataframe.frame", f"DataFrame.{name}", 1, "file")
        for name in ("write_parquet", "write_csv", "write_ipc", "write_json", "write_ndjson", "write_avro")
    ),
    *(
        Writer("polars.lazyframe.frame", f"LazyFrame.{name}", 1, "path")
        for name in ("sink_parquet", "sink_csv", "sink_ipc", "sink_ndjson")
    ),
)


class LibraryWriters:
    """Wraps the writers of `writers`; each call records its path through `armed_record`, which files
    it in the calling thread's run when that thread is armed (and ignores it otherwise)."""

    def __init__(
        self, armed_record: Callable[[FileEffect], None], writers: Sequence[Writer] = WRITERS
    ) -> None:
        self.armed_record = armed_record
        self.by_module: dict[str, list[Writer]] = {}
        for writer in writers:
            self.by_module.setdefault(writer.module, []).append(writer)
        self._lock = threading.Lock()

    def install(self) -> None:
        """Wrap what is loaded now, and whatever of the rest is imported later."""
        for name in self.by_module:
            module = sys.modules.get(name)
            if module is not None:
                self.wrap_module(module)
        if not any(isinstance(finder, _AfterImport) for finder in sys.meta_path):
            sys.meta_path.insert(0, _AfterImport(self))

    def wrap_module(self, module: ModuleType) -> None:
        with self._lock:
            for writer in self.by_module.get(module.__name__, ()):
                self._wrap(module, writer)

    def _wrap(self, module: ModuleType, writer: Writer) -> None:
        *owner_path, name = writer.attribute.split(".")
        owner: Any = module
        for part in owner_path:
            owner = getattr(owner, part, None)
            if owner is None:
                return
        original = getattr(owner, name, None)
        if original is None or getattr(original, "_twnb_records_writes", False):
            return
        record = self._recorder(writer)
        if isinstance(original, type):
            replacement: Any = _recording_subclass(original, record)
        else:
            replacement = _recording_function(original, record)
        setattr(owner, name, replacement)

    def _recorder(self, writer: Writer) -> Callable[[tuple[Any, ...], dict[str, Any]], None]:
        armed_record = self.armed_record

        def record(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            path = _argument(args, kwargs, writer.position, writer.keyword)
            if not isinstance(path, str | os.PathLike):
                return
            if writer.mode is not None:
                position, keyword, default = writer.mode
                mode = _argument(args, kwargs, position, keyword)
                if not any(c in str(mode if mode is not None else default) for c in "wax+"):
                    return
            armed_record(FileEffect("write", os.path.abspath(os.fsdecode(os.fspath(path)))))

        return record


def _argument(args: tuple[Any, ...], kwargs: dict[str, Any], position: int, keyword: str) -> Any:
    if keyword in kwargs:
        return kwargs[keyword]
    return args[position] if len(args) > position else None


def _recording_function(original: Callable[..., Any], record: Callable[..., None]) -> Callable[..., Any]:
    @functools.wraps(original)
    def recording(*args: Any, **kwargs: Any) -> Any:
        record(args, kwargs)
        return original(*args, **kwargs)

    recording._twnb_records_writes = True  # type: ignore[attr-defined]
    return recording


def _recording_subclass(original: type, record: Callable[..., None]) -> type:
    # A subclass, so isinstance checks on the library's class still hold. Recorded in __new__: a C
    # base opens the file there (pyarrow's __cinit__), and whether the file existed must be seen first.
    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        record(args, kwargs)
        return original.__new__(cls, *args, **kwargs)

    subclass = type(original.__name__, (original,), {"__new__": __new__, "_twnb_records_writes": True})
    subclass.__module__ = original.__module__
    subclass.__qualname__ = original.__qualname__
    return subclass


class _AfterImport(importlib.abc.MetaPathFinder):
    """Wraps a library's writers as soon as its module has been executed by an import."""

    def __init__(self, writers: LibraryWriters) -> None:
        self.writers = writers
        self._busy = threading.local()

    def find_spec(
        self, fullname: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.writers.by_module or getattr(self._busy, "on", False):
            return None
        self._busy.on = True
        try:
            spec = importlib.util.find_spec(fullname)
        except (ImportError, ValueError):
            return None
        finally:
            self._busy.on = False
        if spec is None or spec.loader is None:
            return None
        spec.loader = _WrappingLoader(spec.loader, self.writers)
        return spec


class _WrappingLoader(importlib.abc.Loader):
    """The module's own loader, which then has the module's writers wrapped. Everything else (resource
    readers, get_source) is the original loader's."""

    def __init__(self, loader: Any, writers: LibraryWriters) -> None:
        self._loader = loader
        self._writers = writers

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        # The module keeps its own loader: only this import goes through us.
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        self._writers.wrap_module(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)
