"""What twnb keeps in `extra`: `Post.extra`, `Round.extra`, and the `execution_result` attachment's.

TaskWeaver's reader ignores `extra`, so twnb's own data lives there. Each key is listed here once, with
its type; the `*_KEYS` tuples name them in the order they are documented. Saved YAML is plain data:
these are the shapes it is read back as, not wrapper classes.
"""

from __future__ import annotations

from typing import Any, Final, NotRequired, TypedDict


class UsageRecord(TypedDict, total=False):
    """Tokens, calls and LLM wall time, summed over a Post's attempts or a Round's Posts. `model` is the
    latest one used; `estimated` is set when a server sent no counts (about four characters a token);
    `time_to_first_token_s` is a Post's own (None when no text arrived), never summed into a Round's."""

    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    calls: int
    wall_time_s: float
    estimated: bool
    model: str
    time_to_first_token_s: float | None


class TimingRecord(TypedDict, total=False):
    """UTC ISO 8601 start and end, and the duration in seconds; a code Post adds `execution_s`, the
    time its code ran."""

    started_at: str
    ended_at: str
    duration_s: float
    execution_s: float


class DroppedAttempt(TypedDict):
    """One LLM attempt that was not used (the stream dropped, or the reply could not be read)."""

    reason: str
    raw_text: str


class RefusedEdit(TypedDict):
    """Step mode: the user's last edit of a post's code that verification refused (it never ran), and
    the refusal the user was shown. Kept when the user then skipped the code or stopped the Round, so
    what they typed is not lost; a record for the reader only, never sent to the LLM."""

    code: str
    refusal: str


class PluginCallRecord(TypedDict):
    """One call generated code made to a plugin (a TaskWeaver plugin, a notebook function made a plugin,
    or an MCP server's tool), as the CodeInterpreter's post records it in `plugin_calls`.

    `arguments` names each argument with its type only (values can be whole tables, or secrets);
    `result` is the result's type and a short description; `artifacts` the files the plugin added
    (`ctx.add_artifact`); `error` the exception's type and message when the call raised; `log` the
    lines the plugin logged (`level tag: message`); `started_at` UTC ISO 8601."""

    name: str
    source: str
    arguments: dict[str, str]
    result: str
    artifacts: list[str]
    error: str | None
    log: list[str]
    started_at: str
    duration_s: float


class RiskRecord(TypedDict, total=False):
    """Risky step mode (`--step=risky`) on a code post: `paused_for` the reasons verification's grades
    gave to wait for the user (empty: it ran without asking); `unpredicted` what the runtime guard saw
    the code do that those grades did not predict (a file overwritten, the network reached, a
    variable changed in place), one line each. A record for the reader only, never sent to the LLM."""

    paused_for: list[str]
    unpredicted: list[str]


class PostExtra(TypedDict, total=False):
    """`Post.extra`.

    - `usage`, `timing`: of the LLM call(s) that made the Post (`timing.execution_s`: its code's run).
    - `reasoning`: the model's thinking, capped; never sent back in a prompt.
    - `dropped_attempts`: attempts that were not used, oldest first.
    - `incomplete`: why a reply cut off (an LLM error, Ctrl-C) stopped before it was complete;
      `raw_text` then holds what arrived.
    - `unknown_keys`: reply keys that are no attachment type, with their text.
    - `edited_from`: step mode: the code a person replaced before it ran (a CodeInterpreter Post), or the
      plan a person edited (a Planner Post: its `init_plan`, `plan`, `current_plan_step`, `send_to`
      and `message` as the model wrote them).
    - `edited_by`, `skipped_by`, `approved_by`: step mode: "User" when a person edited the Post's code
      or plan, chose not to run its code, or approved its plan or code as it was (a record for the
      reader only: what the LLM is sent for an approval is what a plain Round sends).
    - `undone_by`, `undone`: step mode: "User" when a person undid the Post's code right after it ran
      (from the panel, before the Round went on), and the line of what was undone.
    - `refused_edit`: step mode: the user's last edit verification refused, with the refusal, on a
      post whose code the user then skipped or stopped at (`RefusedEdit`).
    - `plugin_calls`: the calls the post's code made to plugins, in order (`PluginCallRecord`).
    - `risk`: risky step mode: why the code waited for the user, or that it ran without asking, and
      what the runtime guard saw that verification did not predict (`RiskRecord`).
    - `ignored_reply_keys`: keys the model's reply carried that only running the code may set
      (`execution_status`, `execution_result`, `artifact_paths`, verification's verdict): they were
      dropped and the code ran; the record says so here.
    """

    usage: UsageRecord
    timing: TimingRecord
    reasoning: str
    dropped_attempts: list[DroppedAttempt]
    incomplete: str
    raw_text: str
    unknown_keys: dict[str, str]
    edited_from: str | dict[str, str]
    edited_by: str
    skipped_by: str
    approved_by: str
    undone_by: str
    undone: str
    refused_edit: RefusedEdit
    plugin_calls: list[PluginCallRecord]
    ignored_reply_keys: list[str]
    risk: RiskRecord


# The words a step-mode decision leaves in the record (a post's message, a skipped post's result),
# which are also what the LLM is told of it. Views say the decision once, in their own line, and drop
# these words where they repeat it.
SKIPPED_BY_USER: Final = "Skipped by the user: the code did not run."
EDITED_BY_USER: Final = "The user edited the code before it ran; the code shown is what ran."


class ReplayRecord(TypedDict, total=False):
    """A Round whose LLM replies came from a cassette: the cassette's file name, `rewound` when its
    replies had all been served and it started again from the first for a new conversation, and
    `drift`: one line per call whose request differed from the recorded one (the recorded reply was
    served anyway)."""

    cassette: str
    rewound: bool
    drift: list[str]


class UserCellRecord(TypedDict, total=False):
    """One of the user's own cells that ran in the kernel before a Round: its `source` (redacted as
    everything saved is; `clipped` when it was longer than the bound and cut, so it cannot run again),
    its `execution_count`, `error` ("NameError: ..." when it raised, else None) and the `variables` it
    created, rebound, changed or deleted (`VariableChange.to_dict()`, as in `ExecutionRecord`)."""

    source: str
    execution_count: int | None
    error: str | None
    variables: list[dict[str, Any]]
    clipped: bool


class PluginOfferRecord(TypedDict):
    """Which plugins a Round's CodeInterpreter prompt described: `described` (names, in the prompt's
    order), `available` (how many were enabled), `chosen_by`: "all" (a handful or fewer: every one),
    or "request" (more: the required ones, the ones whose words best match the request, and the ones
    earlier code called; `scores` the matching ones' scores)."""

    described: list[str]
    available: int
    chosen_by: str
    scores: dict[str, float]


class UndoneRecord(TypedDict, total=False):
    """A Round the user undid (`%taskweaver undo`): when (`undone_at`, UTC ISO 8601), `line` (the one
    line every view shows), whether it was `forced` past later changes (`changed_since`: the names),
    the variables `restored` (rebound, deleted or changed in place: back as they were) and `removed`
    (created by the Round), `files_restored` (overwritten: their content back), `files_moved` (created
    by the Round: path -> where it was moved, beside the notebook) and `not_undone` (one line each: what
    could not be taken back)."""

    undone_at: str
    line: str
    forced: bool
    changed_since: list[str]
    restored: list[str]
    removed: list[str]
    files_restored: list[str]
    files_moved: dict[str, str]
    not_undone: list[str]


class RoundExtra(TypedDict, total=False):
    """`Round.extra`: `usage` summed over its Posts, `timing` of the whole Round, `failure_reason` when
    it failed (a sentence for the user), `autosave_failed` (the one note, with the reason, when
    autosaving the Round failed), `ledger`: each LLM call and code run with its start, duration,
    tokens and cost, and the totals (`Ledger.to_dict()`, read back with `Ledger.from_dict`; see
    ledger.py), `plan` (the Round's plan as it ended, done or abandoned: `Plan.to_dict()`),
    `plan_recovered_from` (the id of the earlier plan the Round continued), `held_back_cells` (why
    the cells queued below the Round's cell were not run: it was interrupted, or in step mode the user
    stopped it or skipped its code), `user_cells` (the user's own cells that ran in the kernel since the
    previous Round, or since the session began, in order: `UserCellRecord`s; what a replay runs before
    the Round's code) with `user_cells_omitted` (how many older ones were left out to keep the record
    bounded), `replay` (a Round replayed from a cassette: `ReplayRecord`), `plugins` (which plugins the
    CodeInterpreter was shown in this Round and why: `PluginOfferRecord`), `plugin_only` (true when the
    Round ran in plugin-only mode) and `plugin_problems` (plugins that could not be loaded when the Round
    started, each `NAME: why`, said once: the Round after a problem first appeared), `changed_in_place`
    (the names its code may have changed in place, read from the code before it ran), `undo_limits`
    (what of the Round cannot be undone, one line each, said before its code ran: "`big` (6.1 GB)
    changed in place cannot be undone"), `undone` (the user undid it: `UndoneRecord`),
    `confinement` (only when the kernel that ran the code was a confined kernel: its rules, read,
    write, connect, proxy, landlock_abi, seccomp, mounts, and `lost_mounts`: the protected files a save
    from outside took out of their mount while the kernel ran, when there are any),
    `trust_notes` (what twnb did about what it trusts, one line each: a setting the code changed and
    twnb put back, a settings or plugin file a Round wrote that it did not load, one the user added
    or changed that it loaded), `rules` (the user's rule files in the Round's prompts, with their
    estimated tokens and their text as the prompts carried it, and those left out because a Round's
    code wrote them: `{"files": [{"path", "tokens", "text"}], "tokens", "written_by_code"}`) and
    `mentions` (what each @-mention of the request added to the CodeInterpreter's prompt: `mention`,
    `kind`, `text`), `experiences` (the remembered experiences put into both roles' prompts for the
    request: `exp_id`, `score`, `text`, `ranked_by`: "BM25" or "embeddings (MODEL)") and
    `context_notes` (what the user should know of how context was found, one line each: the server gave
    no embeddings, so experience was ranked by BM25; a replay described mentions as recorded that
    read otherwise today)."""

    usage: UsageRecord
    timing: TimingRecord
    failure_reason: str
    autosave_failed: str
    ledger: dict[str, Any]
    plan: dict[str, Any]
    plan_recovered_from: str
    held_back_cells: str
    user_cells: list[UserCellRecord]
    user_cells_omitted: int
    replay: ReplayRecord
    plugins: PluginOfferRecord
    plugin_only: bool
    plugin_problems: list[str]
    changed_in_place: list[str]
    undo_limits: list[str]
    undone: UndoneRecord
    confinement: dict[str, Any]
    trust_notes: list[str]
    rules: dict[str, Any]
    mentions: list[dict[str, str]]
    experiences: list[dict[str, Any]]
    context_notes: list[str]


class ExecutionRecord(TypedDict):
    """The `execution_result` attachment's `extra`: what the kernel reported, beside the bounded text
    the LLM sees. `outputs` are nbformat v4 output dicts (for replay); `variables` the names the code
    created, rebound, changed or deleted (`VariableChange.to_dict()`); `refusals`, when the runtime
    guard refused something the code did (status "refused"), each as `GuardRefusal.to_dict()`: rule,
    event, message, hint, line, source, subject."""

    execution_id: str
    status: str
    error: str | None
    variables: list[dict[str, Any]]
    outputs: list[dict[str, Any]]
    duration_s: float
    notes: list[str]
    refusals: NotRequired[list[dict[str, Any]]]


POST_EXTRA_KEYS: Final = tuple(PostExtra.__annotations__)
ROUND_EXTRA_KEYS: Final = tuple(RoundExtra.__annotations__)
EXECUTION_RECORD_KEYS: Final = tuple(ExecutionRecord.__annotations__)
USER_CELL_KEYS: Final = tuple(UserCellRecord.__annotations__)
REPLAY_RECORD_KEYS: Final = tuple(ReplayRecord.__annotations__)
USAGE_KEYS: Final = tuple(UsageRecord.__annotations__)


def add_usage(total: UsageRecord, usage: UsageRecord) -> UsageRecord:
    """`usage` added into `total` (which is returned): token counts and LLM wall time summed, `calls`
    counted (a record without it is one call); the model keeps the latest value.

    Time to first token is a figure of one call, not a sum: it is not carried, so a Round's usage has
    the total LLM time and each Post its own first-token time."""
    total["prompt_tokens"] = int(total.get("prompt_tokens") or 0) + int(usage.get("prompt_tokens") or 0)
    total["completion_tokens"] = int(total.get("completion_tokens") or 0) + int(
        usage.get("completion_tokens") or 0
    )
    total["cached_tokens"] = int(total.get("cached_tokens") or 0) + int(usage.get("cached_tokens") or 0)
    total["calls"] = int(total.get("calls") or 0) + int(usage.get("calls") or 1)
    wall = float(total.get("wall_time_s") or 0.0) + float(usage.get("wall_time_s") or 0.0)
    total["wall_time_s"] = round(wall, 3)
    if usage.get("estimated"):
        total["estimated"] = True
    if usage.get("model"):
        total["model"] = usage["model"]
    return total
