"""Where the key proxy forwards to, and how it presents the key: plain data the launcher builds before
it forks (importing the proxy's HTTP server is left to the proxy's own process)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import http.client


@dataclass(frozen=True)
class Upstream:
    """Where the proxy forwards to, and how the key is presented (Azure: an `api-key` header)."""

    base_url: str
    api_key: str = field(repr=False)
    azure: bool = False

    @property
    def scheme(self) -> str:
        return urlsplit(self.base_url).scheme

    @property
    def netloc(self) -> str:
        return urlsplit(self.base_url).netloc

    @property
    def path(self) -> str:
        return urlsplit(self.base_url).path.rstrip("/")

    def proxy_url(self, port: int) -> str:
        """The base URL the kernel's client uses: the proxy on loopback `port`, the server's path kept."""
        return f"http://127.0.0.1:{port}{self.path}"

    def credential_headers(self) -> dict[str, str]:
        if not self.api_key:
            return {}
        if self.azure:
            return {"api-key": self.api_key}
        return {"Authorization": f"Bearer {self.api_key}"}

    def connection(self, timeout: float) -> http.client.HTTPConnection:
        import http.client

        parts = urlsplit(self.base_url)
        host = parts.hostname or "localhost"
        if parts.scheme == "https":
            import ssl  # only for a remote server: ssl takes ~30 ms to import, at every kernel start

            return http.client.HTTPSConnection(
                host, parts.port, timeout=timeout, context=ssl.create_default_context()
            )
        return http.client.HTTPConnection(host, parts.port, timeout=timeout)
