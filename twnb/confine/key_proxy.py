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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from twnb.confine.upstream import Upstream

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

    def __init__(
        self, upstream: Upstream, *, timeout_s: float = 600.0, listener: socket.socket | None = None
    ) -> None:
        """`listener`: a socket already bound and listening on loopback (the launcher binds it before it
        forks, so the kernel knows the port without importing this module)."""
        self.upstream = upstream
        self.timeout_s = timeout_s
        super().__init__(("127.0.0.1", 0), _Handler, bind_and_activate=listener is None)
        if listener is not None:
            self.socket.close()
            self.socket = listener
            self.server_address = listener.getsockname()

    def server_bind(self) -> None:
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().server_bind()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def proxy_url(self) -> str:
        """The base URL the kernel's client uses: the proxy, with the server's path kept."""
        return self.upstream.proxy_url(self.port)

    def serve_in_thread(self) -> threading.Thread:
        thread = threading.Thread(target=self.serve_forever, name="twnb-key-proxy", daemon=True)
        thread.start()
        return thread
