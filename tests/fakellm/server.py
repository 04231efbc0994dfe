"""A loopback OpenAI-compatible server for tests: real HTTP and SSE, scripted replies, injected faults.

In-process (what the `fake_llm` fixture does):

    with FakeLLMServer({"*": ["hello"]}) as server:
        OpenAI(base_url=server.base_url, api_key="k")...

As its own process (for notebooks run by nbclient or JupyterLab):

    python -m tests.fakellm --script script.json --port 0     # prints the base URL, .../v1

Endpoints: POST /v1/chat/completions (stream and not), POST /openai/deployments/{deployment}/chat/completions
(Azure; the key in the `api-key` header), GET /v1/models, POST /v1/embeddings (deterministic vectors,
`fake_embedding`; `embeddings=False` answers 404 as a server without them); test-only control
endpoints: POST /_fake/script (body: a script), GET /_fake/requests, GET /_fake/remaining,
POST /_fake/reset. The script format and the role rule are in script.py and README.md.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import json
import math
import os
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .script import Reply, Script, Served

CHARS_PER_TOKEN = 4
# The servers the fake can act like, each in the ways twnb must cope with (README.md, "Acting like a
# real server").
SERVERS = ("openai", "llama-server", "llama-cpp-python", "vllm", "ollama", "lmstudio")
# llama-cpp-python's answer to `response_format: json_schema` (HTTP 500), as measured against 0.3.36.
LLAMA_CPP_PYTHON_SCHEMA_ERROR = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': "
    "\"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or "
    '\'json_object\'"}}\n\n  File "llama_cpp/server/app.py", line 376, in create_chat_completion\n'
    "    POST /v1/chat/completions"
)


def _tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _system_text(body: dict[str, Any]) -> str:
    messages = body.get("messages") or []
    return "\n".join(
        _message_text(m) for m in messages if isinstance(m, dict) and m.get("role") in ("system", "developer")
    )


def _prompt_tokens(body: dict[str, Any]) -> int:
    return _tokens("".join(_message_text(m) for m in body.get("messages") or [] if isinstance(m, dict)))


def _overflow_message(server: str, prompt: int, context: int) -> tuple[str, str | None]:
    """(the error message, its type) a server sends for a prompt over its context, in its own words."""
    if server == "llama-server":
        return (
            f"request ({prompt} tokens) exceeds the available context size ({context} tokens), "
            "try increasing it",
            "exceed_context_size_error",
        )
    if server == "lmstudio":
        return (
            f"Trying to keep the first {prompt} tokens when context the overflows. However, the model is "
            f"loaded with context length of only {context} tokens, which is not enough. Try to load the "
            "model with a larger context length, or provide a shorter input",
            None,
        )
    return (
        f"This model's maximum context length is {context} tokens. However, you requested {prompt} tokens "
        f"({prompt} in the messages, None in the completion). Please reduce the length of the messages or "
        "completion.",
        "invalid_request_error",
    )


def _format_type(body: dict[str, Any]) -> str | None:
    """The request's response_format type ("json_schema", "json_object", ...); None without one."""
    response_format = body.get("response_format")
    if response_format is None:
        return None
    return str(response_format.get("type", "?")) if isinstance(response_format, dict) else "?"


def _error_body(message: str, type_: str, code: str | None, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


class _FakeHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], owner: FakeLLMServer) -> None:
        super().__init__(address, _Handler)
        self.owner = owner

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hang up on purpose (a test closing a stream, an idle keep-alive socket): not news.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 with chunked streams, as real servers answer; a dropped stream can then end cleanly
    # (terminating chunk, no [DONE]) or abort mid-body, the two ways real connections break.
    protocol_version = "HTTP/1.1"
    timeout = 30  # an idle keep-alive connection's thread gives up after this
    # Each SSE piece is its own small write: with Nagle's algorithm on, every write after the first
    # waits for the client's delayed ACK (~40 ms on Linux loopback) before it leaves.
    disable_nagle_algorithm = True
    server: _FakeHTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read requests() instead
        return

    # -- plumbing --------------------------------------------------------------------------------
    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw.decode("utf-8", "replace")

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _sse(self, payload: Any) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        self._write_chunk(f"data: {text}\n\n".encode())

    def _end_chunks(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    # -- routing ---------------------------------------------------------------------------------
    def do_GET(self) -> None:
        owner = self.server.owner
        path = urlsplit(self.path).path.rstrip("/")
        if path in ("/v1/models", "/models"):
            owner._record(self, None, role=None)
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "fakellm"} for m in owner.models]
            if owner.behaves_like == "vllm" and owner.context_size:
                for entry in data:
                    entry["max_model_len"] = owner.context_size
            self._send_json(200, {"object": "list", "data": data})
        elif self._server_info(path):
            return
        elif path == "/_fake/requests":
            self._send_json(200, owner.requests())
        elif path == "/_fake/remaining":
            self._send_json(200, owner.remaining())
        else:
            self._send_json(404, _error_body(f"fake LLM: no route GET {path}", "invalid_request_error", None))

    def _server_info(self, path: str) -> bool:
        """Where each server says its context (context_probe.py asks them); True when answered."""
        owner, context = self.server.owner, self.server.owner.context_size
        if owner.behaves_like == "llama-server" and path == "/props":
            payload: Any = {"default_generation_settings": {"n_ctx": context or 4096}, "total_slots": 1}
        elif owner.behaves_like == "ollama" and path == "/api/ps":
            payload = {
                "models": [{"name": m, "model": m, "context_length": context or 4096} for m in owner.models]
            }
        elif owner.behaves_like == "lmstudio" and path == "/api/v1/models":
            loaded = [{"id": m, "config": {"context_length": context or 4096}} for m in owner.models]
            payload = {
                "models": [
                    {"type": "llm", "key": m, "loaded_instances": [instance], "max_context_length": 131072}
                    for m, instance in zip(owner.models, loaded, strict=True)
                ]
            }
        else:
            return False
        owner._record(self, None, role=None)
        self._send_json(200, payload)
        return True

    def do_POST(self) -> None:
        owner = self.server.owner
        body = self._read_body()
        parts = urlsplit(self.path)
        path = parts.path.rstrip("/")
        if path == "/_fake/script":
            try:
                owner.load(body)
            except ValueError as err:
                self._send_json(400, {"error": str(err)})
                return
            self._send_json(200, {"loaded": owner.remaining()})
            return
        if path == "/_fake/reset":
            owner.reset()
            self._send_json(200, {"reset": True})
            return
        if path in ("/v1/embeddings", "/embeddings") and owner.embeddings:
            owner._record(self, body, role=None)
            self._embeddings(body)
            return
        deployment = None
        segments = path.split("/")
        if (
            len(segments) == 6
            and segments[1:3] == ["openai", "deployments"]
            and segments[4:] == ["chat", "completions"]
        ):
            deployment = segments[3]
        elif path not in ("/v1/chat/completions", "/chat/completions"):
            owner._record(self, body, role=None)
            error = _error_body(f"fake LLM: no route POST {path}", "invalid_request_error", None)
            self._send_json(404, error)
            return
        if not isinstance(body, dict):
            owner._record(self, body, role=None)
            error = _error_body("the request body must be a JSON object", "invalid_request_error", None)
            self._send_json(400, error)
            return
        if owner.behaves_like == "llama-cpp-python" and _format_type(body) == "json_schema":
            owner._record(self, body, role=None)
            self._send_json(500, _error_body(LLAMA_CPP_PYTHON_SCHEMA_ERROR, "internal_server_error", None))
            return
        if self._over_context(body):
            return
        self._generation = owner._begin_chat()
        served = owner.script.next_for(_system_text(body), response_format_type=_format_type(body))
        owner._record(self, body, role=served.role, deployment=deployment, query=parse_qs(parts.query))
        self._chat(body, served, model=deployment or str(body.get("model", "")))

    # -- embeddings --------------------------------------------------------------------------------
    def _embeddings(self, body: Any) -> None:
        """Deterministic vectors (fake_embedding): texts that share words point the same way."""
        texts = body.get("input") if isinstance(body, dict) else None
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            self._send_json(
                400, _error_body("input must be a string or a list of strings", "invalid_request_error", None)
            )
            return
        data = [
            {"object": "embedding", "index": i, "embedding": fake_embedding(t)} for i, t in enumerate(texts)
        ]
        usage = {
            "prompt_tokens": sum(len(t.split()) for t in texts),
            "total_tokens": sum(len(t.split()) for t in texts),
        }
        self._send_json(
            200, {"object": "list", "data": data, "model": str(body.get("model", "")), "usage": usage}
        )

    # -- chat completions ------------------------------------------------------------------------
    def _chat(self, body: dict[str, Any], served: Served, model: str) -> None:
        reply, fault = served.reply, served.fault
        if fault == "exhausted" or reply is None:
            self._send_json(400, _error_body(served.note, "invalid_request_error", "fake_script_exhausted"))
            return
        if fault == "reject_response_format":
            kind = _format_type(body)
            if reply.reject_response_format_status == 500:
                message = LLAMA_CPP_PYTHON_SCHEMA_ERROR.replace("json_schema", str(kind))
                self._send_json(500, _error_body(message, "internal_server_error", None))
                return
            message = f"Invalid parameter: 'response_format' of type '{kind}' is not supported."
            error = _error_body(message, "invalid_request_error", None, param="response_format")
            self._send_json(reply.reject_response_format_status, error)
            return
        if fault in ("http_401", "http_404", "http_429", "http_500"):
            self._http_fault(fault, reply, model)
            return
        if reply.delay_headers_s:
            time.sleep(reply.delay_headers_s)
        if reply.slow_first_token_s and not body.get("stream"):
            time.sleep(reply.slow_first_token_s)
        reply = self._at_context_edge(body, reply)
        usage = self._usage(body, reply)
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            if self.server.owner.behaves_like == "llama-cpp-python":
                include_usage = False  # it never sends usage while streaming
            self._stream(reply, fault, model, usage if include_usage else None)
        elif fault is not None:
            # A broken non-streamed reply: the connection closes with no response at all.
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
        else:
            message: dict[str, Any] = {"role": "assistant", "content": reply.content}
            if reply.reasoning:
                message["reasoning_content"] = reply.reasoning
            payload = {
                "id": self.server.owner._next_id(),
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {"index": 0, "message": message, "finish_reason": reply.finish_reason, "logprobs": None}
                ],
            }
            if usage is not None:
                payload["usage"] = usage
            self._send_json(200, payload)

    def _over_context(self, body: dict[str, Any]) -> bool:
        """A prompt over the context, answered as the server acted (True when answered)."""
        owner = self.server.owner
        context, prompt = owner.context_size, _prompt_tokens(body)
        if not context or prompt <= context or owner.behaves_like == "ollama":  # Ollama cuts it silently
            return False
        owner._record(self, body, role=None)
        if owner.behaves_like == "llama-cpp-python" and body.get("stream"):
            # HTTP 200, then the body ends with no event and no [DONE] (its error only reaches its log).
            self._start_stream()
            self._end_chunks()
            return True
        message, kind = _overflow_message(owner.behaves_like, prompt, context)
        error = _error_body(message, kind or "invalid_request_error", "context_length_exceeded", "messages")
        self._send_json(400, error)
        return True

    def _at_context_edge(self, body: dict[str, Any], reply: Reply) -> Reply:
        """The reply cut where prompt and reply fill the context, ending `length` (as servers do)."""
        context = self.server.owner.context_size
        if not context:
            return reply
        room = (context - _prompt_tokens(body)) * CHARS_PER_TOKEN
        if len(reply.content) <= room:
            return reply
        return dataclasses.replace(reply, content=reply.content[: max(room, 0)], finish_reason="length")

    def _http_fault(self, fault: str, reply: Reply, model: str) -> None:
        retry = {"retry-after-ms": str(reply.retry_after_ms)}
        if fault == "http_401":
            key = self.headers.get("api-key") or self.headers.get("Authorization", "").removeprefix("Bearer ")
            # Some servers echo the key they were given: the client must never pass that on.
            message = f"Incorrect API key provided: {key}. Find your API key in your account settings."
            self._send_json(401, _error_body(message, "invalid_request_error", "invalid_api_key"))
        elif fault == "http_404":
            message = f"The model `{model}` does not exist or you do not have access to it."
            self._send_json(404, _error_body(message, "invalid_request_error", "model_not_found"))
        elif fault == "http_429":
            message = "Rate limit reached for requests per minute. Please try again later."
            self._send_json(429, _error_body(message, "requests", "rate_limit_exceeded"), retry)
        else:
            message = "The server had an error while processing your request. Sorry about that!"
            self._send_json(500, _error_body(message, "server_error", None), retry)

    def _usage(self, body: dict[str, Any], reply: Reply) -> dict[str, Any] | None:
        if reply.usage == "omit":
            return None
        prompt_chars = "".join(_message_text(m) for m in body.get("messages") or [] if isinstance(m, dict))
        prompt = _tokens(prompt_chars)
        completion = _tokens(reply.content) + _tokens(reply.reasoning)
        cached = self.server.owner.cached_prefix_tokens(body)
        if reply.cached_tokens is not None:
            cached = int(reply.cached_tokens)
        usage: dict[str, Any] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
            "completion_tokens_details": {"reasoning_tokens": _tokens(reply.reasoning)},
        }
        if isinstance(reply.usage, dict):
            usage.update(reply.usage)
            if "total_tokens" not in reply.usage:
                usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return usage

    def _stream(self, reply: Reply, fault: str | None, model: str, usage: dict[str, Any] | None) -> None:
        chunk_id, created = self.server.owner._next_id(), int(time.time())

        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
            return {
                "id": chunk_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}],
            }

        self._start_stream()
        try:
            if fault == "empty_200":
                self._end_chunks()
                return
            if reply.slow_first_token_s:
                time.sleep(reply.slow_first_token_s)
            self._sse(chunk({"role": "assistant", "content": ""}))
            size = reply.chunk_size
            for i in range(0, len(reply.reasoning), size):
                self._pause(reply)
                if self._interrupted():
                    return
                self._sse(chunk({"reasoning_content": reply.reasoning[i : i + size]}))
            content = reply.content
            limit = reply.drop_after_chars if fault == "drop" else None
            stall_at = reply.stall_after_chars
            if stall_at == 0:
                self._stall(reply, chunk)
            for i in range(0, len(content), size):
                if limit is not None and i >= limit:
                    break
                piece = content[i : i + size] if limit is None else content[i : min(i + size, limit)]
                self._pause(reply)
                if self._interrupted():
                    return
                self._sse(chunk({"content": piece}))
                if stall_at and i < stall_at <= i + size:
                    self._stall(reply, chunk)
                if fault == "malformed_sse" and i == 0:
                    self._write_chunk(b'data: {"choices": [{"delta": {"content": "unterminated\n\n')
                if fault == "error_event":
                    # As llama-server reports a failure mid-reply: an error object, then the body ends.
                    self._sse({"error": {"code": 500, "message": reply.error_event, "type": "server_error"}})
                    self._end_chunks()
                    return
            if self._interrupted():
                return
            if fault == "malformed_sse" and not content:
                self._write_chunk(b'data: {"choices": [{"delta": {"content": "unterminated\n\n')
            if fault == "drop":
                self._drop(reply)
                return
            self._sse(chunk({}, reply.finish_reason))
            if usage is not None:
                self._sse({**chunk({}), "choices": [], "usage": usage})
            self._sse("[DONE]")
            self._end_chunks()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _superseded(self) -> bool:
        owner = self.server.owner
        return owner.one_at_a_time and owner._chats != getattr(self, "_generation", owner._chats)

    def _interrupted(self) -> bool:
        """In one_at_a_time mode, a newer request arrived: end this stream as llama-cpp-python's
        `interrupt_requests` does, `[DONE]` with no finish reason."""
        if not self._superseded():
            return False
        self._sse("[DONE]")
        self._end_chunks()
        return True

    def _sleep(self, seconds: float) -> None:
        """Sleep, waking early when a newer request supersedes this stream (one_at_a_time)."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0 and not self._superseded():
            time.sleep(min(left, 0.02))

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

    def _stall(self, reply: Reply, chunk: Any) -> None:
        """`stall_s` seconds without content: silence, empty deltas or keep-alive comments."""
        end = time.monotonic() + reply.stall_s
        if reply.stall_with == "nothing":
            self._sleep(reply.stall_s)
            return
        while time.monotonic() < end and not self._superseded():
            if reply.stall_with == "empty_deltas":
                self._sse(chunk({"content": ""}))
            else:
                self._write_chunk(b": keep-alive\n\n")
            time.sleep(min(reply.stall_every_s, max(end - time.monotonic(), 0)))

    def _pause(self, reply: Reply) -> None:
        if reply.delay_s:
            self._sleep(reply.delay_s)

    def _drop(self, reply: Reply) -> None:
        if reply.drop_mode == "clean":
            # The body ends properly, just without finish_reason or [DONE]. The connection stays
            # usable: closing it now, with no `Connection: close` sent, races the client's next
            # request on the pooled socket ("Server disconnected without sending a response").
            self._end_chunks()
        else:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)


EMBEDDING_SIZE = 64


def fake_embedding(text: str) -> list[float]:
    """A unit vector from the text's words (lower-cased), each hashed to a dimension and a sign: the
    same text always gets the same vector, and texts that share words have a positive cosine."""
    vector = [0.0] * EMBEDDING_SIZE
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        vector[digest[0] % EMBEDDING_SIZE] += 1.0 if digest[1] % 2 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class FakeLLMServer:
    """The loopback server with its script and the requests it received. Start, use, stop."""

    def __init__(
        self,
        script: dict[str, Any] | str | Path | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        models: tuple[str, ...] = ("fake-model",),
        prompt_cache: bool = False,
        behaves_like: str = "openai",
        context_size: int | None = None,
        one_at_a_time: bool = False,
        embeddings: bool = True,
    ) -> None:
        if behaves_like not in SERVERS:
            raise ValueError(f"behaves_like must be one of {list(SERVERS)}, got {behaves_like!r}")
        self.script = Script.from_spec(script)
        self.models = list(models)
        # Which server to act like, and its context in tokens (~4 characters each; None: unlimited).
        self.behaves_like = behaves_like
        self.context_size = context_size
        # Like a provider's prompt cache: report as cached the longest prefix a request shares with an
        # earlier one (a reply's own `cached_tokens` still wins).
        self.prompt_cache = prompt_cache
        # Like llama-cpp-python (`interrupt_requests`, on by default): a chat request that arrives
        # while a reply streams ends that reply (`[DONE]`, no finish reason).
        self.one_at_a_time = one_at_a_time
        # POST /v1/embeddings answers with fake_embedding's vectors; False: 404, as a server without them.
        self.embeddings = embeddings
        self._chats = 0  # chat requests so far: a stream started at an older count is superseded
        self._prompts: list[str] = []
        self._requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._ids = 0
        self._httpd = _FakeHTTPServer((host, port), self)
        self._thread: threading.Thread | None = None

    # -- addresses -------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def root_url(self) -> str:
        """The server's root, e.g. http://127.0.0.1:PORT; what Azure's `azure_endpoint` takes."""
        return f"http://{self._httpd.server_address[0]}:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL, ending in /v1."""
        return f"{self.root_url}/v1"

    azure_endpoint = root_url

    # -- control ---------------------------------------------------------------------------------
    def load(self, script: dict[str, Any] | str | Path | None) -> None:
        """Replace the script (a dict, or a path to a JSON file). Recorded requests are kept."""
        self.script = Script.from_spec(script)

    def requests(self) -> list[dict[str, Any]]:
        """Every request received so far: method, path, query, headers (lower-case names), body, role."""
        with self._lock:
            return json.loads(json.dumps(self._requests))

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests() if r["path"].endswith("/chat/completions")]

    def remaining(self) -> dict[str, int]:
        return self.script.remaining()

    def reset(self) -> None:
        """Forget the script, the recorded requests and the prompt cache."""
        self.script = Script()
        with self._lock:
            self._requests.clear()
            self._prompts.clear()

    def cached_prefix_tokens(self, body: dict[str, Any]) -> int:
        """With `prompt_cache`: tokens of the longest prefix this request's messages (each as its role
        and text) share with an earlier request's, whole tokens only; the request is then remembered."""
        if not self.prompt_cache:
            return 0
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        text = "".join(f"<|{m.get('role')}|>{_message_text(m)}" for m in messages)
        with self._lock:
            shared = max((len(os.path.commonprefix([p, text])) for p in self._prompts), default=0)  # noqa: RUF071
            self._prompts.append(text)
        return shared // CHARS_PER_TOKEN

    def _record(
        self,
        handler: BaseHTTPRequestHandler,
        body: Any,
        *,
        role: str | None,
        deployment: str | None = None,
        query: dict[str, list[str]] | None = None,
    ) -> None:
        entry = {
            "method": handler.command,
            "path": urlsplit(handler.path).path,
            "query": {k: v[0] if len(v) == 1 else v for k, v in (query or {}).items()},
            "headers": {k.lower(): v for k, v in handler.headers.items()},
            "body": body,
            "role": role,
            "deployment": deployment,
        }
        with self._lock:
            self._requests.append(entry)

    def _begin_chat(self) -> int:
        with self._lock:
            self._chats += 1
            return self._chats

    def _next_id(self) -> str:
        with self._lock:
            self._ids += 1
            return f"chatcmpl-fake-{self._ids}"

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> FakeLLMServer:
        # A short poll interval so stop() returns at once (a test starts and stops one per test).
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fakellm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def serve_forever(self) -> None:
        self._httpd.serve_forever()

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Loopback OpenAI-compatible server with scripted replies.")
    parser.add_argument("--script", help="JSON file: {role: [reply, ...]}; empty when omitted")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--model", action="append", help="models listed by GET /v1/models (repeatable)")
    parser.add_argument(
        "--prompt-cache", action="store_true", help="report a prefix shared with an earlier request as cached"
    )
    parser.add_argument("--behaves-like", default="openai", choices=SERVERS, help="which server to act like")
    parser.add_argument("--context-size", type=int, help="the model's context in tokens (~4 characters each)")
    parser.add_argument(
        "--one-at-a-time",
        action="store_true",
        help="a new chat request ends the reply streaming (llama-cpp-python)",
    )
    args = parser.parse_args(argv)
    try:
        server = FakeLLMServer(
            args.script,
            host=args.host,
            port=args.port,
            models=tuple(args.model or ["fake-model"]),
            prompt_cache=args.prompt_cache,
            behaves_like=args.behaves_like,
            context_size=args.context_size,
            one_at_a_time=args.one_at_a_time,
        )
    except ValueError as err:
        print(f"fakellm: {err}", file=sys.stderr)
        return 2
    print(server.base_url, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
