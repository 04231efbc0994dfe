"""The test MCP server (tests/plugins/data/mcp_server.py) serving streamable HTTP on a loopback port it
binds itself: a port found free by the test and bound by the server later could be taken in between by
another test process's server or kernel."""

from __future__ import annotations

import selectors
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

START_TIMEOUT_S = 60  # a cold start on a loaded 2-core machine takes a few seconds


@contextmanager
def http_mcp_server(script: Path) -> Iterator[int]:
    """Start `script --http 0`, yield the port it printed once bound (it accepts connections from
    then on), and stop it at the end."""
    process = subprocess.Popen(
        [sys.executable, str(script), "--http", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            ready = selector.select(START_TIMEOUT_S)
        line = process.stdout.readline() if ready else ""
        assert line.startswith("listening on "), (
            f"the MCP server did not start within {START_TIMEOUT_S} s (exit code {process.poll()}): {line!r}"
        )
        yield int(line.split()[-1])
    finally:
        process.terminate()
        process.wait(10)
        if process.stdout is not None:
            process.stdout.close()
