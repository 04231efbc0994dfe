"""A kernel's filesystem, reached through the kernel when it is not ours.

A kernel started from a kernelspec may run on another machine (Jupyter Enterprise Gateway, a Spark or
YARN cluster) or in a container; one attached by its connection file may run anywhere. Files its code
writes then exist only there, and a link to them from here is dead. Whether the kernel shares our
filesystem is tested, not guessed: a marker file with a random token is written in our folder and the
kernel is asked to read it back at the same absolute path (the hostname alone would be wrong both ways:
a container on this machine, a shared home over NFS). When it does not, the files are scanned in the
kernel and small ones are copied here through the kernel; larger ones are named with the host and path
where they are.

Every function takes `evaluate(expression) -> value`: an expression evaluated in the kernel whose repr
is read back with `ast.literal_eval` (both executors and the demo have one).
"""

from __future__ import annotations

import base64
import inspect
import os
import secrets
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twnb.kernel.capture import scan_directory

Evaluate = Callable[[str], Any]

# Copied back through the kernel: files up to this size, and at most this much per execution.
INLINE_FILE_BYTES = 2_000_000
INLINE_TOTAL_BYTES = 10_000_000


@dataclass(frozen=True)
class KernelPlace:
    """Where a kernel runs, as it reports it, and whether its paths are ours."""

    hostname: str
    cwd: str
    shares_filesystem: bool

    def where(self, path: str) -> str:
        return f"{self.hostname}:{path}"


def probe_place(evaluate: Evaluate, local_dir: str | os.PathLike[str]) -> KernelPlace:
    """Ask the kernel its hostname and working directory, and whether it reads our marker file."""
    token = secrets.token_hex(16)
    marker = Path(local_dir).resolve() / f".twnb-marker-{token}"
    marker.write_text(token, encoding="utf-8")
    try:
        answer = evaluate(
            "(__import__('socket').gethostname(), __import__('os').getcwd(), "
            f"(lambda p: open(p).read() if __import__('os').path.isfile(p) else None)({str(marker)!r}))"
        )
    finally:
        marker.unlink(missing_ok=True)
    if not (isinstance(answer, tuple) and len(answer) == 3):
        raise RuntimeError("the kernel did not say where it runs (is it a Python kernel?)")
    hostname, cwd, seen = answer
    return KernelPlace(str(hostname), str(cwd), seen == token)


def remote_scan_source() -> str:
    """Code that defines, in the kernel, `__twnb_scan_before()` and `__twnb_scan_changes()` (JSON:
    created and modified paths under the kernel's working directory, with sizes, and notes), from
    the same scan the local executors use."""
    return (
        "def __twnb_define_scan(source):\n"
        "    import json, os, sys, types\n"
        "    module = types.ModuleType('_twnb_file_scan')\n"
        "    sys.modules[module.__name__] = module  # dataclasses look their module up\n"
        "    exec(compile(source, '<twnb-file-scan>', 'exec'), module.__dict__)\n"
        "    state = {}\n"
        "    def before(skip=()):\n"
        "        state['skip'] = tuple(skip)\n"
        "        state['before'] = module.scan_directory(os.getcwd(), skip=state['skip'])\n"
        "    def changes():\n"
        "        found = module.changes_since(state.pop('before'), skip=state['skip'])\n"
        "        def sized(paths):\n"
        "            return [[str(p), os.path.getsize(p) if os.path.isfile(p) else 0] for p in paths]\n"
        "        return json.dumps({'created': sized(found.created), 'modified': sized(found.modified),\n"
        "                           'notes': found.notes})\n"
        "    ip = get_ipython()\n"
        "    for name, function in (('__twnb_scan_before', before), ('__twnb_scan_changes', changes)):\n"
        "        ip.user_ns[name] = function\n"
        "        ip.user_ns_hidden[name] = function\n"
        f"__twnb_define_scan({inspect.getsource(sys.modules[scan_directory.__module__])!r})\n"
        "del __twnb_define_scan\n"
    )


def read_file(evaluate: Evaluate, path: str) -> bytes | None:
    """The file's bytes, read by the kernel (None when it cannot be read there)."""
    encoded = evaluate(
        f"(lambda p: __import__('base64').b64encode(open(p, 'rb').read()).decode('ascii') "
        f"if __import__('os').path.isfile(p) else None)({path!r})"
    )
    return base64.b64decode(encoded) if isinstance(encoded, str) else None


@dataclass
class BroughtBack:
    """Files of a kernel elsewhere: local copies of the small ones, notes naming the rest."""

    copies: dict[str, str]  # kernel path -> local copy
    notes: list[str]


def bring_back(
    evaluate: Evaluate,
    place: KernelPlace,
    files: list[tuple[str, int]],
    local_dir: Path,
    *,
    file_bytes: int = INLINE_FILE_BYTES,
    total_bytes: int = INLINE_TOTAL_BYTES,
) -> BroughtBack:
    """Copy `files` (kernel paths with sizes) into `local_dir` through the kernel, keeping their paths
    relative to the kernel's working directory; a file over `file_bytes`, or past `total_bytes` in
    all, stays where it is and a note says where that is."""
    copies: dict[str, str] = {}
    notes: list[str] = []
    left = total_bytes
    for path, size in files:
        if size > file_bytes or size > left:
            limit = file_bytes if size > file_bytes else total_bytes
            notes.append(
                f"{place.where(path)} ({size:,} bytes) was written in the kernel, whose files are not on "
                f"this machine's filesystem; it stays there (over the {limit:,}-byte limit for copying it "
                "back)."
            )
            continue
        data = read_file(evaluate, path)
        if data is None:
            notes.append(f"{place.where(path)} could not be read back through the kernel.")
            continue
        relative = os.path.relpath(path, place.cwd) if path.startswith(place.cwd.rstrip("/") + "/") else None
        target = local_dir / (relative if relative and not relative.startswith("..") else Path(path).name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        copies[path] = str(target)
        left -= len(data)
    return BroughtBack(copies, notes)
