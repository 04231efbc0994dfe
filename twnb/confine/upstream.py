"""Where the key proxy forwards to, and how it presents the key: plain data the launcher builds before
it forks (importing the proxy's HTTP server is left to the proxy's own process)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import http.client


class Upstream(NamedTuple):
    """Where the proxy forwards to, and how the key is presented (Azure: an `api-key` header). A
    NamedTuple, not a dataclass: the launcher builds it, and dataclasses costs it start-up time."""

    base_url: str
    api_key: str
    azure: bool = False

    def __repr__(self) -> str:  # never the key
        return f"Upstream(base_url={self.base_url!r}, azure={self.azure!r})"

    @property
    def scheme(self) -> str:
        from urllib.parse import urlsplit  # lazy: urllib.parse (~2 ms): the launcher needs only `path`

        return urlsplit(self.base_url).scheme

    @property
    def netloc(self) -> str:
        from urllib.parse import urlsplit

        return urlsplit(self.base_url).netloc

    @property
    def path(self) -> str:
        """The server's path (`/v1`), read without urllib (the launcher asks for it at every start)."""
        rest = self.base_url.partition("://")[2]
        path = rest[len(rest.split("/", 1)[0]) :]
        return path.split("?", 1)[0].split("#", 1)[0].rstrip("/")

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
        import http.client  # lazy: http.client (~20 ms, 46 modules), in the proxy's own process
        from urllib.parse import urlsplit

        parts = urlsplit(self.base_url)
        host = parts.hostname or "localhost"
        if parts.scheme == "https":
            import ssl  # lazy: ssl (~30 ms at every kernel start), only for a remote server

            return http.client.HTTPSConnection(
                host, parts.port, timeout=timeout, context=ssl.create_default_context()
            )
        return http.client.HTTPConnection(host, parts.port, timeout=timeout)
