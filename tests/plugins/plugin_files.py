"""Where the plugin tests' files are, and the `mcp_servers` entry that starts the test MCP server."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
MCP_SERVER = DATA / "mcp_server.py"


def mcp_server_config(*extra_args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """The `mcp_servers` entry that starts the test server with this Python."""
    return {"command": sys.executable, "args": [str(MCP_SERVER), *extra_args], "env": dict(env or {})}
