"""The key proxy: a loopback HTTP server, started by the launcher outside the confinement, that alone
holds the model's API key. The confined kernel's client talks to it with a placeholder key; it puts the
real key in place of whatever credential the request carried and forwards the request to the one
configured server (OpenAI, Azure, any OpenAI-compatible server), relaying the answer as it comes
(server-sent events chunk by chunk, unchanged).

It forwards only to that server, keeps one upstream connection per client connection, and logs nothing
of the requests.
"""

from __future__ import annotations

import http.client
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

_HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
}
_CREDENTIAL_HEADERS = {"authorization", "api-key"}
_CHUNK = 65536


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

    def credential_headers(self) -> dict[str, str]:
        if not self.api_key:
            return {}
        if self.azure:
            return {"api-key": self.api_key}
        return {"Authorization": f"Bearer {self.api_key}"}

    def connection(self, timeout: float) -> http.client.HTTPConnection:
        parts = urlsplit(self.base_url)
        host = parts.hostname or "localhost"
        if parts.scheme == "https":
            import ssl  # only for a remote server: ssl takes ~30 ms to import, at every kernel start

            return http.client.HTTPSConnection(
                host, parts.port, timeout=timeout, context=ssl.create_default_context()
            )
        return http.client.HTTPConnection(host, parts.port, timeout=timeout)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: KeyProxyServer
    _upstream_connection: http.client.HTTPConnection | None = None

    def log_message(self, format: str, *args: object) -> None:
        return  # requests carry prompts and data: nothing of them is logged

    def do_GET(self) -> None:
        self._forward()

    def do_POST(self) -> None:
        self._forward()

    def do_DELETE(self) -> None:
        self._forward()

    def _forward(self) -> None:
        upstream = self.server.upstream
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {
            name: value
            for name, value in self.headers.items()
            if name.lower() not in _HOP_BY_HOP and name.lower() not in _CREDENTIAL_HEADERS
        }
        headers.update(upstream.credential_headers())
        headers["Host"] = upstream.netloc
        try:
            response = self._send_upstream(self.command, self.path, body, headers)
        except OSError as error:
            self._answer_error(
                502, f"twnb key proxy: the model server at {upstream.netloc} did not answer ({error})"
            )
            return
        self.send_response(response.status, response.reason)
        for name, value in response.getheaders():
            if name.lower() not in _HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        complete = False
        try:
            while piece := response.read1(_CHUNK):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            complete = True
        finally:
            response.close()  # read to its end (or abandoned): the connection can take the next request
            if response.will_close or not complete:
                self._drop_upstream()

    def _send_upstream(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str]
    ) -> http.client.HTTPResponse:
        # A kept-alive connection the server closed meanwhile fails at once: retry once on a new one.
        for attempt in (0, 1):
            if self._upstream_connection is None:
                self._upstream_connection = self.server.upstream.connection(self.server.timeout_s)
            try:
                self._upstream_connection.request(method, path, body=body, headers=headers)
                return self._upstream_connection.getresponse()
            except (http.client.RemoteDisconnected, http.client.ImproperConnectionState, ConnectionError):
                self._drop_upstream()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def _drop_upstream(self) -> None:
        if self._upstream_connection is not None:
            self._upstream_connection.close()
            self._upstream_connection = None

    def _answer_error(self, status: int, text: str) -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def finish(self) -> None:
        super().finish()
        self._drop_upstream()


class KeyProxyServer(ThreadingHTTPServer):
    """The proxy on 127.0.0.1 (port 0: any free one; `port` says which)."""

    daemon_threads = True

    def __init__(self, upstream: Upstream, *, timeout_s: float = 600.0) -> None:
        self.upstream = upstream
        self.timeout_s = timeout_s
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().server_bind()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def proxy_url(self) -> str:
        """The base URL the kernel's client uses: the proxy, with the server's path kept."""
        return f"http://127.0.0.1:{self.port}{self.upstream.path}"

    def serve_in_thread(self) -> threading.Thread:
        thread = threading.Thread(target=self.serve_forever, name="twnb-key-proxy", daemon=True)
        thread.start()
        return thread
