"""Step mode: the Round pauses in its widget for the user's decisions, as an awaited cell.

`%%taskweaver --step` cells are rewritten into `await run_step_cell(flags, body)` (step_transform.py).
The coroutine drives the session's Round driver, the same generator the plain path drives: the
Planner's first plan waits for Approve (edited or not) or Stop, and each piece of code for Run, Edit,
Skip or Stop; code the user edited is verified as the model's was before it runs, and a refused edit
does not run. Once code the user approved has run, the panel offers Continue or Undo before the Round
goes on: Undo puts the kernel and files back as they were before it (Session.undo_piece) and the model
is told. Only this coroutine touches widgets or runs code; button callbacks post to its loop.

Why it works only here: ipykernel 7.4 handles comm messages (the clicks) while an async cell awaits,
and routes them back to the loop that displayed the widget. Older kernels queue them behind the cell,
so the wait would never end; without a frontend that draws widgets (nbclient, papermill, terminal
IPython) nobody can click. Both are refused with one line before anything runs: the version is
checked, and the widget must report a view (`_view_count`) within a few seconds (then it counts views
no more: see `_stop_counting_views`). Risky mode in a batch run (a kernel whose client names no cell:
`has_widget_frontend`) is not refused: the Round runs as a plain one whose code graded safe runs, and
the first piece that would have asked is not run and ends the Round failed, in one line saying why
and that approving needs a frontend (--strict, or the strict setting, then makes the batch fail).

Approved code runs on the main thread through the session's executor (store_history=False, its
outputs in the cell, the time-limit watchdog's SIGINT handler raising KeyboardInterrupt in the code, so
the Interrupt button stops it). An interrupt while the cell awaits a click cancels the awaiting task;
one during the Round's own work (an LLM reply streaming blocks the kernel's loop, so ipykernel's
cancelling would wait for it) raises KeyboardInterrupt at once, as in a plain cell. Either way the
Round ends interrupted with every post kept.

While the Round waits for a decision, the post sections above the panel fold and the panel is marked
waiting (the `twnb-waiting` class; the JupyterLab extension scrolls it into view). A Round the user
stopped, whose code they skipped, or that was interrupted ends its cell with a one-line error, as the
toolbar's Interrupt ends a plain cell: the kernel then drops the cells queued below (Run All), which
would run on a state the user rejected, and the Round says why (held_back.py).
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import threading
from typing import TYPE_CHECKING, Any, Protocol

from IPython import get_ipython

from twnb.base import get_logger
from twnb.memory import StatusChanged
from twnb.notebook.approval_panel import ApprovalPanel, ran_output
from twnb.notebook.comm_status import idle_after_concurrent_comms
from twnb.notebook.held_back import held_back_reason, raise_if_held_back
from twnb.notebook.interrupt_guard import interrupts_raise
from twnb.notebook.round_display import RoundDisplay, has_widget_frontend
from twnb.notebook.typed_arguments import parse_argstring
from twnb.session import ApprovedRun, EditedRun, PlanRequest, RefusedEdit, Skipped, UndoneRun, UserStopped

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Generator

    from IPython.core.interactiveshell import InteractiveShell

    from twnb.memory import Round, UndoneRecord
    from twnb.notebook.notebook_session import NotebookSession
    from twnb.session import CodeDecision, CodeRequest, PlanDecision, Session


class RanCode(Protocol):
    """What step mode reads of the result of code the user ran (the kernel layer's ExecutionResult)."""

    @property
    def status(self) -> str: ...

    @property
    def success(self) -> bool: ...


class StepMagics(Protocol):
    """What a step-mode Round uses of TaskWeaverMagics (magics.py, which imports this file)."""

    notebook: NotebookSession
    last_display: RoundDisplay | None

    def taskweaver(self, line: str = "", cell: str | None = None) -> None: ...
    def strict_default(self) -> bool: ...
    def step_default(self) -> str: ...
    def round_running_text(self, what: str) -> str: ...
    def prepare_round(self, query: str, args: argparse.Namespace) -> Session | None: ...
    def round_is_plugin_only(self, args: argparse.Namespace) -> bool: ...
    def say_plugin_problems(self, round: Round) -> None: ...
    def show_final(
        self,
        display: RoundDisplay,
        round: Round | None,
        query: str,
        rounds_before: int,
        stopped: str,
        held_back: Callable[[Round], str | None] | None = None,
    ) -> Round: ...
    def _fail(self, message: str, strict: bool) -> None: ...
    def run_unattended(
        self, session: Session, query: str, args: argparse.Namespace, *, risky: bool
    ) -> None: ...


NEEDS_KERNEL = (
    "Step mode needs a Jupyter kernel with a frontend that draws widgets (JupyterLab or Notebook 7); "
    "this is {where}. Nothing was run: run the cell without --step to let the Round run on its own."
)
NEEDS_IPYKERNEL = (
    "Step mode needs ipykernel 7.4 or later (this kernel has {version}): run "
    "pip install -U 'ipykernel>=7.4' and restart the kernel. Nothing was run; without --step the Round "
    "runs on its own."
)
NO_VIEW = (
    "Step mode needs a frontend that draws widgets, and none drew this Round's widget within {seconds:g} s "
    "(nbclient, papermill, or a frontend without ipywidgets). Nothing was run: run the cell without "
    "--step to let the Round run on its own."
)
log = get_logger(__name__)

MIN_IPYKERNEL = (7, 4)
VIEW_TIMEOUT_S = 3.0
DECISION_TIMEOUT_S = 24 * 3600.0  # generous: a person may step away; Interrupt ends the wait at once


def refusal(shell: InteractiveShell) -> str | None:
    """Why step mode cannot work in this shell, or None."""
    if getattr(shell, "kernel", None) is None:
        return NEEDS_KERNEL.format(where="terminal IPython (no kernel)")
    version = _ipykernel_version()
    if version < MIN_IPYKERNEL:
        return NEEDS_IPYKERNEL.format(version=".".join(map(str, version)) or "an unknown version")
    if not getattr(shell, "autoawait", False):
        return NEEDS_KERNEL.format(where="a kernel with %autoawait off (turn it on: %autoawait asyncio)")
    return None


def _risky(args: argparse.Namespace, magics: StepMagics) -> bool:
    """The cell's step mode is risky (--step=risky, else the `step` setting)."""
    if args.step is not None:
        return bool(args.step == "risky")
    try:
        return magics.step_default() == "risky"
    except ValueError:  # settings that do not resolve: the Round's own preparation says what is wrong
        return False


def _ipykernel_version() -> tuple[int, ...]:
    try:
        from importlib.metadata import version  # lazy: ~13 ms, 25 modules, for a refusal only

        parts = version("ipykernel").split(".")[:2]
        return tuple(int("".join(ch for ch in part if ch.isdigit()) or 0) for part in parts)
    except Exception:
        return ()


async def run_step_cell(flags: str, body: str) -> None:
    """What a rewritten `%%taskweaver --step` cell awaits."""
    shell = get_ipython()
    magics: StepMagics = shell.magics_manager.registry["TaskWeaverMagics"]
    args = parse_argstring(magics.taskweaver, flags)
    if args.subcommand or args.latest:
        magics.taskweaver(flags, body)  # the plain magic says what is wrong with the line
        return
    args.strict = args.strict or magics.strict_default()
    if _risky(args, magics) and not has_widget_frontend(shell):
        # A batch run (nbclient, papermill): no one can approve, so the safe code runs and the first
        # piece that would have asked ends the Round, saying why (Session.run_round's grade_risk).
        if magics.notebook.round_running:
            magics._fail(magics.round_running_text("another %%taskweaver Round"), args.strict)
            return
        session = magics.prepare_round(body, args)
        if session is not None:
            magics.run_unattended(session, body.strip(), args, risky=True)
        return
    problem = refusal(shell)
    if problem:
        magics._fail(problem, args.strict)
        return
    if magics.notebook.round_running:
        magics._fail(magics.round_running_text("another %%taskweaver Round"), args.strict)
        return
    session = magics.prepare_round(body, args)
    if session is None:
        return None
    mode = args.step if args.step is not None else magics.step_default()
    await StepRound(magics, session, body.strip(), args, risky=mode == "risky").run()
    return None


class StepRound:
    """One step-mode Round: display, handshake, the driver's requests turned into awaited decisions."""

    def __init__(
        self,
        magics: StepMagics,
        session: Session,
        query: str,
        args: argparse.Namespace,
        *,
        risky: bool = False,
    ) -> None:
        self.magics = magics
        self.risky = risky  # --step=risky: no plan to approve, and code waits only when graded risky
        self.session = session
        self.query = query
        self.args = args
        self.inbox: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.loop = asyncio.get_running_loop()
        self.stopped = False  # the user pressed Stop
        self.skipped = False  # the user skipped a piece of code

    def post(self, item: tuple[str, Any]) -> None:
        """From any thread (a click may arrive on a subshell's): hand the item to the Round's loop."""
        # At debug level (the kernel's log): that a click reached the kernel at all, and on which thread.
        log.debug("step inbox: %r posted on thread %s", item, threading.current_thread().name)
        self.loop.call_soon_threadsafe(self.inbox.put_nowait, item)

    async def run(self) -> None:
        # The text typed into the panel reaches the kernel only if each widget update gets its idle.
        with idle_after_concurrent_comms(getattr(get_ipython(), "kernel", None)):
            await self._run()

    async def _run(self) -> None:
        notebook = self.magics.notebook
        display = RoundDisplay(
            self.query,
            session_id=notebook.session_id,
            conversation_id=notebook.conversation.id,
            widgets=True,
            base_dir=notebook.workdir,
        )
        self.magics.last_display = display
        self.panel = ApprovalPanel(self.post)
        self.observer = display.observer
        self.view = display.live_view
        self.view.add_controls(self.panel.widget)
        widget = self.view.widget
        widget._view_count = 0  # the frontend counts the views it draws: the handshake
        widget.observe(self._on_view_count, "_view_count")
        display.start()
        drawn = await self._drawn(VIEW_TIMEOUT_S)
        self._stop_counting_views(widget)
        if not drawn:
            message = NO_VIEW.format(seconds=VIEW_TIMEOUT_S)
            display.withdraw(message)
            self.magics._fail(message, self.args.strict)
            return
        rounds_before = len(notebook.conversation.rounds)
        round = None
        stopped = "The Round stopped with an error before it was recorded (the error is shown below)."
        try:
            with notebook.running_round(), display.following(self.session.plans):
                driver = self.session.round_driver(
                    self.query,
                    display.observer,
                    approve_plan=not self.risky,
                    plugin_only=self.magics.round_is_plugin_only(self.args),
                    grade_risk=self.risky,
                    waits_for_user=True,
                )
                round = await self._drive(driver)
        finally:
            self.panel.close_panel()
            round = self.magics.show_final(
                display, round, self.query, rounds_before, stopped, held_back=self.held_back
            )
        self.magics.say_plugin_problems(round)
        if round.state != "finished" and self.args.strict:
            reason = (round.extra or {}).get("failure_reason") or "the Round did not finish"
            self.magics._fail(reason, True)  # raises RoundFailedError
        raise_if_held_back(round)
        return None

    def _on_view_count(self, change: dict[str, Any]) -> None:
        self.post(("drawn", change["new"]))

    def _stop_counting_views(self, widget: Any) -> None:
        """The handshake is over: the frontend counts no more views. A counted view that goes reports
        its going: the Round's final display replaces the view, so JupyterLab would send that report on
        the widgets' subshell just before it deletes that subshell (the Round's widgets close), and
        ipykernel 7.4 closes a deleted subshell's loop with the message's task still queued: "Task was
        destroyed but it is pending!" in the next cell's stderr."""
        widget.unobserve(self._on_view_count, "_view_count")
        widget._view_count = None

    def held_back(self, round: Round) -> str | None:
        """Why the cells queued below should not run after this Round, or None when they may."""
        return held_back_reason(round, stopped=self.stopped, skipped=self.skipped)

    async def _drawn(self, timeout: float) -> bool:
        try:
            async with asyncio.timeout(timeout):
                while True:
                    action, value = await self.inbox.get()
                    if action == "drawn" and value:
                        return True
        except TimeoutError:
            return False

    async def _drive(
        self, driver: Generator[CodeRequest | PlanRequest, CodeDecision | PlanDecision, Round]
    ) -> Round | None:
        to_send: CodeDecision | PlanDecision = None
        to_throw: BaseException | None = None
        while True:
            try:
                with interrupts_raise():  # an LLM call blocks the loop: Interrupt must reach it
                    request = driver.throw(to_throw) if to_throw is not None else driver.send(to_send)
            except StopIteration as stop:
                round: Round = stop.value
                return round
            except KeyboardInterrupt as interrupt:  # landed just outside the driver's own handling
                if inspect.getgeneratorstate(driver) == inspect.GEN_CLOSED:
                    return None  # the driver had recorded its Round's end: show_final finds that Round
                to_send, to_throw = None, interrupt  # it had just yielded: end its Round interrupted
                continue
            to_send, to_throw = None, None
            try:
                if isinstance(request, PlanRequest):
                    to_send = await self._approve_plan(request)
                else:
                    to_send = await self._approve_code(request)
            except UserStopped as error:
                self.stopped = True
                to_throw = error
            except (asyncio.CancelledError, KeyboardInterrupt):
                # The Interrupt button while awaiting a click cancels this task: end the Round.
                self._uncancel()
                to_throw = KeyboardInterrupt()
            except Exception as error:  # an executor that broke: the driver records it
                to_throw = error

    def _uncancel(self) -> None:
        task = asyncio.current_task()
        if task is not None:
            while task.uncancel():  # the Round's end (display, autosave) must not be cancelled too
                pass

    def _status(self, text: str) -> None:
        # The driver said "running code" as it asked; while the Round waits on a click, say so instead.

        self.observer.on_event(StatusChanged(text))

    async def _decision(self, allowed: tuple[str, ...]) -> str:
        """The user's click on one of `allowed` for the prompt the panel asks now. Its buttons are
        enabled here, the last change before the wait, and disabled as soon as the click is taken, the
        first change after it: no button moves while it can be clicked. A click from another prompt's
        buttons (sent before the browser knew that prompt was decided) is dropped, never taken for
        this one."""
        prompt = self.panel.listen(allowed)
        log.debug("step inbox: prompt %s waits for %s", prompt, ", ".join(allowed))
        async with asyncio.timeout(DECISION_TIMEOUT_S):
            while True:
                action, value = await self.inbox.get()
                if action in allowed and value == prompt:
                    log.debug("step inbox: prompt %s decided: %s", prompt, action)
                    self.panel.disable()  # before the panel and the notes above change again
                    return action
                log.debug("step inbox: prompt %s dropped %s (for prompt %s)", prompt, action, value)

    async def _approve_plan(self, request: PlanRequest) -> list[str] | None:
        self.panel.ask_plan(request.steps)
        self._status("waiting for your approval of the plan")
        with self.view.waiting():  # the notes above fold: the panel is where the eye is
            action = await self._decision(("approve", "stop"))
        if action == "stop":
            self.panel.lock("Stopped.")
            raise UserStopped
        steps = self.panel.edited_steps()
        self.panel.lock("Plan approved; the Planner goes on.")
        if not steps:
            return None  # an emptied list is not a plan: the model's stands
        return steps if steps != request.steps else None

    async def _approve_code(self, request: CodeRequest) -> CodeDecision:
        if self.risky and not request.risks:
            # Graded safe: it runs as in a plain Round, and the record says it ran without asking.
            sys.stdout.flush()
            return self.session.execute(request)
        self.panel.ask_code(request.code, request.verification, request.risks if self.risky else None)
        self.view.hold_code(request.post_id)  # the code shows once: in the panel while it waits
        try:
            with self.view.waiting():
                code = await self._decide_code(request)
        finally:
            self.view.hold_code(None)
        if isinstance(code, UserStopped):
            self.panel.lock("Stopped.")
            raise code
        if isinstance(code, Skipped):
            self.skipped = True
            self.panel.lock("Skipped.")
            return code
        edited = code.strip() != request.code.strip()
        self.panel.lock("Running the edited code…" if edited else "Running…")
        self._status("running code")
        sys.stdout.flush()
        result = self.session.execute(request, code if edited else None)
        undone = await self._offer_undo(request, result)
        if undone is not None:
            return UndoneRun(result, undone["line"], code if edited else None, undone["files_moved"])
        return EditedRun(code, result) if edited else ApprovedRun(result)

    async def _offer_undo(self, request: CodeRequest, result: RanCode) -> UndoneRecord | None:
        """After code the user approved ran: Continue, or Undo it before the Round goes on (the record
        of what was undone). Stop ends the Round as at any other decision."""
        if self.session.undo_log is None or self.session.undo_log.get(request.post_id) is None:
            return None  # code run elsewhere keeps no snapshot: nothing to offer
        if result.status == "interrupted":
            return None  # the Round ends interrupted: %taskweaver undo takes it back afterwards

        self.panel.ask_after_run(
            "it ran" if result.success else f"it ended: {result.status}", ran_output(result)
        )
        self._status("the code ran: Continue, or Undo it")
        with self.view.waiting():
            action = await self._decision(("continue", "undo", "stop"))
        if action == "stop":
            self.panel.lock("Stopped.")
            raise UserStopped
        if action == "continue":
            self.panel.lock("The Round goes on.")
            return None
        undone = self.session.undo_piece(request.post_id)
        self.panel.lock(f"{undone['line'] if undone else 'Nothing to undo.'} The Round goes on.")
        return undone

    async def _decide_code(self, request: CodeRequest) -> str | Skipped | UserStopped:
        """The code to run (the model's, or the user's edit that verification let through), `Skipped`,
        or `UserStopped` for Stop. An edit verification refuses does not run: the panel shows the
        refusal and offers Edit again, Skip and Stop; a Skip or Stop then keeps the last refused edit in
        the record, so what the user typed is not lost."""
        allowed: tuple[str, ...] = ("run", "edit", "skip", "stop")
        self._status("waiting for your approval: Run, Edit, Skip or Stop")
        editing = False
        refused: RefusedEdit | None = None
        while True:
            action = await self._decision(allowed)
            if action == "stop":
                return UserStopped(refused)
            if action == "skip":
                return Skipped(refused)
            if action == "edit":
                editing = True
                allowed = ("run", "skip", "stop")
                self.panel.start_editing()
                continue
            code = self.panel.edited_text() if editing else request.code
            refusal = self.session.check_edit(code) if code.strip() != request.code.strip() else None
            if refusal is None:
                return code
            editing = False
            refused = RefusedEdit(code, refusal)
            allowed = ("edit", "skip", "stop")
            self.panel.refuse_edit(code, refusal)
            self._status("verification refused your edit: Edit again, Skip or Stop")
