"""What the launcher needs from twnb's settings, resolved before it runs: plain data that travels to it
as JSON in one environment variable (`LAUNCH_ENV`), the model's key beside it in another (`KEY_ENV`).

Resolving the settings takes PyYAML, the `.env` reader and the settings table: in the launcher, a
Python of its own, that was most of a confined kernel's extra start-up. twnb's own kernels (the
separate kernel, the batch commands) resolve them in the process that starts the kernel, which has
them loaded already; only a kernel Jupyter starts from the `twnb-confined` kernelspec resolves them in
the launcher (resolve_launch.py). This module imports nothing but the standard library, so the
launcher can read it cheaply.
"""

from __future__ import annotations

import json

LAUNCH_ENV = "TWNB_CONFINE_LAUNCH"
KEY_ENV = "TWNB_CONFINE_UPSTREAM_KEY"  # a secret name: no kernel environment keeps it


class ModelRoute:
    """Where the key proxy forwards the model's calls (`upstream_url`, None: no proxy; `azure`: an Azure
    endpoint) and which variables name the key (`key_names`) and the model's base URL (`base_url_names`)."""

    __slots__ = ("azure", "base_url_names", "key_names", "upstream_url")

    def __init__(
        self,
        upstream_url: str | None = None,
        azure: bool = False,
        key_names: tuple[str, ...] = (),
        base_url_names: tuple[str, ...] = (),
    ) -> None:
        self.upstream_url = upstream_url
        self.azure = azure
        self.key_names = tuple(key_names)
        self.base_url_names = tuple(base_url_names)


class LaunchSettings:
    """The settings the confinement is made from (paths as given, relative to the notebook's folder),
    and the `model`'s route: where the key proxy forwards to, which variables name the key and the
    model's base URL (read through the properties of the same names)."""

    __slots__ = (
        "artifacts_dir",
        "confine_connect",
        "confine_read",
        "confine_write",
        "model",
        "read_only",
        "watched",
    )
    # what travels as JSON, one flat object (the model's route among the rest)
    _FIELDS = (
        "artifacts_dir",
        "azure",
        "base_url_names",
        "confine_connect",
        "confine_read",
        "confine_write",
        "key_names",
        "read_only",
        "upstream_url",
        "watched",
    )

    def __init__(
        self,
        *,
        artifacts_dir: str,
        confine_read: tuple[str, ...] = (),
        confine_write: tuple[str, ...] = (),
        confine_connect: tuple[str, ...] = (),
        read_only: tuple[str, ...] = (),
        model: ModelRoute | None = None,
        watched: tuple[str, ...] = (),
    ) -> None:
        # plain classes, not dataclasses: the launcher would import dataclasses (and inspect) for them
        self.artifacts_dir = artifacts_dir
        self.confine_read = tuple(confine_read)
        self.confine_write = tuple(confine_write)
        self.confine_connect = tuple(confine_connect)
        self.read_only = tuple(read_only)  # places inside writable folders the kernel must not write
        self.model = model if model is not None else ModelRoute()
        # folders whose files later sessions load (plugins, experience): their files are recorded
        # before the kernel starts and quarantined when it changed them (twnb/config/quarantine.py)
        self.watched = tuple(watched)

    @property
    def upstream_url(self) -> str | None:
        return self.model.upstream_url

    @property
    def azure(self) -> bool:
        return self.model.azure

    @property
    def key_names(self) -> tuple[str, ...]:
        return self.model.key_names

    @property
    def base_url_names(self) -> tuple[str, ...]:
        return self.model.base_url_names

    def to_json(self) -> str:
        return json.dumps({name: getattr(self, name) for name in self._FIELDS}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> LaunchSettings:
        """Raises ValueError when `text` is not what `to_json` writes."""
        try:
            data = json.loads(text)
            return cls(
                artifacts_dir=str(data["artifacts_dir"]),
                confine_read=tuple(str(p) for p in data["confine_read"]),
                confine_write=tuple(str(p) for p in data["confine_write"]),
                confine_connect=tuple(str(p) for p in data["confine_connect"]),
                read_only=tuple(str(p) for p in data["read_only"]),
                model=ModelRoute(
                    upstream_url=None if data["upstream_url"] is None else str(data["upstream_url"]),
                    azure=bool(data["azure"]),
                    key_names=tuple(str(n) for n in data["key_names"]),
                    base_url_names=tuple(str(n) for n in data["base_url_names"]),
                ),
                watched=tuple(str(p) for p in data["watched"]),
            )
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"{LAUNCH_ENV} is not the launcher's settings ({error})") from error

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LaunchSettings) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(self.to_json())
