"""A small stdio MCP server for the tests, built with the SDK's server side (`MCPServer`).

Tools: `add` (structured: an int), `word_stats` (structured: a dict), `shout` (text), `slow` (sleeps
longer than a test's time limit), `fails` (an error result), `show_secret` (prints the value of its
environment's SECRET_TOKEN to stderr, then returns it, so the tests can check it is redacted).
Run as `python mcp_server.py` (stdio); `--http PORT` serves streamable HTTP on 127.0.0.1:PORT/mcp
instead (`--http 0`: a port the system picks, printed as `listening on PORT` once bound, so no test
has to find a free port that another process could take before the server binds it); `--no-start`
exits at once (a server that will not start).
"""

from __future__ import annotations

import os
import sys
import time

if "--no-start" in sys.argv:
    print("refusing to start: no database at /nowhere", file=sys.stderr)
    sys.exit(3)

from mcp.server.mcpserver import MCPServer

server = MCPServer("twnb-test-tools")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


@server.tool()
def word_stats(text: str) -> dict[str, int]:
    """Count the words and characters of a text."""
    return {"words": len(text.split()), "characters": len(text)}


@server.tool(structured_output=False)
def shout(text: str) -> str:
    """The text in capitals."""
    return text.upper()


@server.tool()
def slow(seconds: float) -> str:
    """Wait, then answer."""
    time.sleep(seconds)
    return "done"


@server.tool()
def fails(reason: str) -> str:
    """Always fails, with the reason given."""
    raise ValueError(f"failed on purpose: {reason}")


@server.tool()
def show_secret() -> str:
    """Return the server's SECRET_TOKEN (tests check it is redacted)."""
    token = os.environ.get("SECRET_TOKEN", "")
    print(f"my token is {token}", file=sys.stderr, flush=True)
    return token


if __name__ == "__main__":
    if "--http" in sys.argv:
        import socket

        import anyio
        import uvicorn

        listener = socket.socket()
        listener.bind(("127.0.0.1", int(sys.argv[sys.argv.index("--http") + 1])))
        listener.listen(64)
        print(f"listening on {listener.getsockname()[1]}", flush=True)
        config = uvicorn.Config(server.streamable_http_app(host="127.0.0.1"), log_level="warning")
        anyio.run(lambda: uvicorn.Server(config).serve(sockets=[listener]))
    else:
        server.run("stdio")
