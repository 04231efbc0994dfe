"""MCP servers' tools as plugins: a stdio server built with the SDK's server side
(tests/plugins/data/mcp_server.py), started by the tests through the `mcp` SDK's client."""

from __future__ import annotations

import sys
import time
import uuid
from pathlib import Path

import pytest
from plugin_files import MCP_SERVER, mcp_server_config
from plugin_scripts import one_step
from support.http_mcp_server import http_mcp_server

pytest.importorskip("mcp")
pytestmark = pytest.mark.slow

from twnb.plugins.mcp_tools import McpToolError, McpTools  # noqa: E402

TOKEN = "mcp-token-5f4e3d2c1b0a99887766"


def redact(text: str) -> str:
    return text.replace(TOKEN, "[REDACTED]")


def server_processes(marker: str) -> list[int]:
    """Processes whose command line holds `marker` (the test server started with it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.fixture(scope="module")
def marker() -> str:
    return f"--marker={uuid.uuid4().hex}"


@pytest.fixture(scope="module")
def tools(tmp_path_factory, marker):
    folder = tmp_path_factory.mktemp("mcp")
    source = McpTools(
        {"calc": mcp_server_config(marker, env={"SECRET_TOKEN": TOKEN})},
        timeout=20,
        log_dir=folder / "logs",
        cwd=folder,
        redact=redact,
    )
    states = {state.name: state for state in source.load()}
    yield source, states
    source.close()


def test_each_tool_of_the_server_is_a_plugin_described_by_its_schema(tools):
    _, states = tools
    assert sorted(states) == ["add", "fails", "shout", "show_secret", "slow", "word_stats"]
    add = states["add"]
    assert (add.source, add.where, add.state) == ("mcp", "MCP server calc", "loaded")
    assert add.entry.description == "Add two whole numbers."
    assert add.entry.parameters == [
        {"name": "a", "type": "int", "required": True, "description": ""},
        {"name": "b", "type": "int", "required": True, "description": ""},
    ]


def test_a_tool_returns_its_structured_content_or_its_text(tools):
    _, states = tools
    assert states["add"].function(a=2, b=40) == 42
    assert states["word_stats"].function(text="one two three") == {"words": 3, "characters": 13}
    assert states["shout"].function(text="quiet") == "QUIET"


def test_a_tool_takes_keyword_arguments_only(tools):
    _, states = tools
    with pytest.raises(TypeError, match=r"add takes keyword arguments only: add\(a=\.\.\., b=\.\.\.\)"):
        states["add"].function(1, 2)


def test_a_tool_that_fails_raises_with_the_servers_reason(tools):
    _, states = tools
    with pytest.raises(McpToolError, match="fails failed: Error executing tool fails"):
        states["fails"].function(reason="no data")


def test_a_call_that_hangs_fails_at_the_time_limit(tools):
    source, states = tools
    source.timeout = 1
    try:
        started = time.perf_counter()
        with pytest.raises(
            McpToolError, match=r"the MCP server calc did not answer within 1 s \(mcp_timeout\)"
        ):
            states["slow"].function(seconds=30)
        assert time.perf_counter() - started < 5
    finally:
        source.timeout = 20
    assert states["add"].function(a=1, b=1) == 2  # the server still answers


def test_what_the_server_writes_to_stderr_is_logged_redacted(tools, tmp_path_factory):
    source, states = tools
    assert states["show_secret"].function() == TOKEN  # the value itself: the session's redactor hides it
    log = source.log_dir / "calc.log"
    deadline = time.monotonic() + 5
    while "my token is" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "my token is [REDACTED]" in log.read_text()
    assert TOKEN not in log.read_text()


def test_a_server_that_will_not_start_says_why_with_what_it_wrote(tmp_path):
    source = McpTools({"broken": mcp_server_config("--no-start")}, timeout=20, log_dir=tmp_path, cwd=tmp_path)
    try:
        (state,) = source.load()
    finally:
        source.close()
    assert (state.name, state.state) == ("broken", "not loaded")
    assert state.problem.startswith("MCP server did not start: ")
    assert state.problem.endswith("it wrote: refusing to start: no database at /nowhere")


def test_a_missing_command_says_so(tmp_path):
    source = McpTools(
        {"gone": {"command": "twnb-no-such-mcp-server"}}, timeout=20, log_dir=tmp_path, cwd=tmp_path
    )
    try:
        (state,) = source.load()
    finally:
        source.close()
    assert "twnb-no-such-mcp-server" in state.problem


def test_env_may_name_a_variable_of_the_notebooks_environment(tmp_path):
    config = mcp_server_config(env={"SECRET_TOKEN": "${TWNB_TEST_MCP_TOKEN}"})
    source = McpTools(
        {"calc": config}, timeout=20, log_dir=tmp_path, cwd=tmp_path, environ={"TWNB_TEST_MCP_TOKEN": TOKEN}
    )
    try:
        states = {s.name: s for s in source.load()}
        assert states["show_secret"].function() == TOKEN
    finally:
        source.close()


def test_an_unset_variable_in_env_stops_that_server_with_why(tmp_path):
    config = mcp_server_config(env={"SECRET_TOKEN": "${TWNB_TEST_UNSET_VARIABLE}"})
    source = McpTools({"calc": config}, timeout=20, log_dir=tmp_path, cwd=tmp_path, environ={})
    try:
        (state,) = source.load()
    finally:
        source.close()
    assert "refers to ${TWNB_TEST_UNSET_VARIABLE}, which is not set in the environment" in state.problem


def test_two_servers_with_a_tool_of_one_name_get_the_servers_name_before_it(tmp_path):
    source = McpTools(
        {"one": mcp_server_config(), "two": mcp_server_config()}, timeout=30, log_dir=tmp_path, cwd=tmp_path
    )
    try:
        names = sorted(s.name for s in source.load())
        assert "one_add" in names and "two_add" in names and "add" not in names
    finally:
        source.close()


def test_closing_stops_the_server(tmp_path):
    marker = f"--marker={uuid.uuid4().hex}"
    source = McpTools({"calc": mcp_server_config(marker)}, timeout=20, log_dir=tmp_path, cwd=tmp_path)
    source.load()
    assert server_processes(marker)
    source.close()
    deadline = time.monotonic() + 10
    while server_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert server_processes(marker) == []


def test_a_round_calls_an_mcp_tool_and_records_the_call(make_catalog, make_session, workdir, fake_llm):
    source = McpTools({"calc": mcp_server_config()}, timeout=20, log_dir=workdir / "logs", cwd=workdir)
    catalog = make_catalog(folders=[], tools=source)
    session = make_session(one_step("total = add(a=19, b=23)\ntotal"), catalog)
    round = session.run_round("Add 19 and 23")
    assert round.state == "finished"
    (call,) = round.post_list[2].extra["plugin_calls"]
    assert (call["name"], call["source"], call["result"]) == ("add", "mcp", "int 42")
    system = next(
        m["content"]
        for r in fake_llm.chat_requests()
        if r["role"] == "CodeInterpreter"
        for m in r["body"]["messages"]
        if m["role"] == "system"
    )
    assert "def add(\na: int,\nb: int) -> int:..." in system
    assert MCP_SERVER.name not in system and sys.executable not in system


def test_a_streamable_http_server_is_reached_by_its_url(tmp_path):
    with http_mcp_server(MCP_SERVER) as port:
        source = McpTools(
            {"web": {"url": f"http://127.0.0.1:{port}/mcp", "headers": {"X-Team": "analytics"}}},
            timeout=20,
            log_dir=tmp_path,
            cwd=tmp_path,
        )
        try:
            states = {s.name: s for s in source.load()}
            assert states["add"].where == "MCP server web"
            assert states["add"].function(a=20, b=22) == 42
        finally:
            source.close()


def test_a_confined_kernel_says_why_it_starts_no_stdio_server_and_reaches_no_port_not_allowed(
    tmp_path, marker
):
    """In a confined kernel (its marker in the environment) a stdio server is never started, and a URL
    whose port `confine_connect` does not name is not tried: each is one line saying why and what to
    do, instead of the operating system's bare PermissionError."""
    from twnb.config import CONFINED_ENV, Confinement

    rules = Confinement(
        read=(), write=(), connect=(8765,), proxy=None, landlock_abi=7, seccomp=True, mounts=True
    )
    source = McpTools(
        {
            "calc": mcp_server_config(marker, "--confined-test"),
            "web": {"url": "http://127.0.0.1:9/mcp"},
        },
        timeout=20,
        log_dir=tmp_path,
        cwd=tmp_path,
        environ={CONFINED_ENV: rules.to_json()},
    )
    try:
        states = {s.name: s for s in source.load()}
    finally:
        source.close()
    assert states["calc"].problem.startswith("MCP server not started: this kernel is confined and runs no")
    assert "`url`" in states["calc"].problem and "confine_connect" in states["calc"].problem
    assert states["web"].problem.startswith("MCP server not reached: this kernel is confined")
    assert "add 127.0.0.1:9 to it" in states["web"].problem
    assert server_processes(f"{marker} --confined-test") == []


def test_a_confined_kernel_says_a_secret_a_server_needs_is_kept_outside_it(tmp_path):
    """The launcher keeps secret-named variables out of a confined kernel's environment: a header that
    refers to one says so, rather than that the variable is not set."""
    from twnb.config import CONFINED_ENV, Confinement

    rules = Confinement(
        read=(), write=(), connect=(8765,), proxy=None, landlock_abi=7, seccomp=True, mounts=True
    )
    config = {"url": "http://127.0.0.1:8765/mcp", "headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"}}
    source = McpTools(
        {"search": config},
        timeout=20,
        log_dir=tmp_path,
        cwd=tmp_path,
        environ={CONFINED_ENV: rules.to_json()},
    )
    try:
        (state,) = source.load()
    finally:
        source.close()
    assert "needs the variable SEARCH_TOKEN, a secret, which a confined kernel never holds" in state.problem
