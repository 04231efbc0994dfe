"""Module names an installed library imports though nothing may install them: its declared requirements.

pandas imports `numexpr` and `bottleneck` at `import pandas` when it finds them, xarray imports
`bottleneck`, pandas' `read_hdf` imports `tables`: a library tries its optional dependencies and uses
what it finds. A `numexpr.py` written into a folder an import looks in (the notebook's folder, first
for a script or kernel started there) is then run by the next `import pandas`, though no installed
module of that name exists to be shadowed. Such names are the requirements installed distributions
declare (`Requires-Dist` in a `*.dist-info/METADATA`, `requires.txt` in an `*.egg-info`), their
extras included (pandas' `numexpr; extra == "performance"`), by the name they are imported as.

Left out: requirements only of an extra that serves the library's own development (`test`, `docs`,
`dev`, `lint`, `typing`, ...: DEVELOPMENT_EXTRAS): its developers' tools (pytest, sphinx, `mock`,
`build`, `tox`), which import the library, not the other way round. Measured on twnb's environment
(187 distributions): 408 names declared that nothing installs, 223 once those are left out; none of
them is a name a model gives its own helper module (`utils`, `helpers`, `data`, `config`, `test`,
`report`, `analysis` are declared by no distribution there). Environment markers are not evaluated
(that needs `packaging`): a requirement of another platform (`pywin32; sys_platform == "win32"`) counts,
under names nobody gives a module of their own.

Cheap: read from the files directly, never through `importlib.metadata` (which parses each whole
METADATA, descriptions included: ~5x the time, bench/bench_declared_imports.py); a METADATA file is read
up to its headers' end; a folder is read again only when its modification time changed (an install
or removal renames a `*.dist-info` in it). Stdlib only, importing nothing of twnb: sent as source, with
the runtime guard, to kernels where twnb is not installed (kernel_guard.py), and run by the confined
kernel's warden (planted.py).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

# A distribution's name, normalized (PEP 503, `-` for `_`), to the top-level module it is imported as,
# where they differ (beyond case and `-`/`.` for `_`). Only a requirement nothing installs needs it
# (an installed one is judged by its files); these are the ones pandas, xarray, fsspec, ibis and
# IPython declare as optional, and the commonest elsewhere.
IMPORT_NAMES: Mapping[str, str] = {
    "beautifulsoup4": "bs4",
    "pillow": "PIL",
    "pyyaml": "yaml",
    "python-dateutil": "dateutil",
    "scikit-learn": "sklearn",
    "scikit-image": "skimage",
    "opencv-python": "cv2",
    "opencv-python-headless": "cv2",
    "odfpy": "odf",
    "psycopg2-binary": "psycopg2",
    "pyjwt": "jwt",
    "pysocks": "socks",
    "pyzmq": "zmq",
    "python-dotenv": "dotenv",
    "python-snappy": "snappy",
    "websocket-client": "websocket",
    "mysqlclient": "MySQLdb",
    "netcdf4": "netCDF4",
    "pyqt5": "PyQt5",
    "pyqt6": "PyQt6",
    "pyside6": "PySide6",
    "pycairo": "cairo",
    "pygithub": "github",
    "libarchive-c": "libarchive",
    "google-re2": "re2",
    "cx-oracle": "cx_Oracle",
    "ipython": "IPython",
    "fonttools": "fontTools",
    "grpcio": "grpc",
    "argon2-cffi": "argon2",
    "python-json-logger": "pythonjsonlogger",
    "rpds-py": "rpds",
    "pywinpty": "winpty",
    "snowflake-connector-python": "snowflake",
    "mysql-connector-python": "mysql",
    "databricks-sql-connector": "databricks",
}

# Extras that serve a library's own development (their requirements are its developers' tools): an
# extra whose name, normalized, is one of these or starts with one and a `-`
DEVELOPMENT_EXTRAS = frozenset(
    {
        "test",
        "tests",
        "testing",
        "doc",
        "docs",
        "documentation",
        "dev",
        "devel",
        "develop",
        "development",
        "lint",
        "linting",
        "typing",
        "types",
        "type",
        "mypy",
        "check",
        "checks",
        "qa",
        "style",
        "cover",
        "coverage",
        "bench",
        "benchmark",
        "benchmarks",
        "enabler",
    }
)

_NAME = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")
_EXTRA = re.compile(r"""\bextra\s*==\s*['"]([^'"]+)['"]""")
_SEPARATORS = re.compile(r"[-_.]+")
# the core metadata's fields as every tool writes them (headers after a newline: `header` starts with one)
_NAME_HEADER = re.compile(rb"\nName:[ \t]*([^\n]*)")
_REQUIRES_HEADER = re.compile(rb"\nRequires-Dist:[ \t]*([^\n]*)")
_CHUNK = 1 << 13  # most headers are shorter; a long one (a License field) takes more reads


@functools.cache
def import_name(distribution: str) -> str:
    """The top-level module a distribution of this name is imported as (IMPORT_NAMES, else its name
    normalized with `_`); "" when that is no identifier."""
    normalized = _SEPARATORS.sub("-", distribution).lower()
    name = IMPORT_NAMES.get(normalized) or normalized.replace("-", "_")
    return name if name.isidentifier() else ""


def declared_name(requirement: str) -> str:
    """The module a requirement line (`numexpr>=2.8; extra == "performance"`) names, "" when it names
    none or only a development extra does (DEVELOPMENT_EXTRAS)."""
    found = _NAME.match(requirement)
    if found is None:
        return ""
    _, _, marker = requirement.partition(";")
    if "extra" in marker:
        extras = _EXTRA.findall(marker)
        if extras and all(_development(extra) for extra in extras):
            return ""
    return import_name(found.group(1))


@functools.cache
def _development(extra: str) -> bool:
    normalized = _SEPARATORS.sub("-", extra).lower()
    return normalized in DEVELOPMENT_EXTRAS or normalized.split("-", 1)[0] in DEVELOPMENT_EXTRAS


def importers_said(importers: Iterable[str]) -> str:
    """Who imports a declared module, said after it: "pandas imports if it finds it"."""
    names = sorted(set(importers), key=str.lower)
    if len(names) == 1:
        return f"{names[0]} imports if it finds it"
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"installed libraries import if they find it ({shown})"


class _Folder(NamedTuple):
    """The modules one folder's distributions declare, as of the folder's modification time."""

    mtime_ns: int
    declared: dict[str, tuple[str, ...]]


class DeclaredImports:
    """The modules the distributions installed in some folders declare, each with the distributions
    that declare it (their names as they give them); read when first asked, again for a folder whose
    modification time changed."""

    def __init__(self) -> None:
        self._folders: dict[str, _Folder] = {}
        self._merged: tuple[tuple[tuple[str, int], ...], dict[str, tuple[str, ...]]] | None = None

    def read(self, folders: Iterable[str]) -> Mapping[str, tuple[str, ...]]:
        """Module name -> the distributions in `folders` (real paths, sys.path's folders) that declare
        it; one `stat` per folder when none changed."""
        key = []
        for folder in dict.fromkeys(folders):
            try:
                mtime_ns = os.stat(folder).st_mtime_ns
            except OSError:
                continue
            key.append((folder, mtime_ns))
        stamp = tuple(key)
        if self._merged is not None and self._merged[0] == stamp:
            return self._merged[1]
        merged: dict[str, tuple[str, ...]] = {}
        for folder, mtime_ns in stamp:
            kept = self._folders.get(folder)
            if kept is None or kept.mtime_ns != mtime_ns:
                kept = self._folders[folder] = _Folder(mtime_ns, _read_folder(folder))
            for name, importers in kept.declared.items():
                merged[name] = merged.get(name, ()) + importers
        self._merged = (stamp, merged)
        return merged


def _read_folder(folder: str) -> dict[str, tuple[str, ...]]:
    declared: dict[str, list[str]] = {}
    try:
        with os.scandir(folder) as entries:
            found = [(entry.name, entry.path) for entry in entries]
    except OSError:  # not a folder (a zip file), or unreadable
        return {}
    for name, path in found:
        if name.endswith(".dist-info"):
            importer, requirements = _dist_info(path)
        elif name.endswith(".egg-info"):
            importer, requirements = name.removesuffix(".egg-info").partition("-")[0], _egg_info(path)
        else:
            continue
        for requirement in requirements:
            module = declared_name(requirement)
            if module and importer and import_name(importer) != module:
                listed = declared.setdefault(module, [])
                if importer not in listed:
                    listed.append(importer)
    return {module: tuple(importers) for module, importers in declared.items()}


def _dist_info(path: str) -> tuple[str, list[str]]:
    """A `*.dist-info`'s name and requirements, read from its METADATA's headers (up to the first blank
    line: the description after it can be long), as bytes (one decode per requirement)."""
    name = os.path.basename(path).removesuffix(".dist-info").partition("-")[0]
    header = b"\n"
    try:
        with open(os.path.join(path, "METADATA"), "rb") as metadata:
            while True:
                chunk = metadata.read(_CHUNK)
                header += chunk.replace(b"\r\n", b"\n")  # a chunk cut inside `\r\n`: a stray `\r`, ignored
                end = header.find(b"\n\n", 1)
                if end >= 0 or not chunk:
                    header = header[:end] if end >= 0 else header
                    break
    except OSError:
        return name, []
    named = _NAME_HEADER.search(header)
    if named is not None:
        name = named.group(1).decode("utf-8", "replace").strip() or name
    return name, [found.decode("utf-8", "replace").strip() for found in _REQUIRES_HEADER.findall(header)]


def _egg_info(path: str) -> list[str]:
    """An `*.egg-info` folder's requirements (`requires.txt`: the plain ones, then `[extra]` and
    `[:marker]` sections), each as a requirement line with its extra."""
    requirements = []
    extra = ""
    try:
        with open(os.path.join(path, "requires.txt"), encoding="utf-8", errors="replace") as listed:
            for line in listed:
                line = line.strip()
                if line.startswith("["):
                    extra = line.strip("[]").partition(":")[0]
                elif line and not line.startswith("#"):
                    requirements.append(f'{line}; extra == "{extra}"' if extra else line)
    except OSError:  # an `*.egg-info` file (PKG-INFO only), or none
        pass
    return requirements
