"""How the separate kernel twnb drives from outside (`KernelExecutor`, "Kernels elsewhere" in the
README) is started: confined by default, as the batch commands' kernels are; the `confine_kernels`
setting opts out, and where the system cannot confine, the kernel runs unconfined. Either is said once
per process, with what it allows.

twnb runs outside this kernel (it only sends code), so the kernel may not write the session folder
or the experience folder either: the starter's autosaves and what it remembers are out of the code's
reach (`read_only`)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from twnb.config import resolve_settings
from twnb.confine.landlock import abi_version
from twnb.confine.launcher import unavailable_reason
from twnb.confine.resolve_launch import ConfinedLaunch, confined_launch, home_of, refuse_unsafe_sources

UNCONFINED_ALLOWS = "its code can run programs, write wherever you can, and read your secrets and the API key"
_said: set[str] = set()


def _say_once(line: str) -> None:
    if line not in _said:
        _said.add(line)
        print(line, file=sys.stderr)


def separate_kernel_launch(
    workdir: Path,
    environ: Mapping[str, str],
    *,
    write: Iterable[str | os.PathLike[str]] = (),
    read_only: Iterable[str | os.PathLike[str]] = (),
) -> ConfinedLaunch | None:
    """The confined launcher's command and environment for a kernel of this Python in `workdir`
    (`environ`: the kernel's environment), or None when it starts unconfined (said once). `write`:
    folders besides the settings' the code may write (the starter's artifacts folder); `read_only`:
    places in them it may not (the session folder), relative to `workdir`, besides the experience
    folder. Raises ConfinementError or SettingsError."""
    resolved = resolve_settings(environ=environ, workdir=workdir, home=home_of(environ))
    refuse_unsafe_sources(resolved)  # switched off from a file a confined kernel could write: refused
    if not resolved.settings.confine_kernels:
        source = resolved.sources["confine_kernels"].describe()
        off = f"confine_kernels is off, {source}"
        _say_once(f"twnb: the separate kernel runs unconfined ({off}): {UNCONFINED_ALLOWS}.")
        return None
    reason = unavailable_reason(abi_version())
    if reason is not None:
        _say_once(f"twnb: the separate kernel runs unconfined: {reason}; {UNCONFINED_ALLOWS}.")
        return None
    # the experience folder too: twnb remembers into it from outside and puts it in the prompts
    experience = resolved.settings.experience_dir
    protected = [workdir / os.path.expanduser(p) for p in (*read_only, *([experience] if experience else []))]
    for folder in protected:
        # a mount makes a place read-only only where it exists: these folders are made now (the
        # starter writes there anyway), or the kernel's code could make them and write the records,
        # cassettes and experience twnb reads back
        # (one this user cannot make, outside the notebook's folder, the kernel cannot make either)
        with contextlib.suppress(OSError):
            folder.mkdir(parents=True, exist_ok=True)
    return confined_launch(workdir, environ, write=write, read_only=protected, resolved=resolved)
