"""A twnb session: one conversation, the Round driver, autosave, limits and cancellation.

The Round loop is a generator (docs/architecture.md, "A Round's data flow"): it yields each piece of code to
run as a `CodeRequest` and receives the kernel's `ExecutionResult`. `run_round` drives it with the executor;
step mode drives the same generator from clicks. One loop, two drivers.

A Round never raises for an expected failure: an LLM error, a role that gives up (the Planner's
answer with `stop: TaskFailure` too), the post limit, or Ctrl-C end it `failed` with
`round.extra["failure_reason"]`, every post kept, and `RoundEnded` is always the last event. Every
post is redacted once, when committed (and a loaded conversation once, when loaded or taken over), by
the session's one Redactor; the autosave, the saved YAML and the Round display then write data that
is already redacted, so secrets reach none of them.

Nothing that arrived is dropped on failure: a reply cut off by an LLM error or Ctrl-C is committed as
it stood, with `post.extra["incomplete"]` (why) and `post.extra["raw_text"]` (what was received); a
code post whose result never came back (Ctrl-C, `close()` or an executor error while the driver waited)
is committed with an `execution_result` saying so. The session writes Round.extra's `usage` (summed
over its posts; time to first token stays on each post), `timing`, `failure_reason`,
`autosave_failed` (the one note, with the reason, when autosaving the Round failed: the Round itself
goes on), and `ledger` (each LLM call and code run with its start, duration, tokens and cost:
twnb/memory/ledger.py); twnb.memory.extras lists every key.

Observers of every Round: a `LedgerRecorder` (builds the ledger), what `tracing` returns for the Round
(an OpenTelemetry observer when tracing is on, else nothing), then the caller's observer. The chat
client reports its calls through `llm_events`, connected to those observers while a Round runs.
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Generator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twnb.base import create_id, get_logger, now_iso
from twnb.config import Confinement
from twnb.kernel import ExecutionResult, Executor
from twnb.llm import collect_reply
from twnb.memory import (
    AUTOSAVE_FAILED,
    CodeRunEnded,
    CodeRunStarted,
    Conversation,
    Memory,
    NullObserver,
    Observer,
    ObserverGroup,
    Plan,
    PluginCalled,
    PluginEntry,
    Post,
    PostCommitted,
    Round,
    RoundEnded,
    RoundFailed,
    RoundStarted,
    StatusChanged,
    UndoneRecord,
    add_usage,
    derive_plan,
    moves_the_plan,
    parse_steps,
)
from twnb.roles import CodeInterpreter, Planner, ReplyCutShort, RoleFailure, without_kernel_state
from twnb.session.artifact_names import artifact_stem
from twnb.session.autosave import save_plugins, save_round
from twnb.session.code_request import (
    CodeDecision,
    CodeRequest,
    NeedsApproval,
    PlanDecision,
    PlanRequest,
    RanAsItWas,
    StepDecision,
    UserStopped,
    keep_refused_edit,
)
from twnb.session.conversation_store import load_conversation_and_session, save_conversation_file
from twnb.session.experience import SUMMARY_PROMPT, Experience, round_transcript
from twnb.session.ledger_recorder import LedgerRecorder
from twnb.session.plan_edit import apply_plan_edit, user_plan_message
from twnb.session.plan_notebook import PlanNotebook
from twnb.session.project_rules import RulesInForce, recorded_files, written_by_rounds
from twnb.session.round_failure import (
    CANCELLED,
    INTERRUPTED,
    STOPPED,
    RoundLimitReached,
    failure_reason,
    no_result,
)
from twnb.session.round_run import RoundRun
from twnb.session.round_undo import KEPT_ROUNDS, UndoOutcome, find_round, undo_piece, undo_round
from twnb.session.session_parts import RoundLimits, SessionParts, TracingHook
from twnb.session.settings_watch import SettingsWatch

if TYPE_CHECKING:
    from twnb.config import Redactor
    from twnb.plugins import PluginCatalog

logger = get_logger(__name__)

__all__ = ["CANCELLED", "INTERRUPTED", "STOPPED", "RoundLimitReached", "Session"]  # the sentences: tests


class Session:
    """One conversation and the Round driver (the module's docstring says how a Round goes). A running
    Round's own state is its `RoundRun` (round_run.py); the session keeps the conversation, the plans,
    the settings a Round reads (`max_posts`, `timeout`, `autosave`: watched, put back when generated
    code changes them) and its collaborators (session_parts.py).

    Why it is longer than 500 lines: the Round driver is one generator whose steps (commit, keep, autosave,
    redact, end the plan) must see the same conversation, redactor and autosave folder as the operations
    on the conversation between Rounds (save, load, undo, reset); split apart, each half would take the
    other's state back as parameters. What is not shared lives beside it: a Round's own state
    (round_run.py), how a Round fails (round_failure.py), the decisions (code_request.py)."""

    def __init__(
        self,
        *,
        planner: Planner,
        code_interpreter: CodeInterpreter,
        executor: Executor,
        session_dir: Path,
        memory: Memory | None = None,
        redactor: Redactor | None = None,
        limits: RoundLimits | None = None,
        parts: SessionParts | None = None,
    ) -> None:
        limits = limits if limits is not None else RoundLimits()
        parts = parts if parts is not None else SessionParts()
        self.planner = planner
        self.code_interpreter = code_interpreter
        self.executor = executor
        self.session_dir = Path(session_dir)
        self.memory = memory if memory is not None else Memory(session_id=create_id())
        self.session_id: str = self.memory.session_id
        self.redactor = redactor
        self.max_posts = limits.max_posts
        self.timeout = limits.timeout
        self.autosave = limits.autosave
        self.recording = parts.recording
        self.context = parts.context
        self.undo_log = parts.undo_log  # the live kernel's runs, for `undo` (None: code runs elsewhere)
        self.risk = parts.risk
        self.rules_in_force = RulesInForce()  # what the latest Round's prompts carried
        # What the next Round's @-mentions point at (mentions.py; the magic sets it): taken by the Round.
        self.next_mentions: list[dict[str, str]] = []
        self.next_context_notes: list[str] = []  # and what to say of them (a replay's, recorded_context.py)
        # twnb's settings within the code's reach, put back after a run that changed them
        # (settings_watch.py); the notebook adds its traitlets. `pending_notes`: what the notebook has to
        # say at the next Round about the files it loaded (config/file_trust.py).
        self.settings_watch = SettingsWatch()
        self.settings_watch.watch(self, "timeout", "the time limit per execution")
        self.settings_watch.watch(self, "max_posts", "max_posts")
        self.settings_watch.watch(code_interpreter, "verification", "code verification")
        self.settings_watch.watch(code_interpreter, "max_retries", "max_retries")
        for holder in _executors(executor):
            for attribute in ("guarded", "default_timeout", "allow_active_output", "protected"):
                if attribute in getattr(holder, "__dict__", {}):  # its own, not one it passes on
                    self.settings_watch.watch(holder, attribute, attribute)
        self.pending_notes: list[str] = []
        self._run: RoundRun | None = None  # the latest Round's own state, while it runs and until the next
        # (the conversation, the entries) its plugins section was last made from: made again only when
        # either changed (a reset or a load brings another conversation)
        self._plugin_entries: tuple[int, list[int]] = (0, [])
        self.plans = PlanNotebook()  # the Round's plan lives there, and whoever follows it subscribes there
        planner.plan_hint = lambda: self.plans.hint(self.plans.carried)

    @property
    def cassette_path(self) -> Path | None:
        """Where the LLM calls are recorded (None: they are not)."""
        return self.recording.cassette_path

    @property
    def tracing(self) -> TracingHook | None:
        """The hook giving each Round its tracing observer (None: no tracing)."""
        return self.recording.tracing

    @property
    def plugins(self) -> PluginCatalog | None:
        """The notebook's plugins (owned by whoever built them: never closed here)."""
        return self.context.plugins

    # -- where things go ---------------------------------------------------------------------------

    @property
    def autosave_dir(self) -> Path:
        """Where this session's Rounds are autosaved, one file each (the newest file is the latest)."""
        return self.session_dir / self.session_id / "rounds"

    def _redact(self, data: Any) -> Any:
        return self.redactor.redact_data(data) if self.redactor is not None else data

    def _redact_text(self, text: str) -> str:
        return self.redactor.redact(text) if self.redactor is not None else text

    # -- the Round driver ----------------------------------------------------------------------------

    def round_driver(
        self,
        query: str,
        observer: Observer | None = None,
        *,
        approve_plan: bool = False,
        plugin_only: bool = False,
        grade_risk: bool = False,
        waits_for_user: bool = False,
    ) -> Generator[CodeRequest | PlanRequest, CodeDecision | PlanDecision, Round]:
        """Run one Round for `query`; yields code to run, expects its ExecutionResult back (or, from a
        step-mode driver, `ApprovedRun`, `Skipped` or `EditedRun`). With `approve_plan` it also yields
        the Planner's first plan as a `PlanRequest` and expects None (approved) or the user's list of
        steps. With `plugin_only` generated code may only call plugins (roles/plugin_only.py). With
        `grade_risk` (risky step mode) each `CodeRequest` carries the reasons it should wait for the
        user (`risks`), and the post records them with what the runtime guard saw that they did not
        predict (`extra["risk"]`). With `waits_for_user` (step mode: a person decides each piece of code)
        the ledger draws the time between yielding code and its run, and after the run until the
        decision comes back, as waiting for the user, not as the code's time."""
        rewound = self._replay_again_if_used_up()
        current = self.memory.create_round(self._redact_text(query))
        self._record_user_cells(current)
        self._use_rules(current)
        if self.next_mentions:
            current.extra["mentions"] = self._redact(self.next_mentions)
        if self.next_context_notes:
            current.extra["context_notes"] = [self._redact_text(note) for note in self.next_context_notes]
        self.next_mentions, self.next_context_notes = [], []
        self._use_experience(current)
        index = len(self.memory.conversation.rounds) - 1
        self.plans.start_round()
        started = time.perf_counter()
        ledger = LedgerRecorder(self.recording.prices)
        tracer = self._round_tracer(current)
        tracers = [tracer] if tracer is not None else []
        watcher = ObserverGroup([ledger, *tracers, observer or NullObserver()])
        llm_events = self.recording.llm_events
        if llm_events is not None:
            llm_events.connect(watcher)
        current.extra["timing"] = {"started_at": now_iso()}
        watcher.on_event(RoundStarted(current.id, current.user_query))
        failure: str | None = None
        failure_type: str | None = None
        run = RoundRun(current, index, watcher, self._redact_text, self.risk, grade_risk, waits_for_user)
        self._run = run
        try:
            self._start_plugins(current, plugin_only, watcher)
            _record_confinement(current)
            notes, self.pending_notes = self.pending_notes, []
            self.settings_watch.start()
            run.trust_notes(notes, watcher)
            post = Post.create(current.user_query, "User", self.planner.alias)
            self._commit(current, index, post, watcher)
            internal = 0
            plan_asked = not approve_plan
            while post.send_to != "User":
                if internal >= self.max_posts:
                    raise RoundLimitReached(
                        f"The Round used its {self.max_posts} internal posts (max_posts) without an answer "
                        "for the User; raise session.max_posts or split the request."
                    )
                post, result = yield from self._next_post(run, post.send_to)
                if not plan_asked and _asks_for_approval(post, self.planner.alias):
                    plan_asked = True
                    post = yield from self._approve_plan(current, index, post, watcher)
                internal += 1
                self._commit(current, index, post, watcher)
                if result is not None and result.status == "interrupted":
                    raise KeyboardInterrupt
            if _first(post, "stop") == "TaskFailure":
                # The Planner gave the task up: the Round failed, its unfinished steps abandoned.
                raise RoleFailure(
                    f"The Planner stopped with TaskFailure: {post.message.strip() or 'no reason given'}"
                )
            current.change_round_state("finished")
        except BaseException as raised:
            # A reply cut short comes with what arrived of it; the Round ends on the error inside.
            error = raised.error if isinstance(raised, ReplyCutShort) else raised
            unfinished = raised.post if isinstance(raised, ReplyCutShort) else None
            failure = failure_reason(error, self._redact_text)
            failure_type = type(error).__name__
            self._keep(current, index, unfinished or (run.waiting[-1] if run.waiting else None), watcher)
            if not isinstance(error, Exception | KeyboardInterrupt | GeneratorExit):
                # SystemExit and the like: the Round is failed and saved, the exit goes on
                if error is raised:
                    raise
                raise error from None
        finally:
            if failure is not None:
                current.change_round_state("failed")
                current.extra["failure_reason"] = failure
            self._end_plan(current)  # before the Round's last events: done or abandoned
            replayed = self.recording.replay_record(rewound, self._redact_text)
            if replayed is not None:
                current.extra["replay"] = replayed
            offered = self.plugins.offer_record(current.id) if self.plugins is not None else None
            if offered is not None:
                current.extra["plugins"] = offered
            if failure is not None:
                watcher.on_event(RoundFailed(current.id, failure, failure_type))
            timing = current.extra["timing"]
            timing["ended_at"] = now_iso()
            timing["duration_s"] = round(time.perf_counter() - started, 3)
            current.extra["ledger"] = ledger.ledger(timing["duration_s"]).to_dict()
            self._bound_undo()
            self._autosave(current, index, watcher)
            watcher.on_event(RoundEnded(current.id, current.state, failure))
            if llm_events is not None:
                llm_events.connect(None)
        return current

    def _start_plugins(self, round: Round, plugin_only: bool, watcher: Observer) -> None:
        """The Round's plugins: loaded the first time (the folders, the MCP servers), the notebook's
        functions looked at again; what could not be loaded is said once, in the Round
        (`plugin_problems`) and as a status; the conversation's `plugins:` section lists what the
        session has. The roles hear whether the Round is plugin-only."""
        self.planner.start_round(plugin_only=plugin_only)
        self.code_interpreter.start_round(plugin_only=plugin_only)
        if plugin_only:
            round.extra["plugin_only"] = True
        if self.plugins is None:
            return
        try:
            problems = self.plugins.refresh()
        except Exception as error:  # a broken plugin source must not stop the Round
            logger.exception("loading plugins failed")
            problems = [f"plugins: loading failed ({type(error).__name__}: {error})"]
        entries = self.plugins.conversation_entries()
        conversation = self.memory.conversation
        made_from = (id(conversation), [id(e) for e in entries])
        # A loaded conversation's list stays while this session has no plugins.
        if made_from != self._plugin_entries and (entries or self._plugin_entries[0] == id(conversation)):
            redacted = [self._redact(entry.to_dict()) for entry in entries]  # once per change
            conversation.plugins = [PluginEntry.from_yaml_content(entry) for entry in redacted]
            self._autosave_plugins(round, watcher)
        self._plugin_entries = made_from
        if problems:
            said = [self._redact_text(f"Plugin {problem}") for problem in problems]
            round.extra["plugin_problems"] = said
            for line in said:
                watcher.on_event(StatusChanged(line))

    def _replay_again_if_used_up(self) -> bool:
        """A replay whose cassette served every reply (Run All again in the same kernel) starts over:
        the cassette rewinds and the Round begins a new conversation, as the recording did (its
        prompts then match the recording's). The finished conversation stays in its autosave."""
        if self.recording.replay is None or not self.recording.replay.used_up:
            return False
        self.reset()
        return True

    def _use_rules(self, round: Round) -> None:
        """The user's rules as they are now, in both roles' system prompts and in the Round's record;
        files the conversation's code wrote are left out (and named in the record). A replayed Round
        uses those its recording used, none if it used none (recorded_context.py)."""
        in_force = self._recorded_rules(round)
        if in_force is None:
            rules = self.context.rules
            if rules is None:
                return
            in_force = rules.read(written_by_rounds(self.memory.conversation, self.executor.workdir))
        self.rules_in_force = in_force
        section = in_force.section
        self.planner.prompt.rules_section = section
        self.code_interpreter.prompt.rules_section = section
        if in_force.files or in_force.written_by_code:
            round.extra["rules"] = in_force.record()

    def _recorded_rules(self, round: Round) -> RulesInForce | None:
        """In a replay, the rules the recorded Round's prompts carried; None when not known (not a
        replay, no such Round, or a record that kept no rule texts): then the files are read."""
        recorded = self._recorded_round(round)
        if recorded is None:
            return None
        data = recorded.extra.get("rules")
        return RulesInForce.from_record(data) if isinstance(data, dict) else RulesInForce()

    def _use_experience(self, round: Round) -> None:
        """The experiences relevant to the request, for both roles' prompts and the Round's record; a
        replayed Round uses those its recording used, none if it used none (recorded_context.py)."""
        recorded = self._recorded_round(round)
        if recorded is not None:
            used = recorded.extra.get("experiences")
            if used:
                round.extra["experiences"] = copy.deepcopy(used)
            return
        experience = self.context.experience
        if experience is None:
            return
        found = experience.retrieve(round.user_query)
        note = experience.take_note()
        if note:
            round.extra.setdefault("context_notes", []).append(note)
        if found:
            ranked_by = experience.ranked_by
            round.extra["experiences"] = [
                {"exp_id": e.exp_id, "score": score, "text": e.experience_text, "ranked_by": ranked_by}
                for e, score in found
            ]

    def recorded_round_for(self, query: str) -> Round | None:
        """In a replay, the recorded Round a Round asked `query` now would replay, if known (the magic
        describes the request's mentions from it, before the Round starts)."""
        replay = self.recording.replay
        if self.context.recorded is None:
            return None
        index = 0 if replay is not None and replay.used_up else len(self.memory.conversation.rounds)
        return self.context.recorded.round_at(index, self._redact_text(query.strip()))

    def _recorded_round(self, round: Round) -> Round | None:
        """In a replay, the recorded Round this one replays (same place, same request), if known."""
        if self.context.recorded is None:
            return None
        return self.context.recorded.round_at(len(self.memory.conversation.rounds) - 1, round.user_query)

    def remember(self, ref: str | None = None) -> Experience:
        """`%taskweaver remember [ROUND]`: the Round (default: the last) saved as `raw_exp_<id>.yaml`
        and summarised by the LLM into `exp_<id>.yaml`. Raises ValueError with what to do."""
        experience = self.context.experience
        if experience is None:
            raise ValueError("No experience folder is set (experience_dir).")
        round = find_round(self.memory.conversation, ref or "last")
        if round is None:
            raise ValueError(f"No Round {ref or 'yet'} to remember: see %taskweaver history.")
        exp_id = create_id()
        kept = Conversation.init()
        kept.add_round(round)
        raw = experience.save_raw(self._redact(kept.to_dict()), exp_id)
        transcript = self._redact_text(round_transcript(round))
        turn = self.planner.turn
        messages = [
            {"role": "system", "content": SUMMARY_PROMPT},
            {"role": "user", "content": transcript},
        ]
        reply = collect_reply(turn.client.stream(messages, model=turn.model, role="Experience"))
        return experience.save_summary(exp_id, reply.text, raw)

    def _record_user_cells(self, round: Round) -> None:
        """The user's own cells since the previous Round go into this one's record (redacted), so a
        replay can run them before the Round's code."""
        if self.context.user_cells is None:
            return
        taken = self.context.user_cells.take()
        if taken.cells:
            round.extra["user_cells"] = self._redact([cell.to_dict() for cell in taken.cells])
        if taken.omitted:
            round.extra["user_cells_omitted"] = taken.omitted

    def _autosave_plugins(self, round: Round, watcher: Observer) -> None:
        """The conversation's plugins section beside the autosaved Rounds (written when it changes)."""
        if not self.autosave:
            return
        try:
            save_plugins(self.autosave_dir, self.memory.conversation)
        except OSError as error:  # the Round's own autosave says what the disk refuses; the Round goes on
            logger.warning("could not autosave the plugins section: %s", error)

    def _round_tracer(self, round: Round) -> Observer | None:
        return self.recording.round_tracer(self, round)

    def _keep(self, round: Round, index: int, post: Post | None, watcher: Observer) -> None:
        """Commit the post a failure interrupted (kept, marked), unless it is already in the Round."""
        if post is None or any(p.id == post.id for p in round.post_list):
            return
        try:
            self._commit(round, index, post, watcher)
        except Exception:  # keeping it is a courtesy: never let it hide the real failure
            logger.exception("could not keep the unfinished post %s", post.id)

    def _next_post(
        self, run: RoundRun, recipient: str
    ) -> Generator[CodeRequest, CodeDecision, tuple[Post, ExecutionResult | None]]:
        """The next post, for `recipient`, and the result of the code it ran (None if none ran)."""
        if recipient == self.planner.alias:
            post = self._redacted_post(self.planner.reply(self.memory, observer=run.watcher))
            if moves_the_plan(post):  # derived from what is recorded: a secret it echoes is not kept
                self.plans.update(derive_plan(self.plans.current, post, user_query=run.round.user_query))
            return post, None
        if recipient == self.code_interpreter.alias:
            post = self.code_interpreter.generate(self.memory, run.watcher)
            code = self.code_interpreter.code_to_run(post)
            if code is None:
                return post, None
            result = yield from self._run_code(run, post, code)
            return post, result
        raise RoleFailure(
            f"A post was addressed to {recipient!r}, which is not a role of this session "
            f"({self.planner.alias}, {self.code_interpreter.alias} or User)."
        )

    def _run_code(
        self, run: RoundRun, post: Post, code: str
    ) -> Generator[CodeRequest, CodeDecision, ExecutionResult | None]:
        """Yield the post's code to run and record what came back: the result (None: it did not run)."""
        watcher = run.watcher
        watcher.on_event(StatusChanged(f"{self.code_interpreter.alias}: running code"))
        # Until the result is recorded, the post is `waiting`: whatever ends the Round here finds it.
        run.waiting.append(post)
        watcher.on_event(CodeRunStarted(post.id, code))
        asked = time.perf_counter()  # again just before the yield: grading is not waiting
        try:
            verdict = _first(post, "verification")
            request = CodeRequest(post.id, code, self.timeout, self._artifact_name(run.round), verdict)
            findings = run.grade(request)
            run.paused_for(post, findings)
            asked = time.perf_counter()
            received = yield request
            answered = time.perf_counter()
        except BaseException as error:  # Ctrl-C, close() or an executor failure: no result
            before, after = run.waits(post.id, asked, time.perf_counter())
            error_type = type(error).__name__
            ended = CodeRunEnded(post.id, "no_result", error_type=error_type, waited_s=before)
            watcher.on_event(replace(ended, waited_after_s=after))
            self.code_interpreter.record_no_result(post, no_result(error), watcher)
            if isinstance(error, UserStopped):
                keep_refused_edit(self.code_interpreter, post, error.refused_edit)
            raise
        decision = _decision_of(received)
        ran = decision.record(post, self.code_interpreter, watcher)
        if ran is None:  # step mode: the user chose not to run it
            before, after = run.waits(post.id, asked, answered)
            watcher.on_event(CodeRunEnded(post.id, "skipped", waited_s=before, waited_after_s=after))
        else:
            if decision.ran_users_edit:
                findings = run.edit_grades.pop(post.id, findings)
            self.code_interpreter.record_execution(post, ran, watcher)
            decision.after_run(post, self.executor.workdir)
            _record_undo_limits(run.round, ran)
            run.record_risk(post, findings, ran)
            for call in post.extra.get("plugin_calls", ()):
                watcher.on_event(PluginCalled.of(post.id, call))
            before, after = run.waits(post.id, asked, answered)
            watcher.on_event(replace(_run_ended(post, ran), waited_s=before, waited_after_s=after))
        run.waiting.remove(post)  # only now: a result that cannot be recorded keeps the post
        return ran

    def _approve_plan(
        self, round: Round, index: int, post: Post, watcher: Observer
    ) -> Generator[PlanRequest, PlanDecision, Post]:
        """Pause on the Planner's first plan. A plan approved as it was is marked `extra["approved_by"]`
        and goes on unchanged. An edited plan is recorded in the Planner's post (its own plan kept in
        `extra["edited_from"]`), which then goes to the User, and the User's post hands the edited plan
        back: the Planner continues from there with the plan the user made."""
        steps = [step.text for step in parse_steps(_first(post, "init_plan"))]
        try:
            edited = yield PlanRequest(post.id, steps)
        except BaseException:  # Stop, or Ctrl-C: the plan the Round stopped at is kept
            self._keep(round, index, post, watcher)
            raise
        if edited is None or [s.strip() for s in edited if s.strip()] == steps:
            post.extra["approved_by"] = "User"  # the record only: the Planner's prompt does not change
            return post
        apply_plan_edit(post, edited)
        post = self._redacted_post(post)
        self.plans.update(derive_plan(None, post, user_query=round.user_query))
        self._commit(round, index, post, watcher)
        return Post.create(user_plan_message(edited), "User", self.planner.alias)

    def _end_plan(self, round: Round) -> None:
        """The Round's plan ends with it (done, or abandoned with its unfinished steps) into the plan
        notebook's history and `round.extra["plan"]`."""
        try:
            self.plans.round_ended(round)
        except Exception:  # bookkeeping must never hide how the Round ended
            logger.exception("could not record the plan of Round %s", round.id)

    def _artifact_name(self, round: Round) -> str:
        number = next(
            (i for i, r in enumerate(self.memory.conversation.rounds, start=1) if r is round),
            len(self.memory.conversation.rounds),
        )
        return artifact_stem(number, round.user_query)

    def _redacted_post(self, post: Post) -> Post:
        """`post` with every field through the redactor: the one place posts are redacted, before
        they are committed or anything is derived from them (the plan's steps and outcomes)."""
        if self.redactor is None:
            return post
        return Post.from_dict(self.redactor.redact_data(post.to_dict()), keep_ids=True)

    def _redact_round_extra(self, round: Round) -> None:
        """Every field of `round.extra` (the plan, notes, reasons, what roles and plugins added) through
        the redactor, in place, before the Round is saved or shown as ended."""
        if self.redactor is None:
            return
        round.extra = self._redact(dict(round.extra))  # a copy, every string in it redacted

    def _commit(self, round: Round, index: int, post: Post, watcher: Observer) -> None:
        post = self._redacted_post(post)
        round.add_post(post)
        usage = post.extra.get("usage")
        if usage:
            round.extra["usage"] = add_usage(round.extra.get("usage", {}).copy(), usage)
        self._autosave(round, index, watcher)  # before the event: a watcher may read the file
        watcher.on_event(PostCommitted(post))

    def _autosave(self, round: Round, index: int, watcher: Observer | None = None) -> None:
        """Write `round`'s autosave file; it carries the conversation's own top-level keys too (the
        plan waiting for the next Round), as `save` writes them; the last Round's file's are what loads."""
        self._redact_round_extra(round)
        self.plans.save_into(self.memory.conversation)  # also for a session built later around it
        if not self.autosave:
            return
        try:
            save_round(
                self.autosave_dir,
                round,
                conversation=self.memory.conversation,
                session_id=self.session_id,
                index=index,
            )
        except OSError as error:  # a full disk must not lose the Round in memory, nor stop it
            if AUTOSAVE_FAILED in round.extra:
                return  # said once per Round: the next post's save fails the same way
            note = self._redact_text(
                f"Autosave to {self.autosave_dir} failed ({error.strerror or error}); the Round goes on "
                "and is kept in memory: save it elsewhere with %taskweaver save PATH."
            )
            round.extra[AUTOSAVE_FAILED] = note
            logger.warning("could not autosave Round %s: %s", round.id, error)
            if watcher is not None:
                watcher.on_event(StatusChanged(note))

    # -- the plain driver ------------------------------------------------------------------------------

    def run_round(
        self,
        query: str,
        observer: Observer | None = None,
        *,
        plugin_only: bool = False,
        grade_risk: bool = False,
    ) -> Round:
        """One Round, its code run on the executor. Never raises for an expected failure: check
        `round.state` and `round.extra["failure_reason"]`. `plugin_only`: generated code may only call
        plugins. `grade_risk`: risky step mode with no one to approve (a batch run): code graded safe
        runs, and the first piece that would wait for the user is not run and ends the Round failed
        (`NeedsApproval`)."""
        driver = self.round_driver(query, observer, plugin_only=plugin_only, grade_risk=grade_risk)
        to_send: ExecutionResult | None = None
        to_throw: BaseException | None = None
        while True:
            try:
                if to_throw is not None:
                    request = driver.throw(to_throw)
                elif to_send is not None:
                    request = driver.send(to_send)
                else:
                    request = next(driver)
            except StopIteration as stop:
                round: Round = stop.value
                return round
            to_send, to_throw = None, None
            assert isinstance(request, CodeRequest)  # this driver never asks for plan approval
            if request.risks:
                to_throw = NeedsApproval(request.risks)
                continue
            try:
                to_send = self.execute(request)
            except BaseException as error:  # Ctrl-C outside the code, an executor that broke
                to_throw = error

    def check_edit(self, code: str) -> str | None:
        """Verification's refusal of the user's edit of a request's code, or None when it may run (it
        passed, or verification is off). Step mode asks before it runs an edit: code the user changed
        is checked as the model's code was."""
        return self.code_interpreter.check_edit(code)

    def execute(self, request: CodeRequest, code: str | None = None) -> ExecutionResult:
        """Run the request's code (or `code`, the user's edit of it) on the executor."""
        run = self._run
        if code is not None and run is not None:
            run.grade_edit(request.post_id, code)
        started = time.perf_counter()
        try:
            return self.executor.run(
                request.code if code is None else code,
                timeout=request.timeout,
                execution_id=request.post_id,
                artifact_name=request.artifact_name,
                own_artifacts=self._own_artifacts(),
            )
        finally:
            if run is not None:
                run.ran(request.post_id, started)
                run.trust_notes(self.settings_watch.check())

    def _own_artifacts(self) -> list[str] | None:
        """A replay's files so far (None when not replaying): the executor replaces a file of the same
        name that an earlier run left, so the replay names its files as its recording did and its
        prompts do not drift (a live session never replaces a file it did not write)."""
        if self.recording.replay is None:
            return None
        return [str(path) for path in recorded_files(self.memory.conversation)]

    # -- the conversation ------------------------------------------------------------------------------

    def recover_plan(self, number: int) -> Plan:
        """Make earlier plan `number` current again (see PlanNotebook.recover), and autosave it with the
        last Round, so a kernel that dies before the next Round still has it."""
        plan = self.plans.recover(number)
        rounds = self.memory.conversation.rounds
        if rounds:
            self._autosave(rounds[-1], len(rounds) - 1)
        return plan

    def note_held_back_cells(self, round: Round, note: str) -> None:
        """Why the cells queued below the Round did not run (`Round.extra["held_back_cells"]`, known
        only after the Round ended and was autosaved), written into the Round's autosave too, so a
        reload says it as the notebook did."""
        round.extra = {**(round.extra or {}), "held_back_cells": self._redact_text(note)}
        rounds = self.memory.conversation.rounds
        if any(r is round for r in rounds):
            self._autosave(round, next(i for i, r in enumerate(rounds) if r is round))

    def save(self, path: str | os.PathLike[str]) -> Path:
        """The whole conversation as TaskWeaver YAML (see conversation_store); its posts were redacted
        when committed. The cassette, when recording, is copied beside it (`x.cassette.yaml`)."""
        self.plans.save_into(self.memory.conversation)
        return save_conversation_file(self.memory.conversation, path, cassette=self.cassette_path)

    def load(self, path: str | os.PathLike[str]) -> Conversation:
        """Replace the conversation with a saved one, ids kept: a conversation YAML, an autosave folder
        or any autosaved Round file (see conversation_store). A file that fails changes nothing."""
        conversation, session_id = load_conversation_and_session(path)
        return self.replace_conversation(conversation, session_id=session_id)

    def replace_conversation(
        self, conversation: Conversation, *, session_id: str | None = None
    ) -> Conversation:
        """Carry on `conversation` (read already, from a file or a notebook), ids kept, redacted once
        here as committed posts are, under `session_id` (the session the file names, so an autosaved
        conversation goes on in its own folder; None: a new one). Never under the replaced
        conversation's session: its autosave folder stays its own, and loads back as it was."""
        conversation = self._redacted_conversation(conversation)
        if self.undo_log is not None:
            self.undo_log.clear()  # its runs were another conversation's
        self.memory = Memory(session_id=session_id or create_id())
        self.memory.conversation = conversation
        self.session_id = self.memory.session_id
        self.plans.load_from(conversation)
        for index, round in enumerate(conversation.rounds):  # so this session's autosave is complete
            self._autosave(round, index)
        return conversation

    def adopt(self, memory: Memory) -> None:
        """Carry on `memory`'s conversation (made before this session existed, say loaded from a file):
        it is redacted once here, as committed posts are."""
        memory.conversation = self._redacted_conversation(memory.conversation)
        self.memory = memory
        self.session_id = memory.session_id
        self.plans.load_from(memory.conversation)

    def _redacted_conversation(self, conversation: Conversation) -> Conversation:
        if self.redactor is None:
            return conversation
        rounds = [Round.from_dict(self._redact(r.to_dict()), keep_ids=True) for r in conversation.rounds]
        conversation.rounds = rounds
        return conversation

    # -- undo ----------------------------------------------------------------------------------------

    def undo(self, ref: str | None = None, *, force: bool = False) -> UndoOutcome:
        """Put the kernel back as it was before Round `ref` (its id, number or `last`; None: the last
        Round not undone yet), for what the Round did: see round_undo.py. Refused in the outcome's line
        when something changed the same names since, unless `force`. The Round stays, marked undone."""
        if self.undo_log is None:
            return UndoOutcome(
                False, "Undo needs code run on the notebook's own kernel; this session runs it elsewhere."
            )
        outcome = undo_round(
            self.memory.conversation, self.undo_log, ref, force=force, workdir=self.executor.workdir
        )
        if outcome.done and outcome.round is not None:
            self.memory.forget_views()  # the model is told from the next call on
            rounds = self.memory.conversation.rounds
            self._autosave(outcome.round, rounds.index(outcome.round))
        return outcome

    def undo_piece(self, post_id: str) -> UndoneRecord | None:
        """Step mode's Undo of the piece of code that just ran (its post `post_id`, in the Round now
        running), before the Round goes on: what was undone (its `line`, the `files_moved`, which the
        `UndoneRun` sent back carries so the post links them where undo put them), None when it
        cannot be."""
        rounds = self.memory.conversation.rounds
        if self.undo_log is None or not rounds:
            return None
        return undo_piece(self.undo_log, post_id, rounds[-1], self.executor.workdir)

    def _bound_undo(self) -> None:
        """Only the last KEPT_ROUNDS Rounds keep their snapshots (round_undo.py)."""
        if self.undo_log is None:
            return
        recent = self.memory.conversation.rounds[-KEPT_ROUNDS:]
        self.undo_log.keep_only({post.id for round in recent if not round.undone for post in round.post_list})

    def reset(self) -> None:
        """A new, empty conversation under a new session id (a replay starts its cassette over)."""
        if self.undo_log is not None:
            self.undo_log.clear()
        self.memory = Memory(session_id=create_id())
        self.session_id = self.memory.session_id
        self.plans.reset()
        if self.recording.replay is not None:
            # The kernel keeps the variables the finished conversation made, which the recording's
            # fresh kernel did not have: what the prompts say of them is no drift (the rest still is).
            self.recording.replay.rewind(without_kernel_state)


def _decision_of(received: CodeDecision) -> StepDecision:
    """What came back for a CodeRequest, as a decision that records itself (a plain result: as it was)."""
    if isinstance(received, StepDecision):
        return received
    if isinstance(received, ExecutionResult):
        return RanAsItWas(received)
    raise TypeError(
        f"The Round driver was sent {type(received).__name__} for a CodeRequest: send the ExecutionResult "
        "of the code, or a step decision (ApprovedRun, EditedRun, UndoneRun, Skipped)."
    )


def _run_ended(post: Post, result: ExecutionResult) -> CodeRunEnded:
    """What the executor's result says about the run (the post holds the text the model sees)."""
    text = next((str(a.content) for a in post.attachment_list if a.type.value == "execution_result"), "")
    return CodeRunEnded(
        post.id,
        result.status,
        duration_s=result.duration_s,
        error_type=result.error.ename if result.error is not None else None,
        artifacts=tuple(str(path) for path in result.artifacts),
        result_text=text,
    )


def _record_undo_limits(round: Round, result: ExecutionResult) -> None:
    """What the run may have changed in place, and what of it cannot be undone, in the Round's record."""
    if result.in_place:
        names = round.extra.get("changed_in_place", [])
        round.extra["changed_in_place"] = list(dict.fromkeys([*names, *result.in_place]))
    if result.undo_limits:
        lines = round.extra.get("undo_limits", [])
        round.extra["undo_limits"] = list(dict.fromkeys([*lines, *result.undo_limits]))


def _first(post: Post, kind: str) -> str:
    return next((str(a.content) for a in post.attachment_list if a.type.value == kind), "")


def _asks_for_approval(post: Post, planner: str) -> bool:
    """The Planner's post hands a plan to a worker: the moment step mode pauses on the plan."""
    to_worker = post.send_from == planner and post.send_to not in (planner, "User")
    return to_worker and bool(_first(post, "init_plan"))


def _record_confinement(round: Round) -> None:
    """Whether the kernel this Round's code runs in was confined, and with which rules (the launcher's
    marker, twnb/config/confinement.py): the record says what the operating system kept the code from."""
    confinement = Confinement.from_environ()
    if confinement is not None:  # absent: an ordinary kernel (no key in every other Round's record)
        round.extra["confinement"] = confinement.to_dict()


def _executors(executor: Any) -> list[Any]:
    """The executor and those it wraps (a PluginExecutor's `inner`), each holding settings of its own."""
    found: list[Any] = []
    while executor is not None and len(found) < 5 and all(each is not executor for each in found):
        found.append(executor)
        executor = getattr(executor, "__dict__", {}).get("inner")
    return found
