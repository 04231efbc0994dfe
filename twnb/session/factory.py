"""Building a Session from settings: the client (live with redaction and the response_format fallback,
or replayed from a cassette; recorded when asked), the translator, both roles, verification, and the
namespace summary hook.

Each role asks for its own JSON schema as a strict `json_schema` response format; a server that refuses
it is asked for `json_object`, then plain text, from then on (the fallback wraps every client), so any
server works. The `response_format` setting chooses one outright instead. Both roles fit their prompts
to the model's context when it is known (the live client asks the server; roles/prompt_fit.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twnb.base import create_id, set_log_scrubber
from twnb.config import FolderQuarantine, SettingsError
from twnb.kernel import MB, Executor, UndoLog, UserCellSource
from twnb.llm import (
    ChatClient,
    OpenAIChatClient,
    ReplayClient,
    context_windows,
    make_client,
    provider_name,
    session_chat_client,
)
from twnb.memory import EventRelay, Memory
from twnb.roles import (
    DEFAULT_ALLOWED_MODULES,
    DEFAULT_BLOCKED_FUNCTIONS,
    TASKWEAVER_ALLOWED_MODULES,
    TASKWEAVER_BLOCKED_FUNCTIONS,
    CodeInterpreter,
    CodeLimits,
    Planner,
    PostTranslator,
    RoleBrief,
    RoleLimits,
    RoleSurroundings,
    TaskWeaverRules,
    VerificationConfig,
    Worker,
    verify_code,
)
from twnb.session.experience import ExperienceStore
from twnb.session.experience_embeddings import ExperienceEmbeddings
from twnb.session.project_rules import ProjectRules, RulesInForce, written_by_rounds
from twnb.session.recorded_context import RecordedRounds
from twnb.session.redactor import redactor_for
from twnb.session.risk_check import RiskCheck
from twnb.session.session import Session
from twnb.session.session_parts import Recording, RoundContext, RoundLimits, SessionParts
from twnb.telemetry import apply_trace_setting, round_tracer

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from twnb.config import FileTrust, Redactor, ResolvedSettings, Settings
    from twnb.memory import Conversation, Observer, Round
    from twnb.plugins import PluginCatalog
    from twnb.roles import ResponseFormatChoice


@dataclass(frozen=True)
class NotebookParts:
    """What the notebook lends a session it has built (each optional). `memory`: the conversation to
    carry on (its session id names the folder of both the cassette and the autosaved Rounds);
    `user_cells`: the user's own cells each Round records; `plugins` (the notebook's PluginCatalog):
    offered to both roles, the executor must then be one that binds them (`build_live_session` wraps
    it); `undo_log`: the live kernel's runs, for `Session.undo`; `risk`: grades code for risky step
    mode (default: in the executor's folder, without the namespace)."""

    memory: Memory | None = None
    user_cells: UserCellSource | None = None
    plugins: PluginCatalog | None = None
    undo_log: UndoLog | None = None
    risk: RiskCheck | None = None


def build_session(
    resolved: ResolvedSettings,
    executor: Executor,
    *,
    client: ChatClient | None = None,
    session_dir: Path | None = None,
    record: bool | None = None,
    redactor: Redactor | None = None,
    notebook: NotebookParts = NotebookParts(),
) -> Session:
    """A Session for the settings `resolved` running code on `executor`, with the parts the `notebook`
    lends it.

    `client` defaults to the one the settings describe: a replay of the cassette `settings.replay`
    (relative to the notebook's folder), else the live client. A client passed in (tests, benches) gets
    the same redaction and response_format fallback as the live one. `record` (default:
    `settings.record`) appends every LLM call to `<session_dir>/<session_id>/cassette.yaml`, which
    `save` copies beside the conversation.
    """
    plain = resolved.settings
    plugins, risk = notebook.plugins, notebook.risk
    redactor = redactor if redactor is not None else redactor_for(resolved)
    set_log_scrubber(redactor.redact)  # twnb's own log records, whatever handlers the user has
    folder = Path(session_dir if session_dir is not None else plain.session_dir)
    memory = notebook.memory if notebook.memory is not None else Memory(session_id=create_id())
    cassette = None
    if record if record is not None else plain.record:
        cassette = folder / memory.session_id / "cassette.yaml"
        cassette.parent.mkdir(parents=True, exist_ok=True)
    # One place wraps every client (redaction, response_format fallback, recording): a client passed in
    # is wrapped as the live one is; without one, the settings' replay or live client is built.
    llm_events = EventRelay()
    replay = None
    replay_path = _setting_path(resolved, plain.replay) if client is None else None
    if replay_path is not None:
        # The session keeps it: it rewinds it for a new conversation and writes its drift in the Round.
        replay = ReplayClient(replay_path, redactor=redactor, warn_on_drift=False)
    client = session_chat_client(
        resolved,
        redactor=redactor,
        inner=client,
        record_to=cassette,
        replay_from=replay,
        observer=llm_events,
    )

    namespace_summary = executor.namespace_summary
    examples = _examples_folder(resolved)
    asked_for = _role_format(plain)
    context = context_windows(client)
    translator = PostTranslator()
    code_interpreter = CodeInterpreter(
        client,
        plain.model_for("CodeInterpreter"),
        translator,
        brief=RoleBrief(example_dirs=_role_folder(examples, "code_interpreter"), response_format=asked_for),
        limits=CodeLimits(
            max_revisions=plain.max_retries, max_reply_chars=plain.max_reply_chars, context=context
        ),
        verification=verification_config(plain),
        surroundings=RoleSurroundings(
            namespace_summary=namespace_summary, plugins=plugins, workdir=executor.workdir
        ),
    )
    planner = Planner(
        client,
        plain.model_for("Planner"),
        translator,
        workers=[Worker(code_interpreter.alias, code_interpreter.intro)],
        brief=RoleBrief(example_dirs=_role_folder(examples, "planner"), response_format=asked_for),
        limits=RoleLimits(max_reply_chars=plain.max_reply_chars, context=context),
        surroundings=RoleSurroundings(namespace_summary=namespace_summary, plugins=plugins),
    )
    parts = SessionParts(
        recording=Recording(
            cassette_path=cassette,
            replay=replay,
            llm_events=llm_events,
            prices=plain.prices,
            tracing=_tracing(plain),
        ),
        context=RoundContext(
            user_cells=notebook.user_cells,
            plugins=plugins,
            rules=rules_for(resolved, redactor),
            experience=experience_store(resolved, redactor, embed=replay is None),
            recorded=RecordedRounds(replay.path) if replay is not None else None,
        ),
        undo_log=notebook.undo_log,
        risk=risk if risk is not None else RiskCheck(executor.workdir, undo_budget_mb=plain.undo_budget_mb),
    )
    return Session(
        planner=planner,
        code_interpreter=code_interpreter,
        executor=executor,
        session_dir=folder,
        memory=memory,
        redactor=redactor,
        limits=RoundLimits(max_posts=plain.max_posts, timeout=plain.timeout),
        parts=parts,
    )


def experience_store(
    resolved: ResolvedSettings, redactor: Redactor | None = None, *, embed: bool = False
) -> ExperienceStore:
    """The experience folder (`experience_dir`, relative to the notebook's folder unless absolute);
    `embed`: rank by `embedding_model` when it is set (a replayed session asks no server)."""
    redactor = redactor if redactor is not None else redactor_for(resolved)
    folder = Path(resolved.settings.experience_dir).expanduser()
    folder = folder if folder.is_absolute() else resolved.workdir / folder
    model = resolved.settings.embedding_model
    embeddings = None
    if embed and model:
        embeddings = ExperienceEmbeddings(model, _embedder(resolved, redactor, model), folder)
    return ExperienceStore(
        folder, redactor.redact, embeddings=embeddings, refuse=_quarantine_lines(resolved, "experience")
    )


def _quarantine_lines(resolved: ResolvedSettings, what: str) -> Callable[[Path], str | None]:
    """A loader's question to the notebook folder's quarantine (config/quarantine.py): the line that
    refuses a file as `what`, None when it may be loaded."""
    quarantine = FolderQuarantine(resolved.workdir)
    return lambda path: quarantine.line(path, what)


def _embedder(
    resolved: ResolvedSettings, redactor: Redactor, model: str
) -> Callable[[list[str]], list[list[float]]]:
    """Texts to vectors by the settings' server, its client made at the first use (no key: it raises,
    and experience is ranked by BM25, said once)."""
    made: list[OpenAIChatClient] = []

    def embed(texts: list[str]) -> list[list[float]]:
        if not made:
            made.append(make_client(resolved, redactor=redactor))
        return made[0].embed(model, texts)

    return embed


def rules_for(resolved: ResolvedSettings, redactor: Redactor | None = None) -> ProjectRules:
    """The user's rule files around the notebook's folder, redacted with the session's redactor."""
    redactor = redactor if redactor is not None else redactor_for(resolved)
    return ProjectRules(resolved.workdir, redactor.redact, refuse=_quarantine_lines(resolved, "rules"))


def rules_in_force(resolved: ResolvedSettings, conversation: Conversation) -> RulesInForce:
    """The rules the next Round would read (`%taskweaver rules`), leaving out the files the
    conversation's code wrote."""
    return rules_for(resolved).read(written_by_rounds(conversation, resolved.workdir))


def _role_format(plain: Settings) -> ResponseFormatChoice:
    """What the roles ask for: their JSON schema (auto: the fallback steps down from there), or the
    format the `response_format` setting chose outright (`text`: none)."""
    chosen = plain.response_format
    if chosen == "text":
        return None
    return "json_object" if chosen == "json_object" else "json_schema"


def _tracing(plain: Settings) -> Callable[[Session, Round], Observer | None]:
    """The hook that gives each Round its tracing observer (nothing while tracing is off); the `trace`
    setting switches tracing on or off when it changes."""
    try:
        apply_trace_setting(plain.trace)
    except ImportError as error:
        raise SettingsError(f"The trace setting is {plain.trace!r}, but {error}") from None
    provider = provider_name(plain.azure_endpoint or plain.base_url, azure=bool(plain.azure_endpoint))
    models = {role: plain.model_for(role) for role in ("Planner", "CodeInterpreter")}
    return functools.partial(round_tracer, provider=provider, models=models)


def build_live_session(
    resolved: ResolvedSettings,
    shell: InteractiveShell,
    workdir: Path,
    session_dir: Path,
    *,
    known_secrets: Iterable[str] = (),
    memory: Memory | None = None,
    user_cells: UserCellSource | None = None,
    plugins: PluginCatalog | None = None,
    undo_log: UndoLog | None = None,
) -> Session:
    """A Session that runs code on the notebook's own kernel (`shell`, an IPython InteractiveShell),
    in `workdir`, keeping autosaves under `session_dir` and the files it saves for the user in the
    visible `artifacts_dir` (relative to `workdir`), carrying on `memory` (the notebook's conversation,
    if it has one). The notebook layer asks for its session here, so it never builds an executor or a
    client itself. `known_secrets` (values seen as secrets earlier in the notebook) stay redacted; each
    Round records the user's own cells that `user_cells` saw since the previous one. `plugins` (the
    notebook's, see `plugin_catalog`) are bound in the kernel while code runs and their calls recorded.
    Each run is recorded in `undo_log` (default: a new one, see `undo_log_for`) for `Session.undo`."""
    # lazy: the live shell's executor (~130 ms, 43 modules), which verification_config's callers (a
    # re-run's check) do not need; the plugins' executor, catalog and MCP tools (twnb.plugins, ~40-80
    # modules each) load only for the settings that use them
    from twnb.kernel import AWAIT_ON_A_THREAD, LiveBookkeeping, LiveShellExecutor, NotebookOutput, RunRules

    redactor = redactor_for(resolved)
    undo_log = undo_log if undo_log is not None else undo_log_for(resolved, shell, session_dir)
    redactor.remember(known_secrets)
    artifacts = artifacts_folder(resolved, workdir)
    executor: Executor = LiveShellExecutor(
        shell,
        workdir,
        artifacts,
        session_dir=session_dir,
        output=NotebookOutput(
            redact=redactor.redact,  # the code's outputs, before the notebook shows them
            remember_secrets=redactor.remember,  # secret-named variables stay secrets once gone
            allow_active_output=bool(resolved.settings.allow_active_output),
        ),
        rules=RunRules(
            default_timeout=resolved.settings.timeout,
            guarded=bool(resolved.settings.verify),  # --no-verify turns the runtime guard's refusals off too
            protected=trusted_places(resolved, workdir),
            # the advice for code that awaits at its top level gives only a recipe verification passes
            await_on_a_thread=not verify_code(AWAIT_ON_A_THREAD, verification_config(resolved.settings)),
        ),
        bookkeeping=LiveBookkeeping(undo_log=undo_log),
    )
    if plugins is not None:
        from twnb.plugins import PluginExecutor

        plugins.remember_secrets = redactor.remember  # secret-looking plugin configurations
        executor = PluginExecutor(executor, plugins, artifacts)
    return build_session(
        resolved,
        executor,
        session_dir=session_dir,
        redactor=redactor,
        notebook=NotebookParts(
            memory=memory,
            user_cells=user_cells,
            plugins=plugins,
            undo_log=undo_log,
            risk=RiskCheck(
                workdir,
                artifacts,
                namespace=lambda: shell.user_ns,
                hidden=lambda: set(getattr(shell, "user_ns_hidden", None) or ()),  # In, Out, get_ipython, ...
                undo_budget_mb=resolved.settings.undo_budget_mb,
            ),
        ),
    )


def undo_log_for(
    resolved: ResolvedSettings, shell: InteractiveShell, session_dir: Path, existing: UndoLog | None = None
) -> UndoLog:
    """The undo log of `shell`'s runs, with the settings' budget (`existing`, kept with its snapshots
    when given: a new session for other settings does not forget what can be undone). Copies of the
    files runs overwrite go in the session folder: twnb's own, never an artifact."""
    folder = Path(session_dir) / "undo"
    if existing is None or existing.namespace is not shell.user_ns:
        return UndoLog(resolved.settings.undo_budget_mb, folder, shell.user_ns)
    existing.budget_bytes = int(resolved.settings.undo_budget_mb * MB)
    existing.folder = folder
    return existing


def artifacts_folder(resolved: ResolvedSettings, workdir: Path) -> Path:
    """The visible folder for the files twnb saves for the user (`artifacts_dir`, relative to the
    notebook's folder unless absolute)."""
    artifacts = Path(resolved.settings.artifacts_dir).expanduser()
    return artifacts if artifacts.is_absolute() else workdir / artifacts


def plugin_folders(resolved: ResolvedSettings, workdir: Path) -> list[Path]:
    """The TaskWeaver plugin folders: the `plugin_dirs` setting (relative to the notebook's folder),
    else `plugins/` beside the notebook when it exists."""
    named = resolved.settings.plugin_dirs
    if not named:
        default = workdir / "plugins"
        return [default] if default.is_dir() else []
    folders = [Path(p).expanduser() for p in named]
    return [p if p.is_absolute() else workdir / p for p in folders]


def plugin_catalog(
    resolved: ResolvedSettings,
    *,
    workdir: Path,
    session_dir: Path,
    namespace: MutableMapping[str, Any] | None,
    hidden: MutableMapping[str, Any] | None,
    notebook_names: Iterable[str],
    session_id: Callable[[], str],
    file_trust: FileTrust | None = None,
) -> PluginCatalog:
    """The notebook's plugins as the settings describe them (nothing is loaded until a Round needs
    them: see PluginCatalog.refresh). `notebook_names` is the notebook's live list of names given to
    `%taskweaver plugins add`."""
    from twnb.plugins import PluginCatalog

    settings = resolved.settings
    tools = None
    if settings.mcp_servers:
        from twnb.plugins import McpTools

        tools = McpTools(
            settings.mcp_servers,
            timeout=float(settings.mcp_timeout),
            log_dir=session_dir / "mcp",
            cwd=workdir,
            redact=redactor_for(resolved).redact,
        )
    return PluginCatalog(
        folders=plugin_folders(resolved, workdir),
        artifacts_dir=artifacts_folder(resolved, workdir),
        namespace=namespace,
        hidden=hidden,
        notebook_names=notebook_names,
        configurations=dict(settings.plugin_config or {}),
        session_id=session_id,
        tools=tools,
        file_trust=file_trust,
    )


def verification_config(plain: Settings | None) -> VerificationConfig:
    """Verification as these settings ask for it (None: the defaults): generated code gets it, and so
    does recorded code before it runs again (recorded_code.py)."""
    if plain is None:
        return VerificationConfig()
    extra = frozenset(plain.allow_modules)
    blocked = frozenset(plain.block_functions)
    return VerificationConfig(
        enabled=bool(plain.verify),
        allowed_modules=DEFAULT_ALLOWED_MODULES | extra,
        blocked_functions=DEFAULT_BLOCKED_FUNCTIONS | blocked,
        taskweaver=_taskweaver_rules(plain),
    )


def _taskweaver_rules(plain: Settings) -> TaskWeaverRules | None:
    """TaskWeaver's own rules when the settings ask for them (unset lists: TaskWeaver's defaults)."""
    if not plain.taskweaver_verification:
        return None
    allowed = plain.taskweaver_allowed_modules
    blocked = plain.taskweaver_blocked_functions
    return TaskWeaverRules(
        allowed_modules=TASKWEAVER_ALLOWED_MODULES if allowed is None else allowed,
        blocked_functions=TASKWEAVER_BLOCKED_FUNCTIONS if blocked is None else blocked,
    )


def trusted_places(resolved: ResolvedSettings, workdir: Path) -> list[Path]:
    """twnb's own places in the trust base, which generated code may never write (kernel/guard/trust_base.py
    adds Python's, IPython's, Jupyter's and the shell's, and the session folder): the plugin folders
    (`plugins/` beside the notebook even before it exists), the examples folder and the cassette
    replayed."""
    named = resolved.settings.plugin_dirs
    folders = plugin_folders(resolved, workdir) if named else [workdir / "plugins"]
    for value in (resolved.settings.examples_dir, resolved.settings.replay):
        path = _setting_path(resolved, value)
        if path is not None:
            folders.append(path)
    return folders


def _setting_path(resolved: ResolvedSettings, value: str | None) -> Path | None:
    """A path setting's value, relative to the notebook's folder (the settings' workdir) unless absolute."""
    if not value:
        return None
    path = Path(value).expanduser()
    return path if path.is_absolute() else Path(resolved.workdir) / path


def _examples_folder(resolved: ResolvedSettings) -> Path | None:
    """The user's examples folder, checked: it must hold `planner/` or `code_interpreter/` (or both),
    like TaskWeaver's planner_examples and code_generator_examples, so each role gets its own kind."""
    folder = _setting_path(resolved, resolved.settings.examples_dir)
    if folder is None:
        return None
    if not any((folder / role).is_dir() for role in ("planner", "code_interpreter")):
        raise ValueError(
            f"examples_dir {folder} has no planner/ or code_interpreter/ folder: put Planner examples "
            "(TaskWeaver conversation YAML) in planner/ and CodeInterpreter examples in code_interpreter/."
        )
    return folder


def _role_folder(examples: Path | None, role: str) -> list[Path]:
    return [examples / role] if examples is not None and (examples / role).is_dir() else []
