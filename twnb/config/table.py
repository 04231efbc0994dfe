"""The one table of twnb's settings.

Each row says everything about one setting: its name (also the ``%config TaskWeaverMagics.<name>``
traitlet and the attribute on :class:`~twnb.config.settings.Settings`), its kind, its default, the
environment variables and the YAML key it is read from, whether it is a traitlet, and a line of help.
From this table come the traitlets on ``TaskWeaverMagics``, the resolver, ``%taskweaver config`` and
the README's table (``python -m twnb.config.readme_table``). To add a setting, add a row here, its
typed attribute to :class:`~twnb.config.settings.Settings` (a test fails until they agree), and use
``settings.<name>`` where it matters; the README test then says to regenerate the README's table.

Precedence is the same for every row (docs/architecture.md, contract 4). The API key is the one
secret row: never a traitlet, a flag or a YAML key, only the environment or ``.env``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "DEFAULT_API_KEY_ENV",
    "DEFAULT_AZURE_API_VERSION",
    "KINDS",
    "PLACEHOLDER_API_KEY",
    "SETTINGS",
    "SETTINGS_BY_NAME",
    "Setting",
]

PLACEHOLDER_API_KEY = "twnb-no-key-needed"
"""Sent as the key to a local server when none is configured; such servers ignore it."""

DEFAULT_AZURE_API_VERSION = "2024-10-21"
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"

KINDS = (
    "text",
    "url",
    "bool",
    "count",
    "seconds",
    "modules",
    "paths",
    "ports",
    "prices",
    "mapping",
    "servers",
    "choice",
    "secret",
)
"""text and url: a string (url: http or https); bool: true/false, 1/0, yes/no, on/off; count: a whole
number, at least ``minimum``; seconds: a number above 0; modules: Python module names (a YAML or
traitlet list, or comma-separated in the environment); paths: folders (a YAML or traitlet list, or
separated by the platform's path separator, `:` or `;`, in the environment); ports: TCP ports as
``PORT`` or ``HOST:PORT`` (a YAML or traitlet list, or comma-separated in the environment); prices: model ->
``input``, ``output`` and optionally ``cached`` prices per million tokens (a YAML mapping or a JSON
object); mapping: names to mappings of settings (a YAML mapping or a JSON object); servers: MCP
servers by name, each ``{command, args, env}`` (stdio) or ``{url, headers}`` (streamable HTTP); choice:
one of
``choices``; secret: the API key (never shown)."""


@dataclass(frozen=True)
class Setting:
    """One row of the settings table."""

    name: str
    kind: str
    default: Any
    help: str
    env: tuple[str, ...] = ()
    yaml_key: str | None = None
    traitlet: bool = True
    # Unset, the setting takes this other setting's value (per-role models take the model).
    same_as: str | None = None
    minimum: int | None = None  # counts only
    choices: tuple[str, ...] = ()  # choices only
    # How the README describes the default when the value alone would not say enough.
    default_text: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"setting {self.name}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.kind == "secret" and (self.traitlet or self.yaml_key):
            raise ValueError(f"setting {self.name}: a secret is never a traitlet or a YAML key")

    def describe_default(self) -> str:
        """The default in words, as help and the README give it."""
        if self.default_text is not None:
            return self.default_text
        if self.same_as:
            return f"the {self.same_as}"
        if isinstance(self.default, bool):
            return "on" if self.default else "off"
        if self.default in (None, (), {}):
            return "none"
        if isinstance(self.default, float) and self.default.is_integer():
            return str(int(self.default))
        if isinstance(self.default, str):
            return f"`{self.default}`"
        return str(self.default)


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "model",
        "text",
        None,
        "The model (Azure: the deployment) both roles use.",
        env=("TWNB_MODEL", "LLM_MODEL"),
        yaml_key="llm.model",
        default_text="none: a clear error says what to set",
    ),
    Setting(
        "base_url",
        "url",
        None,
        "OpenAI-compatible base URL (Ollama, vLLM, ...).",
        env=("OPENAI_BASE_URL", "LLM_API_BASE"),
        yaml_key="llm.api_base",
        default_text="OpenAI's",
    ),
    Setting(
        "api_key",
        "secret",
        None,
        "The API key; only ever read from the environment or .env, never shown.",
        env=("OPENAI_API_KEY", "LLM_API_KEY", "AZURE_OPENAI_API_KEY"),
        traitlet=False,
        default_text="none (a local server gets a placeholder)",
    ),
    Setting(
        "api_key_env",
        "text",
        DEFAULT_API_KEY_ENV,
        "Name of the environment variable holding the API key (never the key).",
        yaml_key="llm.api_key_env",
    ),
    Setting(
        "azure_endpoint",
        "url",
        None,
        "Azure OpenAI endpoint; setting it selects Azure (the model is then the deployment name).",
        env=("AZURE_OPENAI_ENDPOINT",),
        yaml_key="llm.azure_endpoint",
        default_text="off",
    ),
    Setting(
        "api_version",
        "text",
        None,
        "Azure OpenAI API version.",
        env=("OPENAI_API_VERSION",),
        yaml_key="llm.api_version",
        default_text=f"{DEFAULT_AZURE_API_VERSION} with Azure",
    ),
    Setting(
        "planner_model",
        "text",
        None,
        "The Planner's model.",
        env=("TWNB_PLANNER_MODEL",),
        yaml_key="planner.model",
        same_as="model",
    ),
    Setting(
        "code_model",
        "text",
        None,
        "The CodeInterpreter's model.",
        env=("TWNB_CODE_MODEL",),
        yaml_key="code_interpreter.model",
        same_as="model",
    ),
    Setting(
        "session_dir",
        "text",
        ".twnb",
        "Folder for autosaves and cassettes, relative to the notebook.",
        env=("TWNB_SESSION_DIR",),
        yaml_key="session.dir",
    ),
    Setting(
        "artifacts_dir",
        "text",
        "twnb-artifacts",
        "Folder, relative to the notebook, for the files twnb saves for you (the figures the code "
        "displayed, named after the Round); never a hidden folder, which Jupyter does not serve.",
        env=("TWNB_ARTIFACTS_DIR",),
        yaml_key="session.artifacts_dir",
    ),
    Setting(
        "verify",
        "bool",
        True,
        "Check generated code before running it, and guard what it does while it runs (no processes, "
        "ctypes, signals to the kernel, resetting or deleting your variables).",
        yaml_key="code_interpreter.verify",
    ),
    Setting(
        "allow_active_output",
        "bool",
        False,
        "Show generated code's JavaScript, and HTML that runs script (event handlers, iframes), as it is "
        "instead of as text; the Round's record keeps it as text either way.",
        env=("TWNB_ALLOW_ACTIVE_OUTPUT",),
        yaml_key="code_interpreter.allow_active_output",
    ),
    Setting(
        "step",
        "choice",
        "off",
        "Step mode for every %%taskweaver cell (as --step does; needs JupyterLab or Notebook 7 with "
        "ipykernel 7.4 or later): on, approve the plan and each piece of code in the widget; risky, "
        "pause only on code that would overwrite or delete files, write outside the notebook's folder, "
        "change the working folder or the environment, reach the network, change your variables in "
        "place or exceed the undo budget (README: Approvals graded by risk); off. true/false mean on/off.",
        env=("TWNB_STEP",),
        yaml_key="session.step",
        choices=("off", "on", "risky"),
    ),
    Setting(
        "strict",
        "bool",
        False,
        "Batch runs (papermill, nbclient, CI): every %%taskweaver cell whose Round does not finish "
        "raises, so the run fails (as --strict does for one cell).",
        env=("TWNB_STRICT",),
        yaml_key="session.strict",
    ),
    Setting(
        "undo_budget_mb",
        "count",
        1024,
        "Megabytes of copies %taskweaver undo may keep per piece of code: the objects it may change in "
        "place and the files it overwrites; what does not fit is named before the code runs and cannot "
        "be undone (0: no copies; references to rebound and deleted variables are kept either way).",
        env=("TWNB_UNDO_BUDGET_MB",),
        yaml_key="session.undo_budget_mb",
        minimum=0,
    ),
    Setting(
        "max_retries",
        "count",
        3,
        "Revise attempts after failing code.",
        yaml_key="code_interpreter.max_retries",
        minimum=0,
    ),
    Setting(
        "timeout",
        "seconds",
        600.0,
        "Seconds one execution may take.",
        yaml_key="code_interpreter.timeout",
    ),
    Setting(
        "max_posts",
        "count",
        20,
        "Internal posts allowed per Round.",
        yaml_key="session.max_posts",
        minimum=1,
    ),
    Setting(
        "max_reply_chars",
        "count",
        200_000,
        "Characters one LLM reply may have; a longer one is stopped there and fails the Round.",
        yaml_key="session.max_reply_chars",
        minimum=1_000,
    ),
    Setting(
        "llm_timeout_connect",
        "seconds",
        10.0,
        "Seconds to connect to the LLM server; a call that could not connect is sent again (up to twice).",
        env=("TWNB_LLM_TIMEOUT_CONNECT",),
        yaml_key="llm.timeout.connect",
    ),
    Setting(
        "llm_timeout_first_byte",
        "seconds",
        600.0,
        "Seconds from sending a request to the reply's first text or thinking (a long prompt on a CPU "
        "server, a model thinking silently); empty deltas and keep-alives do not count.",
        env=("TWNB_LLM_TIMEOUT_FIRST_BYTE",),
        yaml_key="llm.timeout.first_byte",
    ),
    Setting(
        "llm_timeout_idle",
        "seconds",
        300.0,
        "The idle deadline: seconds a reply that has started may go without new text or thinking; "
        "empty deltas and keep-alives do not count.",
        env=("TWNB_LLM_TIMEOUT_IDLE",),
        yaml_key="llm.timeout.idle",
    ),
    Setting(
        "llm_timeout_total",
        "seconds",
        1800.0,
        "The total deadline: seconds one LLM reply may take from request to end. A reply past any of "
        "these deadlines fails its Round, naming the one to raise; it is never sent again.",
        env=("TWNB_LLM_TIMEOUT_TOTAL",),
        yaml_key="llm.timeout.total",
    ),
    Setting(
        "response_format",
        "choice",
        "auto",
        "How replies are asked for: auto (strict json_schema, then json_object, then plain text, as "
        "far as the server takes them, remembered per server and model); or json_schema, json_object "
        "or text outright.",
        env=("TWNB_RESPONSE_FORMAT",),
        yaml_key="llm.response_format",
        choices=("auto", "json_schema", "json_object", "text"),
    ),
    Setting(
        "context_size",
        "count",
        None,
        "The model's context in tokens, when the server does not say (llama-server, vLLM, LM Studio and "
        "Ollama are asked; llama-cpp-python is not); prompts are fitted to it.",
        env=("TWNB_CONTEXT_SIZE",),
        yaml_key="llm.context_size",
        minimum=256,
        default_text="what the server says",
    ),
    Setting(
        "max_tokens",
        "count",
        None,
        "Tokens one reply may have (sent to the server, and kept free in the context); unset, the "
        "server's own limit, and a quarter of the context is kept free.",
        env=("TWNB_MAX_TOKENS",),
        yaml_key="llm.max_tokens",
        minimum=16,
        default_text="the server's",
    ),
    Setting(
        "record",
        "bool",
        False,
        "Record every LLM call to a cassette beside the session's autosaves.",
        env=("TWNB_RECORD",),
        yaml_key="session.record",
    ),
    Setting(
        "replay",
        "text",
        None,
        "Replay LLM replies from this cassette instead of calling a model.",
        env=("TWNB_REPLAY",),
        yaml_key="llm.replay",
        default_text="off",
    ),
    Setting(
        "examples_dir",
        "text",
        None,
        "Folder of your own few-shot examples (TaskWeaver YAML) in planner/ and code_interpreter/.",
        env=("TWNB_EXAMPLES_DIR",),
        yaml_key="session.examples_dir",
    ),
    Setting(
        "experience_dir",
        "text",
        ".twnb/experience",
        "Folder of remembered experience (TaskWeaver's raw_exp_, exp_ and handcrafted_exp_ YAML files, "
        "a TaskWeaver experience folder read as it is), relative to the notebook's folder.",
        env=("TWNB_EXPERIENCE_DIR",),
        yaml_key="session.experience_dir",
    ),
    Setting(
        "embedding_model",
        "text",
        None,
        "Embedding model on the same server for retrieving experience, e.g. 'text-embedding-3-small' "
        "(unset, or a server without embeddings: experience is ranked with BM25, offline).",
        env=("TWNB_EMBEDDING_MODEL",),
        yaml_key="llm.embedding_model",
        default_text="unset (BM25)",
    ),
    Setting(
        "allow_modules",
        "modules",
        (),
        "Modules generated code may import besides the data-analysis allow-list, e.g. ['geopandas'].",
        env=("TWNB_ALLOW_MODULES",),
        yaml_key="code_interpreter.allow_modules",
    ),
    Setting(
        "block_functions",
        "modules",
        (),
        "Functions generated code may not call besides those always refused, as imported names, "
        "e.g. ['os.remove', 'os.unlink'] (TaskWeaver's code_interpreter.blocked_functions).",
        env=("TWNB_BLOCK_FUNCTIONS",),
        yaml_key="code_interpreter.block_functions",
    ),
    Setting(
        "taskweaver_verification",
        "bool",
        False,
        "Also check generated code by TaskWeaver's own verification rules (its allowed_modules and "
        "blocked_functions), on top of twnb's; twnb eval sets it for cases with code_verification_on.",
        yaml_key="code_interpreter.code_verification_on",
    ),
    Setting(
        "taskweaver_allowed_modules",
        "modules",
        None,
        "With taskweaver_verification: the only modules generated code may import ([]: none).",
        yaml_key="code_interpreter.allowed_modules",
        default_text="TaskWeaver's: pandas, matplotlib, numpy, sklearn, scipy, seaborn, datetime, typing",
    ),
    Setting(
        "taskweaver_blocked_functions",
        "modules",
        None,
        "With taskweaver_verification: functions generated code may not call, by name ([]: none).",
        yaml_key="code_interpreter.blocked_functions",
        default_text="TaskWeaver's: eval, exec, execfile, compile, open, input, raw_input, reload, "
        "__import__, getattr, setattr, delattr, vars, globals, locals and three dunders",
    ),
    Setting(
        "plugin_dirs",
        "paths",
        (),
        "Folders of TaskWeaver plugins (NAME.yaml beside NAME.py), relative to the notebook.",
        env=("TWNB_PLUGIN_DIRS",),
        yaml_key="plugins.dirs",
        default_text="`plugins/` beside the notebook, when there is one",
    ),
    Setting(
        "plugin_config",
        "mapping",
        None,
        "Values that replace a plugin's spec configurations, by plugin, e.g. "
        "{'sql_pull_data': {'sqlite_db_path': 'sqlite:///sales.db'}}; values of secret-looking keys "
        "are secrets.",
        yaml_key="plugins.config",
    ),
    Setting(
        "plugin_only",
        "bool",
        False,
        "Plugin-only mode for every Round (as --plugin-only does): generated code may only call "
        "plugins and use what they return.",
        yaml_key="code_interpreter.plugin_only",
    ),
    Setting(
        "mcp_servers",
        "servers",
        None,
        "MCP servers whose tools become plugins, by name: {command, args, env} (stdio) or "
        "{url, headers} (streamable HTTP); env and headers values of secret-looking names are secrets. "
        "Needs twnb[mcp].",
        yaml_key="mcp.servers",
    ),
    Setting(
        "mcp_timeout",
        "seconds",
        60.0,
        "Seconds an MCP server may take to start, or to answer one tool call.",
        yaml_key="mcp.timeout",
    ),
    Setting(
        "prices",
        "prices",
        None,
        "Prices per million tokens by model, for each Round's cost, e.g. "
        "{'gpt-4o-mini': {'input': 0.15, 'output': 0.6, 'cached': 0.075}}; a model without one gets no cost.",
        env=("TWNB_PRICES",),
        yaml_key="llm.prices",
    ),
    Setting(
        "trace",
        "choice",
        "off",
        "OpenTelemetry tracing: off; on (the process's TracerProvider, else one from the OTEL_* "
        "variables); console; otlp (to OTEL_EXPORTER_OTLP_ENDPOINT). Needs twnb[otel].",
        env=("TWNB_TRACE",),
        yaml_key="tracing.mode",
        choices=("off", "on", "console", "otlp"),
    ),
    Setting(
        "confine_read",
        "paths",
        (),
        "Folders a confined kernel (kernelspec twnb-confined, twnb's batch kernels) may read besides the "
        "system, Python's libraries and the notebook's folder; read only from the environment or "
        "~/.config/twnb/config.yaml, never from files the kernel can write.",
        env=("TWNB_CONFINE_READ",),
        yaml_key="confine.read",
    ),
    Setting(
        "confine_write",
        "paths",
        (),
        "Folders a confined kernel may write besides the notebook's folder, the artifacts folder and its "
        "private temporary folder (same sources as confine_read).",
        env=("TWNB_CONFINE_WRITE",),
        yaml_key="confine.write",
    ),
    Setting(
        "confine_connect",
        "ports",
        (),
        "TCP ports a confined kernel may connect to besides the model's key proxy, as PORT or HOST:PORT "
        "(Landlock allows a port on every host: the host only documents it); naming any also lets the "
        "kernel look names up over UDP (same sources as confine_read).",
        env=("TWNB_CONFINE_CONNECT",),
        yaml_key="confine.connect",
    ),
    Setting(
        "confine_kernels",
        "bool",
        True,
        'Start the separate kernel twnb runs code in (KernelExecutor, "Kernels elsewhere") confined '
        "where the system can; false lets its code run programs, write wherever you can, read your "
        "home folder's secrets and the model's API key (same sources as confine_read; the batch "
        "commands take --no-confine instead).",
        env=("TWNB_CONFINE_KERNELS",),
        yaml_key="confine.kernels",
    ),
)

SETTINGS_BY_NAME = {row.name: row for row in SETTINGS}
