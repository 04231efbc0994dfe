"""Whether this process is a confined kernel, and with which rules: the launcher (twnb/confine) writes
them as JSON into one environment variable before it starts the kernel; `%taskweaver config` and each
Round's record read them back from here. A marker, not a proof: the kernel's code can change its own
environment, so it only ever reports, never decides.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass

CONFINED_ENV = "TWNB_CONFINED"


@dataclass(frozen=True)
class Confinement:
    """The rules a confined kernel was started with (paths as strings, ports as numbers)."""

    read: tuple[str, ...]
    write: tuple[str, ...]
    connect: tuple[int, ...]
    proxy: str | None
    landlock_abi: int
    seccomp: bool
    mounts: bool

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        return {key: list(value) if isinstance(value, tuple) else value for key, value in data.items()}

    def describe(self) -> str:
        """One line for `%taskweaver config`."""
        ports = ", ".join(str(port) for port in self.connect) or "none"
        proxy = f"the model through the key proxy at {self.proxy}" if self.proxy else "no model proxy"
        extras = [f"Landlock ABI {self.landlock_abi}"]
        extras.append("seccomp" if self.seccomp else "no seccomp (not x86_64)")
        if self.mounts:
            extras.append("own user namespace")
        return (
            f"confined ({', '.join(extras)}): runs no programs; writes {', '.join(self.write)}; "
            f"connects to {proxy} and TCP ports {ports} (confine_read, confine_write, confine_connect)"
        )

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Confinement | None:
        text = (os.environ if environ is None else environ).get(CONFINED_ENV)
        if not text:
            return None
        try:
            data = json.loads(text)
            return cls(
                read=tuple(str(p) for p in data["read"]),
                write=tuple(str(p) for p in data["write"]),
                connect=tuple(int(p) for p in data["connect"]),
                proxy=None if data.get("proxy") is None else str(data["proxy"]),
                landlock_abi=int(data["landlock_abi"]),
                seccomp=bool(data["seccomp"]),
                mounts=bool(data["mounts"]),
            )
        except (ValueError, KeyError, TypeError):
            return None
