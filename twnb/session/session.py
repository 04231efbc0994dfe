"""A twnb session: the Round driver of one conversation, its limits and cancellation.

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

import os
import time
from collections.abc import Generator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twnb.base import create_id, get_logger, now_iso
from twnb.config import Confinement
from twnb.confine import check_lost_mounts
from twnb.kernel import ExecutionResult, Executor
from twnb.memory import (
    CodeRunEnded,
    CodeRunStarted,
    Conversation,
    Memory,
    NullObserver,
    Observer,
    ObserverGroup,
    Plan,
    PluginCalled,
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
from twnb.session.conversation_store import load_conversation_and_session
from twnb.session.experience import Experience
from twnb.session.ledger_recorder import LedgerRecorder
from twnb.session.plan_edit import apply_plan_edit, user_plan_message
from twnb.session.plan_notebook import PlanNotebook
from twnb.session.project_rules import recorded_files
from twnb.session.redaction import Redaction
from twnb.session.round_failure import (
    CANCELLED,
    INTERRUPTED,
    STOPPED,
    RoundLimitReached,
    failure_reason,
    no_result,
)
from twnb.session.round_run import RoundRun
from twnb.session.round_setup import RoundSetup
from twnb.session.round_undo import UndoOutcome
from twnb.session.session_archive import SessionArchive
from twnb.session.session_parts import RoundLimits, SessionParts, TracingHook
from twnb.session.session_undo import SessionUndo
from twnb.session.settings_watch import SettingsWatch

if TYPE_CHECKING:
    from twnb.config import Redactor
    from twnb.kernel import UndoLog
    from twnb.plugins import PluginCatalog

logger = get_logger(__name__)

__all__ = ["CANCELLED", "INTERRUPTED", "STOPPED", "RoundLimitReached", "Session"]  # the sentences: tests


class Session:
    """The Round driver (the module's docstring says how a Round goes). A running Round's own state is
    its `RoundRun` (round_run.py); the conversation, its autosave and the operations on it between
    Rounds (save, load, reset) are the `archive` (session_archive.py), undo is `undoing`
    (session_undo.py), what a Round starts with besides the request is `setup` (round_setup.py). The
    session keeps the settings a Round reads (`max_posts`, `timeout`: watched, put back when generated
    code changes them) and its collaborators (session_parts.py)."""

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
        self.redaction = Redaction(redactor)
        self.plans = PlanNotebook()  # the Round's plan lives there, and whoever follows it subscribes there
        memory = memory if memory is not None else Memory(session_id=create_id())
        self.archive = SessionArchive(memory, session_dir, limits.autosave, self.redaction, self.plans)
        self.undoing = SessionUndo(parts.undo_log, self.archive, executor)
        self.setup = RoundSetup(parts.context, planner, code_interpreter, self.archive, executor)
        self.max_posts = limits.max_posts
        self.timeout = limits.timeout
        self.recording = parts.recording
        self.context = parts.context
        self.risk = parts.risk
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

    # -- the conversation, kept by the archive ---------------------------------------------------------

    @property
    def memory(self) -> Memory:
        return self.archive.memory

    @property
    def session_id(self) -> str:
        return self.archive.session_id

    @property
    def redactor(self) -> Redactor | None:
        return self.redaction.redactor

    @property
    def session_dir(self) -> Path:
        return self.archive.session_dir

    @property
    def autosave(self) -> bool:
        """Whether each Round is written to the session's folder as it goes."""
        return self.archive.autosave

    @autosave.setter
    def autosave(self, value: bool) -> None:
        self.archive.autosave = value

    @property
    def autosave_dir(self) -> Path:
        """Where this session's Rounds are autosaved, one file each (the newest file is the latest)."""
        return self.archive.autosave_dir

    @property
    def undo_log(self) -> UndoLog | None:
        """The live kernel's runs, for `undo` (None: code runs elsewhere)."""
        return self.undoing.log

    @undo_log.setter
    def undo_log(self, log: UndoLog | None) -> None:
        self.undoing.log = log

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
        current = self.memory.create_round(self.redaction.text(query))
        self.setup.record_user_cells(current)
        self.setup.use_rules(current)
        if self.next_mentions:
            current.extra["mentions"] = self.redaction.data(self.next_mentions)
        if self.next_context_notes:
            current.extra["context_notes"] = [self.redaction.text(note) for note in self.next_context_notes]
        self.next_mentions, self.next_context_notes = [], []
        self.setup.use_experience(current)
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
        run = RoundRun(current, index, watcher, self.redaction.text, self.risk, grade_risk, waits_for_user)
        self._run = run
        try:
            self.setup.start_plugins(current, plugin_only, watcher)
            notes = [*self.pending_notes, *self.setup.take_trust_lines(), *_record_confinement(current)]
            self.pending_notes = []
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
            failure = failure_reason(error, self.redaction.text)
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
            replayed = self.recording.replay_record(rewound, self.redaction.text)
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
            self.undoing.bound()
            self.archive.autosave_round(current, index, watcher)
            watcher.on_event(RoundEnded(current.id, current.state, failure))
            if llm_events is not None:
                llm_events.connect(None)
        return current

    def _replay_again_if_used_up(self) -> bool:
        """A replay whose cassette served every reply (Run All again in the same kernel) starts over:
        the cassette rewinds and the Round begins a new conversation, as the recording did (its
        prompts then match the recording's). The finished conversation stays in its autosave."""
        if self.recording.replay is None or not self.recording.replay.used_up:
            return False
        self.reset()
        return True

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
            post = self.redaction.post(self.planner.reply(self.memory, observer=run.watcher))
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
        post = self.redaction.post(post)
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

    def _commit(self, round: Round, index: int, post: Post, watcher: Observer) -> None:
        post = self.redaction.post(post)
        round.add_post(post)
        usage = post.extra.get("usage")
        if usage:
            round.extra["usage"] = add_usage(round.extra.get("usage", {}).copy(), usage)
        self.archive.autosave_round(round, index, watcher)  # before the event: a watcher may read the file
        watcher.on_event(PostCommitted(post))

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

    # -- the conversation between Rounds (the archive, undo, the experience folder) -------------------

    def save(self, path: str | os.PathLike[str]) -> Path:
        """The whole conversation as TaskWeaver YAML (see conversation_store); its posts were redacted
        when committed. The cassette, when recording, is copied beside it (`x.cassette.yaml`)."""
        return self.archive.save(path, self.cassette_path)

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
        conversation = self.redaction.conversation(conversation)
        self.undoing.clear()  # its runs were another conversation's
        return self.archive.replace_conversation(conversation, session_id)

    def adopt(self, memory: Memory) -> None:
        """Carry on `memory`'s conversation (made before this session existed, say loaded from a file):
        it is redacted once here, as committed posts are."""
        self.archive.adopt(memory)

    def reset(self) -> None:
        """A new, empty conversation under a new session id (a replay starts its cassette over)."""
        self.undoing.clear()
        self.archive.start_new()
        if self.recording.replay is not None:
            # The kernel keeps the variables the finished conversation made, which the recording's
            # fresh kernel did not have: what the prompts say of them is no drift (the rest still is).
            self.recording.replay.rewind(without_kernel_state)

    def recover_plan(self, number: int) -> Plan:
        """Make earlier plan `number` current again, autosaved with the last Round (SessionArchive)."""
        return self.archive.recover_plan(number)

    def note_held_back_cells(self, round: Round, note: str) -> None:
        """Why the cells queued below the Round did not run, in its record and autosave (SessionArchive)."""
        self.archive.note_held_back_cells(round, note)

    def undo(self, ref: str | None = None, *, force: bool = False) -> UndoOutcome:
        """Put the kernel back as it was before Round `ref` (its id, number or `last`; None: the last
        Round not undone yet), for what the Round did: see round_undo.py. Refused in the outcome's line
        when something changed the same names since, unless `force`. The Round stays, marked undone."""
        return self.undoing.undo_round(ref, force=force)

    def undo_piece(self, post_id: str) -> UndoneRecord | None:
        """Step mode's Undo of the piece of code that just ran (its post `post_id`, in the Round now
        running), before the Round goes on: what was undone (its `line`, the `files_moved`, which the
        `UndoneRun` sent back carries so the post links them where undo put them), None when it
        cannot be."""
        return self.undoing.undo_piece(post_id)

    def recorded_round_for(self, query: str) -> Round | None:
        """In a replay, the recorded Round a Round asked `query` now would replay (RoundSetup's)."""
        replay = self.recording.replay
        return self.setup.recorded_round_for(query, starts_over=replay is not None and replay.used_up)

    def remember(self, ref: str | None = None) -> Experience:
        """`%taskweaver remember [ROUND]`: the Round (default: the last) saved as `raw_exp_<id>.yaml`
        and summarised by the LLM into `exp_<id>.yaml`. Raises ValueError with what to do."""
        return self.setup.remember(ref)


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


def _record_confinement(round: Round) -> list[str]:
    """Whether the kernel this Round's code runs in was confined, and with which rules (the launcher's
    marker, twnb/config/confinement.py): the record says what the operating system kept the code from.
    In the `twnb-confined` kernelspec's kernel, where the Round itself runs, also the protected files
    a save from outside took out of their mount (`lost_mounts`, every Round's record) and, for those
    not said before in this kernel, a line each to say now (confine/lost_mounts.py)."""
    confinement = Confinement.from_environ()
    if confinement is None:  # an ordinary kernel (no key in every other Round's record)
        return []
    round.extra["confinement"] = confinement.to_dict()
    check = check_lost_mounts()
    if check.lost:
        round.extra["confinement"]["lost_mounts"] = list(check.lost)
    return list(check.new_lines)


def _executors(executor: Any) -> list[Any]:
    """The executor and those it wraps (a PluginExecutor's `inner`), each holding settings of its own."""
    found: list[Any] = []
    while executor is not None and len(found) < 5 and all(each is not executor for each in found):
        found.append(executor)
        executor = getattr(executor, "__dict__", {}).get("inner")
    return found
