"""MCP servers' tools as plugins, through the official `mcp` SDK (the optional extra `twnb[mcp]`).

Each server of the `mcp_servers` setting (twnb.yaml `mcp.servers`) is started the first time a Round
needs the plugins: a stdio server (`command`, `args`, `env`, `cwd`) as a process of its own, a
streamable HTTP one (`url`, `headers`) by connecting to it. Its tools become plugins: one of the
tool's name (the server's name and `_` before it when two servers have a tool of that name; any
character a Python name cannot hold becomes `_`), called with keyword arguments from the tool's JSON
schema, returning its structured content (or its text; an image becomes a file among the Round's
artifacts). The servers stop with the notebook's plugins (a change of the settings that describe them,
or the kernel's end).

The SDK is asynchronous and the kernel's main thread already runs an event loop, so the clients live
on an event loop of their own, in a daemon thread; a call from generated code waits for its answer
at most `timeout` seconds (`mcp_timeout`), and an interrupt (the Round's time limit, Ctrl-C) cancels
the call. A server that does not start, or a call that fails or hangs, is an error saying which
server, why, and the last lines the server wrote to stderr (redacted; the whole of it goes to
`<session_dir>/mcp/NAME.log`, redacted too).

Secrets: a stdio server gets the SDK's small default environment (PATH, HOME, ...) plus its own `env`,
never the notebook's (where the API key is); `${NAME}` in an `env` or `headers` value is the
notebook's environment variable NAME, so twnb.yaml need not hold the secret itself. Values of
secret-looking names in `env` and `headers` are secrets (config/settings_secrets.py).
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import concurrent.futures
import contextlib
import inspect
import os
import re
import threading
import weakref
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from twnb.base import clip
from twnb.config import Confinement, is_secret_name
from twnb.memory import PluginEntry
from twnb.plugins.calls import PluginFunction, active_log
from twnb.plugins.catalog import MCP, PluginState

__all__ = ["INSTALL_HINT", "McpToolError", "McpTools"]

INSTALL_HINT = "MCP servers need the mcp extra: pip install 'twnb[mcp]' (then restart the kernel)"
CONFINED_STDIO = (
    "not started: this kernel is confined and runs no programs; start the server yourself outside it "
    "and name it by `url` (its port in `confine_connect`), or use an unconfined kernel"
)
STDERR_LINES = 12
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_JSON_TYPES = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "array": "list",
    "object": "dict",
    "null": "None",
}


class McpToolError(RuntimeError):
    """A tool call that failed: the server's error, or no answer in time."""


class McpTools:
    """The tools of the configured MCP servers (a `ToolSource` of the PluginCatalog)."""

    def __init__(
        self,
        servers: Mapping[str, Mapping[str, Any]],
        *,
        timeout: float,
        log_dir: Path,
        cwd: Path,
        redact: Callable[[str], str] = lambda text: text,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.servers = {name: dict(config) for name, config in servers.items()}
        self.timeout = timeout
        self.log_dir = Path(log_dir)
        self.cwd = Path(cwd)
        self.redact = redact
        self.environ = os.environ if environ is None else environ
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop: asyncio.Event | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._clients: dict[str, Any] = {}
        self._stderr: dict[str, _StderrTail] = {}
        _OPEN.add(self)

    # -- starting ------------------------------------------------------------------------------------

    def load(self) -> list[PluginState]:
        try:
            # lazy: mcp (~700 ms, 400 modules) and httpx2 (~65 ms), an optional extra: its absence is
            # said once per server
            import mcp  # noqa: F401
        except ImportError:
            return [self._failed(name, INSTALL_HINT) for name in self.servers]
        states: list[PluginState] = []
        startable: dict[str, dict[str, Any]] = {}
        for name, config in self.servers.items():
            refused = self._confined_refusal(config)
            if refused is None:
                startable[name] = config
            else:
                states.append(self._failed(name, refused))
        if startable:
            self._start_loop()
        started = {name: self._submit(self._start(name, config)) for name, config in startable.items()}
        tools: dict[str, list[Any]] = {}
        for name, future in started.items():
            try:
                tools[name] = future.result(self.timeout + 5)
            except concurrent.futures.TimeoutError:
                states.append(self._failed(name, f"it did not start within {self.timeout:g} s (mcp_timeout)"))
            except Exception as error:
                states.append(self._failed(name, self._why(name, error)))
        counts: dict[str, int] = {}
        for listed in tools.values():
            for tool in listed:
                counts[_python_name(tool.name)] = counts.get(_python_name(tool.name), 0) + 1
        for server, listed in tools.items():
            for tool in listed:
                plain = _python_name(tool.name)
                name = plain if counts[plain] == 1 else _python_name(f"{server}_{tool.name}")
                states.append(self._tool_state(server, name, tool))
        return states

    def _confined_refusal(self, config: Mapping[str, Any]) -> str | None:
        """Why a confined kernel cannot reach this server, said before trying (the operating system
        would refuse it anyway, with a bare PermissionError); None when it can, or the kernel is not
        confined."""
        confinement = Confinement.from_environ(self.environ)
        if confinement is None:
            return None
        if "url" not in config:
            return CONFINED_STDIO
        parts = urlsplit(str(config["url"]))
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            return None  # the SDK says what is wrong with the URL
        if port in confinement.connect:
            return None
        return (
            f"not reached: this kernel is confined and connects only to the ports of `confine_connect`; "
            f"add {parts.hostname}:{port} to it (TWNB_CONFINE_CONNECT or confine.connect in "
            f"~/.config/twnb/config.yaml) and restart the kernel"
        )

    def _failed(self, server: str, why: str) -> PluginState:
        return PluginState(server, MCP, f"MCP server {server}", problem=self.redact(f"MCP server {why}"))

    def _why(self, server: str, error: BaseException) -> str:
        tail = self._stderr.get(server)
        said = tail.text() if tail is not None else ""
        reason = _describe_error(error)
        return f"did not start: {reason}" + (f"; it wrote: {said}" if said else "")

    def _start_loop(self) -> None:
        if self._loop is not None:
            return
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            self._stop = asyncio.Event()
            ready.set()
            loop.run_forever()

        self._thread = threading.Thread(target=run, name="twnb-mcp", daemon=True)
        self._thread.start()
        ready.wait()
        self._loop = loop

    def _submit(self, coroutine: Any) -> concurrent.futures.Future[Any]:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    async def _start(self, name: str, config: Mapping[str, Any]) -> list[Any]:
        """Start the server's client in a task of its own (an SDK client is entered and left in one
        task) and return its tools once it is up."""
        ready: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(self._serve(name, config, ready))
        self._tasks.append(task)
        try:
            return await asyncio.wait_for(asyncio.shield(ready), self.timeout)
        except TimeoutError:
            task.cancel()
            raise

    async def _serve(self, name: str, config: Mapping[str, Any], ready: asyncio.Future[list[Any]]) -> None:
        from mcp import Client

        try:
            async with contextlib.AsyncExitStack() as stack:
                transport = self._transport(name, config, stack)
                client = await stack.enter_async_context(Client(transport))
                tools: list[Any] = []
                cursor = None
                while True:
                    page = await client.list_tools(cursor=cursor)
                    tools.extend(page.tools)
                    cursor = page.next_cursor
                    if not cursor:
                        break
                self._clients[name] = client
                ready.set_result(tools)
                assert self._stop is not None
                await self._stop.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error if isinstance(error, Exception) else RuntimeError(str(error)))
            if not isinstance(error, Exception):
                raise
        finally:
            self._clients.pop(name, None)

    def _transport(self, name: str, config: Mapping[str, Any], stack: contextlib.AsyncExitStack) -> Any:
        if "url" in config:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            headers = {
                key: self._expand(name, "headers", value) for key, value in config.get("headers", {}).items()
            }
            http = httpx2.AsyncClient(headers=headers)
            stack.push_async_callback(http.aclose)
            return streamable_http_client(config["url"], http_client=http)
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        env = {key: self._expand(name, "env", value) for key, value in config.get("env", {}).items()}
        cwd = Path(config["cwd"]).expanduser() if config.get("cwd") else self.cwd
        tail = _StderrTail(self.log_dir / f"{name}.log", self.redact)
        self._stderr[name] = tail
        stack.callback(tail.close)
        parameters = StdioServerParameters(
            command=config["command"],
            args=list(config.get("args", [])),
            env=env,
            cwd=str(cwd if cwd.is_absolute() else self.cwd / cwd),
        )
        return stdio_client(parameters, errlog=tail.writer)

    def _expand(self, server: str, where: str, value: str) -> str:
        def lookup(match: re.Match[str]) -> str:
            variable = match.group(1)
            if variable not in self.environ:
                if is_secret_name(variable) and Confinement.from_environ(self.environ) is not None:
                    # named bare: the reference itself is redacted as the header's secret value
                    raise ValueError(
                        f"its {where} needs the variable {variable}, a secret, which a confined kernel "
                        "never holds (its launcher keeps secret-named variables outside); serve it "
                        "without one on loopback, or use an unconfined kernel"
                    )
                raise ValueError(
                    f"its {where} refers to ${{{variable}}}, which is not set in the environment"
                )
            return self.environ[variable]

        return _REFERENCE.sub(lookup, value)

    # -- tools ---------------------------------------------------------------------------------------

    def _tool_state(self, server: str, name: str, tool: Any) -> PluginState:
        entry = _entry(name, tool)
        caller = _ToolCall(self, server, tool.name, name, [str(p["name"]) for p in entry.parameters])
        function = PluginFunction(
            name,
            MCP,
            caller,
            description=entry.description,
            parameters=[str(p["name"]) for p in entry.parameters],
            signature=_signature(entry),
        )
        return PluginState(name, MCP, f"MCP server {server}", entry=entry, function=function)

    def call(self, server: str, tool: str, arguments: dict[str, Any], shown: str) -> Any:
        """Call `tool` of `server` and wait for its answer (at most `timeout` seconds)."""
        client = self._clients.get(server)
        if client is None or self._loop is None:
            raise McpToolError(f"{shown}: the MCP server {server} is not running{self._said(server)}")
        # The SDK's own read timeout is a backstop past ours, so the one the user set is the one met.
        future = self._submit(client.call_tool(tool, arguments, read_timeout_seconds=self.timeout + 5))
        try:
            result = future.result(self.timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise McpToolError(
                f"{shown}: the MCP server {server} did not answer within {self.timeout:g} s (mcp_timeout)"
            ) from None
        except BaseException as error:
            future.cancel()  # an interrupt (the time limit, Ctrl-C): the call is abandoned
            if isinstance(error, Exception):
                raise McpToolError(f"{shown}: {_describe_error(error)}") from None
            raise
        return _result_value(result, shown)

    def _said(self, server: str) -> str:
        tail = self._stderr.get(server)
        text = tail.text() if tail is not None else ""
        return f" (the server wrote: {text})" if text else ""

    # -- stopping ------------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop every server (each client left in its own task) and the loop's thread."""
        loop, self._loop = self._loop, None
        if loop is None:
            return
        stop, tasks = self._stop, list(self._tasks)
        self._tasks.clear()

        async def finish() -> None:
            if stop is not None:
                stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(finish(), loop).result(self.timeout)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(self.timeout)
        if not loop.is_running():
            loop.close()
        _OPEN.discard(self)


class _ToolCall:
    """What a tool's PluginFunction calls: keyword arguments only, as the tool's schema names them."""

    def __init__(self, tools: McpTools, server: str, tool: str, shown: str, parameters: list[str]) -> None:
        self.tools, self.server, self.tool, self.shown, self.parameters = (
            tools,
            server,
            tool,
            shown,
            parameters,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if args:
            names = ", ".join(f"{p}=..." for p in self.parameters) or "no arguments"
            raise TypeError(f"{self.shown} takes keyword arguments only: {self.shown}({names})")
        return self.tools.call(self.server, self.tool, dict(kwargs), self.shown)


def _entry(name: str, tool: Any) -> PluginEntry:
    """The tool as a plugin spec: its description, and its arguments from the input schema."""
    schema = tool.input_schema or {}
    required = set(schema.get("required", []) or [])
    parameters = []
    for argument, about in (schema.get("properties") or {}).items():
        about = about if isinstance(about, Mapping) else {}
        parameters.append(
            {
                "name": str(argument),
                "type": _json_type(about),
                "required": argument in required,
                "description": str(about.get("description") or ""),
            }
        )
    returns = [
        {"name": "result", "type": _output_type(tool.output_schema), "description": "the tool's answer"}
    ]
    description = (tool.description or f"The MCP tool {tool.name}.").strip()
    return PluginEntry(name=name, description=description, parameters=parameters, returns=returns)


def _output_type(schema: Mapping[str, Any] | None) -> str:
    """What a call returns: the structured content's type (a lone `result` is unwrapped, see
    `_result_value`), else the text."""
    if not schema:
        return "str"
    properties = schema.get("properties") or {}
    if set(properties) == {"result"} and isinstance(properties["result"], Mapping):
        return _json_type(properties["result"])
    return "dict"


def _json_type(about: Mapping[str, Any]) -> str:
    kind = about.get("type")
    if isinstance(kind, list):
        shown = [_JSON_TYPES.get(str(k), str(k)) for k in kind]
        return " | ".join(shown) if shown else "Any"
    if isinstance(kind, str):
        if kind == "array" and isinstance(about.get("items"), Mapping):
            return f"list[{_json_type(about['items'])}]"
        return _JSON_TYPES.get(kind, kind)
    if "anyOf" in about and isinstance(about["anyOf"], list):
        return " | ".join(_json_type(option) for option in about["anyOf"] if isinstance(option, Mapping))
    return "Any"


def _signature(entry: PluginEntry) -> inspect.Signature:
    parameters = []
    for item in entry.parameters:
        name = str(item["name"])
        if not name.isidentifier():
            continue
        default = inspect.Parameter.empty if item.get("required") else None
        parameters.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default))
    return inspect.Signature(parameters)


def _python_name(name: str) -> str:
    cleaned = re.sub(r"\W", "_", name)
    return cleaned if cleaned and not cleaned[0].isdigit() else f"_{cleaned}"


def _result_value(result: Any, shown: str) -> Any:
    """A tool's answer as a Python value: its structured content, else its text."""
    texts = [block.text for block in result.content if getattr(block, "type", None) == "text"]
    if result.is_error:
        raise McpToolError(f"{shown} failed: {clip(' '.join(texts) or 'no message', 1000)}")
    for block in result.content:
        if getattr(block, "type", None) == "image":
            _save_image(block, shown)
    structured = result.structured_content
    if structured is not None:
        if isinstance(structured, dict) and set(structured) == {"result"}:
            return structured["result"]  # a tool returning a non-object value is wrapped so
        return structured
    return "\n".join(texts)


def _save_image(block: Any, shown: str) -> None:
    """An image the tool returned, as a file among the Round's artifacts (only while a run is recorded)."""
    log = active_log()
    if log is None:
        return
    suffix = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/svg+xml": ".svg"}
    path = log.artifacts_dir / f"{log.artifact_stem}-{shown}{suffix.get(block.mime_type, '.bin')}"
    number = 2
    while path.exists():
        path = path.with_name(f"{log.artifact_stem}-{shown}-{number}{path.suffix}")
        number += 1
    log.artifacts_dir.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(block.data))
    record = log.current()
    if record is not None:
        record["artifacts"].append(str(path))


def _describe_error(error: BaseException) -> str:
    """One line for an error, the first of an exception group's (anyio's task groups wrap them)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, FileNotFoundError):
        return f"its command was not found ({error.filename or error})"
    text = str(error) or type(error).__name__
    return clip(f"{type(error).__name__}: {text}", 400, one_line=True)


class _StderrTail:
    """A stdio server's stderr: a pipe whose lines are redacted into the server's log file, the last
    few kept for error messages."""

    def __init__(self, path: Path, redact: Callable[[str], str]) -> None:
        self.redact = redact
        self.lines: deque[str] = deque(maxlen=STDERR_LINES)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.file = path.open("a", encoding="utf-8")
        read, write = os.pipe()
        self.writer = os.fdopen(write, "w")
        self._reader = threading.Thread(target=self._drain, args=(read,), name="twnb-mcp-stderr", daemon=True)
        self._reader.start()

    def _drain(self, fd: int) -> None:
        with os.fdopen(fd, "r", encoding="utf-8", errors="replace") as stream:
            for line in stream:
                text = self.redact(line.rstrip("\n"))
                self.lines.append(text)
                with contextlib.suppress(ValueError):  # closed meanwhile
                    self.file.write(text + "\n")
                    self.file.flush()
        with contextlib.suppress(ValueError):
            self.file.close()

    def text(self) -> str:
        return clip(" | ".join(line for line in self.lines if line.strip()), 600)

    def close(self) -> None:
        """Our end of the pipe: the reader ends when the server's ends too."""
        with contextlib.suppress(OSError):
            self.writer.close()


_OPEN: weakref.WeakSet[McpTools] = weakref.WeakSet()


@atexit.register
def _stop_servers() -> None:
    """The kernel is ending: stop the servers it started."""
    for tools in list(_OPEN):
        with contextlib.suppress(Exception):
            tools.close()
