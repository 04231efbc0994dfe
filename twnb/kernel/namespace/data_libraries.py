"""Which libraries for data bigger than memory this kernel has, told to the model in the prompt.

A model that does not know polars is installed writes pandas; one that does not know a Dask cluster is
connected computes on one core. The text is read from the kernel itself: `sys.modules` for what is
imported (and, from an imported `distributed`, the connected Client's workers), the import system's
finders for what is installed. Nothing is imported to find out. Versions are left out: the text must
not change with every upgrade (a recorded conversation replays only while its prompts stay the same).

The text appears only once the user has imported one of them (pyarrow aside: pandas imports it by
itself), so a pandas notebook's prompts stay as they were.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

# Verification allows these by default (roles/verification_policy.py reads this list).
BIG_DATA_LIBRARIES: tuple[str, ...] = (
    "dask",
    "distributed",
    "polars",
    "duckdb",
    "pyarrow",
    "pyspark",
    "ibis",
    "xarray",
    "zarr",
)
# Imported without the user asking (pandas imports pyarrow): never a reason to show the text.
_IMPORTED_BY_OTHERS = frozenset({"pyarrow"})
_HEADER = "Libraries for data bigger than memory in this kernel (verification allows them):"


def _installed(module_name: str) -> bool:
    if module_name in sys.modules:
        return True
    try:
        return importlib.util.find_spec(module_name) is not None  # finds, never imports
    except (ImportError, ValueError):
        return False


def _dask_client() -> str:
    """What the connected distributed Client runs on, from an already imported `distributed`."""
    none = "Dask: no distributed Client is connected; dask computes on this kernel's threads."
    distributed: Any = sys.modules.get("distributed")
    if distributed is None:
        return none
    try:
        client = distributed.default_client()
    except ValueError:  # what it raises when no Client was made (or all are closed)
        return none
    return (
        f"Dask: a distributed Client is connected ({client_resources(client)}); "
        ".compute() and .persist() run on that cluster."
    )


def client_resources(client: Any) -> str:
    """'2 workers, 4 threads' for a connected Dask Client."""
    info = client.scheduler_info(n_workers=0)  # cluster totals only: cheap on a thousand workers
    return f"{count(info.get('n_workers'), 'worker')}, {count(info.get('total_threads'), 'thread')}"


def count(number: Any, noun: str) -> str:
    """`1 worker`, `2 workers`."""
    return f"{number} {noun}" + ("" if number == 1 else "s")


def data_libraries_text() -> str:
    """The prompt's lines on these libraries, or "" when the user has imported none of them."""
    imported = [m for m in BIG_DATA_LIBRARIES if m in sys.modules]
    if not [m for m in imported if m not in _IMPORTED_BY_OTHERS]:
        return ""
    present = []
    missing = []
    for module_name in BIG_DATA_LIBRARIES:
        if not _installed(module_name):
            missing.append(module_name)
            continue
        present.append(module_name + (" (imported)" if module_name in imported else ""))
    lines = [_HEADER, "- installed: " + ", ".join(present)]
    if missing:
        lines.append("- not installed: " + ", ".join(missing))
    if "dask" in sys.modules:
        lines.append("- " + _dask_client())
    return "\n".join(lines)
