"""`%%taskweaver` and `%taskweaver SUBCOMMAND` (docs/architecture.md, contracts 4 and 5).

The traitlets come from the settings table (twnb/config/table.py; never the API key): `%config
TaskWeaverMagics.model = "gpt-4o-mini"` in a notebook, `c.TaskWeaverMagics.model = ...` in
`ipython_config.py`. A traitlet left at None means "not set here", so the environment, `.env`,
`twnb.yaml` and the user config apply.
"""

from __future__ import annotations

import argparse
import os
import sys
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand
from traitlets import observe, validate

from twnb.config import SETTINGS
from twnb.notebook.experience_commands import offer_to_remember
from twnb.notebook.notebook_session import NotebookSession
from twnb.notebook.setting_traits import setting_traits
from twnb.notebook.step_transform import NOT_A_STEP_CELL
from twnb.notebook.subcommand_context import SubcommandContext, one_line, round_running_message
from twnb.notebook.subcommand_table import HELP, SUBCOMMAND_NAMES, find, line_flags, misplaced_flags

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    from twnb.config import ResolvedSettings
    from twnb.memory import Plan, Round
    from twnb.notebook.round_display import RoundDisplay
    from twnb.notebook.typed_arguments import argument, magic_arguments, parse_argstring
    from twnb.session import Session
else:  # the same functions as typed_arguments.py's, untyped: `%load_ext` loads one module fewer
    from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

# lazy: %load_ext twnb imports this module; what a Round or a subcommand needs loads when it runs
# (bench/bench_notebook.py): twnb.session (50-170 modules, ~100-250 ms), twnb.memory (47 modules),
# twnb.render (71), twnb.notebook.held_back and twnb.notebook.round_display (72-77: the model, the
# view), twnb.notebook.step_mode (126: asyncio), twnb.notebook.interrupt_guard (signal) and
# twnb.base's logs (1 module, ~1 ms)


class RoundRunning(RuntimeError):
    """A command that would change what the running Round relies on; the text says what to do."""

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


class RoundFailedError(RuntimeError):
    """Raised by `%%taskweaver --strict` when the Round did not finish (for batch runs)."""

    def _render_traceback_(self) -> list[str]:
        # IPython shows this instead of a traceback: the reason is the whole story.
        return [f"RoundFailedError: {self}"]


_F = TypeVar("_F", bound=Callable[..., Any])


def _help_doc(function: _F) -> _F:
    function.__doc__ = HELP
    return function


def _subcommand_flags(function: _F) -> _F:
    """The subcommands' flags (subcommand_table.py), for the magic's one parser of the whole line."""
    for name, text in reversed(line_flags()):
        function = argument(name, action="store_true", help=text)(function)
    return function


# The settings' traitlets, generated from the settings table: TaskWeaverMagics inherits them, so
# `%config TaskWeaverMagics.model = ...` and `c.TaskWeaverMagics.model` in ipython_config.py reach them.
_SettingTraits = types.new_class(
    "_SettingTraits", (Magics,), exec_body=lambda namespace: namespace.update(setting_traits())
)


_SETTING_NAMES = tuple(row.name for row in SETTINGS if row.traitlet)
# How a traitlet was set, for `%taskweaver config` (None: with %config, the plain case).
_FROM_PROFILE = "from the IPython profile's config (ipython_config.py)"
_FROM_A_CELL = "set by assignment in a cell"


@magics_class
class TaskWeaverMagics(_SettingTraits):  # type: ignore[misc, valid-type]
    def __init__(
        self,
        shell: InteractiveShell,
        workdir: str | None = None,
        notebook: NotebookSession | None = None,
        **kwargs: argparse.Namespace,
    ) -> None:
        self._setting_via: str | None = _FROM_PROFILE  # the config the shell hands over, below
        self._trait_origins: dict[str, str | None] = {}
        super().__init__(shell=shell, **kwargs)
        self._setting_via = _FROM_A_CELL

        # "The notebook's folder" is the kernel's working directory when the extension first loaded;
        # `notebook` is the one kept across `%reload_ext twnb` (see extension.py).
        self.notebook = notebook or NotebookSession(shell, workdir or os.getcwd())
        self.notebook.settings_holder = self
        self.last_display: RoundDisplay | None = None  # the last Round's (its view counts updates)
        self.subcommands = SubcommandContext(self.notebook, shell, self.traitlet_values)  # what they use

    def update_config(self, config: Config) -> None:
        """`%config TaskWeaverMagics.x = ...` lands here: refused while a Round runs, as the Round
        reads its settings once and memory, autosave and display would follow different ones.
        (Overridden here rather than validated per traitlet, so every setting is covered however the
        traitlets are declared.) `%config` prints the refusal as one line; nothing is changed."""
        notebook = getattr(self, "notebook", None)
        if notebook is not None and notebook.round_running and config.get(type(self).__name__):
            raise RoundRunning(round_running_message("%config TaskWeaverMagics"))
        via, self._setting_via = self._setting_via, None
        try:
            super().update_config(config)
        finally:
            self._setting_via = via

    @validate(*_SETTING_NAMES)
    def _refused_to_generated_code(self, proposal: Any) -> Any:
        """Settings change by the user's hand only: a change from generated code (a thread the runtime
        guard has armed) is refused as it is made. Without a guard in the process no code has run."""
        if getattr(sys, "_twnb_runtime_guard", None) is not None and self._setting_via != "restore":
            from twnb.session import refuse_setting_change

            refuse_setting_change(f"TaskWeaverMagics.{proposal['trait'].name}")
        return proposal["value"]

    @observe(*_SETTING_NAMES)
    def _note_origin(self, change: Any) -> None:
        if self._setting_via != "restore":
            self._trait_origins[change["name"]] = self._setting_via

    def _twnb_restore(self, name: str, value: Any) -> None:
        """Put a setting back as it was before generated code changed it (settings_watch.py): its origin
        stays what it was."""
        via, self._setting_via = self._setting_via, "restore"
        try:
            setattr(self, name, value)
        finally:
            self._setting_via = via

    def trait_origins(self) -> dict[str, str]:
        """How each traitlet set otherwise than with %config was set (for `%taskweaver config`)."""
        return {name: origin for name, origin in self._trait_origins.items() if origin}

    def traitlet_values(self) -> dict[str, Any]:
        """The settings set here (`%config`, ipython_config.py); None means "not set here"."""
        values = {name: getattr(self, name) for name in self.trait_names(config=True)}
        return {name: value for name, value in values.items() if value is not None}

    round_running_text = staticmethod(round_running_message)

    def step_default(self) -> str:
        """The `step` setting (for a cell without --step): "off", "on" or "risky", from %config, the
        environment, .env, YAML files."""
        if self.step is not None:  # %config TaskWeaverMagics.step = True (on), False (off) or a mode
            return {True: "on", False: "off"}.get(self.step, str(self.step).lower())
        return str(self.notebook.resolve({}, {}).settings.step)

    def strict_default(self) -> bool:
        """The `strict` setting (for a cell without --strict): %config, environment, .env, YAML files.
        Settings that do not resolve fail the Round; whether that raises still follows %config and
        the environment, which a batch run sets."""
        if self.strict is not None:
            return bool(self.strict)
        try:
            return bool(self.notebook.resolve({}, {}).settings.strict)
        except ValueError:
            return os.environ.get("TWNB_STRICT", "").strip().lower() in _TRUE_WORDS

    @magic_arguments()
    @argument("--model", metavar="M", help="the model for this Round only")
    @argument(
        "--step",
        nargs="?",
        const="on",
        choices=("on", "risky", "off"),
        help="approve the plan and each piece of code in the widget (risky: only code that needs it)",
    )
    @argument("--no-verify", dest="no_verify", action="store_true", help="skip code verification")
    @argument("--strict", action="store_true", help="raise when the Round fails (for batch runs)")
    @argument("--timeout", metavar="S", type=float, help="seconds one execution may take")
    @argument("--plugin-only", dest="plugin_only", action="store_true", help="the code may only call plugins")
    @_subcommand_flags
    @argument("subcommand", nargs="*", help="line form: " + ", ".join(SUBCOMMAND_NAMES))
    @no_var_expand
    @line_cell_magic
    @_help_doc
    def taskweaver(self, line: str = "", cell: str | None = None) -> None:
        from twnb.notebook.held_back import CellsHeldBack

        args = parse_argstring(self.taskweaver, line)
        try:
            return self._dispatch(args, cell, line)
        except (RoundFailedError, RoundRunning, CellsHeldBack):
            raise  # --strict, or the cells queued below held back: one line by design
        except Exception as error:
            # Expected failures are said where they happen; anything else still gets one line, not a
            # traceback in the user's notebook (the traceback goes to twnb's debug log).
            from twnb.base import get_logger
            from twnb.session import redactor_for

            get_logger(__name__).debug("a taskweaver magic failed", exc_info=True)
            text = redactor_for(self._settings_or_none()).redact(one_line(error))
            return self._fail(f"twnb could not do that: {type(error).__name__}: {text}", args.strict)

    def _dispatch(self, args: argparse.Namespace, cell: str | None, line: str) -> None:
        if cell is not None:
            if args.subcommand:
                return self._fail(
                    f"%%taskweaver takes flags only, got {' '.join(args.subcommand)!r}. Write the request in "
                    f"the cell body; subcommands are line magics: %taskweaver {args.subcommand[0]} ...",
                    args.strict or self.strict_default(),
                )
            args.strict = args.strict or self.strict_default()
            if args.latest:
                return self._fail("--latest goes with the line magic: %taskweaver load --latest", args.strict)
            return self._round(cell, args)
        return self._subcommand(args, line)

    # --- one Round -----------------------------------------------------------------------------

    def _round(self, query: str, args: argparse.Namespace) -> None:
        if self.notebook.round_running:
            return self._fail(round_running_message("another %%taskweaver Round"), args.strict)
        if args.step not in (None, "off"):
            return self._refuse_step(args)
        resolved = self.resolve_round(query, args)
        if resolved is None:
            return None
        if resolved.settings.step != "off" and args.step != "off":
            return self._refuse_step(args)
        session = self.session_for(resolved, args)
        if session is None or not self.take_mentions(session, query, args):
            return None
        return self._run(session, query.strip(), args, plugin_only=bool(resolved.settings.plugin_only))

    def _refuse_step(self, args: argparse.Namespace) -> None:
        # A step cell is rewritten into an awaited coroutine before it runs (step_transform.py);
        # reaching here means it was not: no kernel (terminal IPython), run_cell_magic, or a cell
        # where the magic is not first.
        from twnb.notebook.step_mode import refusal

        return self._fail(refusal(self.shell) or NOT_A_STEP_CELL, args.strict)

    def prepare_round(self, query: str, args: argparse.Namespace) -> Session | None:
        """The Session for this cell's Round, or None after saying why there is none."""
        resolved = self.resolve_round(query, args)
        session = None if resolved is None else self.session_for(resolved, args)
        if session is None or not self.take_mentions(session, query, args):
            return None
        return session

    def take_mentions(self, session: Session, query: str, args: argparse.Namespace) -> bool:
        """The request's @-mentions described for the Round (session/mentions.py; a replayed Round's as
        its recording described them); False after saying which mention names nothing (the Round does
        not start: no LLM call)."""
        from twnb.session import MentionError, MentionResolver, replayed_mentions

        redact = session.redactor.redact if session.redactor is not None else str
        resolver = MentionResolver(
            self.shell.user_ns, self.notebook.workdir, self.notebook.conversation, redact
        )
        try:
            described = replayed_mentions(resolver, query, session.recorded_round_for(query))
        except MentionError as error:
            self._fail(str(error), args.strict)
            return False
        session.next_mentions = described.mentions
        session.next_context_notes = [described.note] if described.note else []
        return True

    def resolve_round(self, query: str, args: argparse.Namespace) -> ResolvedSettings | None:
        """The settings for this cell's Round (flags over %config over the files), or None after saying
        why there are none."""
        if not query.strip():
            self._fail("The cell is empty: write the request below %%taskweaver.", args.strict)
            return None
        flags: dict[str, Any] = {}
        if args.model:
            flags["model"] = args.model
        if args.no_verify:
            flags["verify"] = False
        if args.timeout is not None:
            flags["timeout"] = args.timeout
        if args.plugin_only:
            flags["plugin_only"] = True
        try:
            return self.notebook.resolve(flags, self.traitlet_values())
        except ValueError as error:  # SettingsError is a ValueError: a clear message, no traceback
            self._fail(str(error), args.strict)
            return None

    def session_for(self, resolved: ResolvedSettings, args: argparse.Namespace) -> Session | None:
        try:
            return self.notebook.session_for(resolved)
        except ValueError as error:
            self._fail(str(error), args.strict)
            return None
        except KeyboardInterrupt:  # the first Round imports the LLM client, which takes a moment
            self._fail("Interrupted before the Round started; nothing was run.", args.strict)
            return None

    def round_is_plugin_only(self, args: argparse.Namespace) -> bool:
        """Whether the cell's Round is plugin-only: --plugin-only, else the plugin_only setting."""
        if args.plugin_only:
            return True
        try:
            return bool(self.notebook.resolve({}, self.traitlet_values()).settings.plugin_only)
        except ValueError:
            return False

    def run_unattended(self, session: Session, query: str, args: argparse.Namespace, *, risky: bool) -> None:
        """Step mode's Round with no one to approve (a batch run): a plain Round, graded when `risky`
        (step_mode.py)."""
        self._run(session, query, args, plugin_only=self.round_is_plugin_only(args), grade_risk=risky)

    def _run(
        self,
        session: Session,
        query: str,
        args: argparse.Namespace,
        *,
        plugin_only: bool = False,
        grade_risk: bool = False,
    ) -> None:
        from twnb.notebook.held_back import held_back_reason, raise_if_held_back
        from twnb.notebook.round_display import RoundDisplay, has_kernel, has_widget_frontend

        # The session's Rounds are redacted when recorded (its one Redactor): the display shows them as is.
        display = RoundDisplay(
            query,
            session_id=self.notebook.session_id,
            conversation_id=self.notebook.conversation.id,
            widgets=has_widget_frontend(self.shell),
            in_place=has_kernel(self.shell),
            base_dir=self.notebook.workdir,
        )
        self.last_display = display
        rounds_before = len(self.notebook.conversation.rounds)
        round = None
        stopped = "The Round stopped with an error before it was recorded (the error is shown below)."
        try:
            display.start()
            with self.notebook.running_round(), display.following(session.plans):
                round = session.run_round(
                    query, observer=display.observer, plugin_only=plugin_only, grade_risk=grade_risk
                )
        except KeyboardInterrupt:
            # The session turns Ctrl-C inside the Round into a failed Round; this one came just before.
            stopped = "Interrupted before the Round started; nothing was run or recorded."
        finally:
            round = self.show_final(display, round, query, rounds_before, stopped, held_back_reason)
        self.say_plugin_problems(round)
        if round.state != "finished" and args.strict:
            reason = (round.extra or {}).get("failure_reason") or f"the Round ended {round.state}"
            raise RoundFailedError(reason)
        raise_if_held_back(round)  # interrupted: the cells queued below do not run, as after a plain cell
        return None

    def say_plugin_problems(self, round: Round) -> None:
        """Plugins that could not be loaded, said once (the Round that met them first records them);
        and what twnb did about what it trusts (a setting put back, a file it would not load)."""
        for line in (round.extra or {}).get("plugin_problems", ()):
            self._say(f"twnb: {line} (%taskweaver plugins lists every plugin)", error=True)
        for line in (round.extra or {}).get("trust_notes", ()):
            self._say(f"twnb: {line}", error=True)
        for line in (round.extra or {}).get("context_notes", ()):
            self._say(f"twnb: {line}", error=True)

    def show_final(
        self,
        display: RoundDisplay,
        round: Round | None,
        query: str,
        rounds_before: int,
        stopped: str,
        held_back: Callable[[Round], str | None] | None = None,
    ) -> Round:
        """Finished, failed or interrupted: the saved output must hold the final Round (contract 6).

        `held_back(round)` says why the cells queued below will not run (held_back.py), if they will
        not: the Round then says so too (`Round.extra["held_back_cells"]`)."""
        from twnb.notebook.interrupt_guard import interrupts_held

        with interrupts_held() as held:
            round = self._final_round(round, query, rounds_before, stopped)
            reason = held_back(round) if held_back is not None else None
            if reason:  # autosaved with the Round, which was saved before this was known
                self.notebook.note_held_back_cells(round, reason)
            # A replay that started over began a new conversation when the Round started.
            display.session_id = self.notebook.session_id
            display.conversation_id = self.notebook.conversation.id
            display.finish(round, self._final_plan(round))
            if display.display_id is not None:
                self.notebook.round_displays[round.id] = display.display_id
        if held:
            self._say("Ctrl-C came while the Round's final output was written; it was written first.")
        self._offer_to_remember(round)
        return round

    def _offer_to_remember(self, round: Round) -> None:
        """A Round the user steered ends by offering to remember it (experience_commands.py)."""
        offer_to_remember(self.subcommands, round)

    def _final_round(self, round: Round | None, query: str, rounds_before: int, reason: str) -> Round:
        """The Round to show at the end: the session's, else the one it recorded, else a stand-in
        saying that nothing was recorded (so the display never stays at "running")."""
        if round is not None:
            return round
        if len(self.notebook.conversation.rounds) > rounds_before:
            return self.notebook.conversation.rounds[-1]
        from twnb.memory import Round

        stand_in = Round.create(user_query=query)
        stand_in.change_round_state("failed")
        stand_in.extra = {"failure_reason": reason}
        return stand_in

    def _final_plan(self, round: Round) -> Plan | None:
        from twnb.render import plan_from_round
        from twnb.session import recorded_plan

        # The plan the Round ended with, as the plan notebook recorded it (a continued plan keeps its
        # earlier steps' states); else the one its posts give (a stand-in Round has none).
        return recorded_plan(round) or plan_from_round(round)

    # --- line form -----------------------------------------------------------------------------

    def _subcommand(self, args: argparse.Namespace, line: str) -> None:
        """`%taskweaver SUBCOMMAND ...`: flags that are not the subcommand's refused (subcommand_table.py),
        then the subcommand's own parser reads the line without its name."""
        words = list(args.subcommand)
        if not words:
            words = ["load"] if args.latest else ["help"]
        name = words[0]
        refusal = misplaced_flags(name, args)
        if refusal is not None:
            self._say(refusal, error=True)
            return None
        subcommand = find(name)
        if subcommand is not None and subcommand.changes_conversation and self.notebook.round_running:
            self._say(round_running_message(f"%taskweaver {name}"), error=True)
            return None
        if subcommand is None:
            self._say(
                f"Unknown subcommand {name!r}. Subcommands: {', '.join(SUBCOMMAND_NAMES)}. "
                "To send a request, use the cell form: %%taskweaver on the first line, the request below.",
                error=True,
            )
            return None
        return subcommand.run(self.subcommands, subcommand.parse(line, named=bool(args.subcommand)))

    def _settings_or_none(self) -> ResolvedSettings | None:
        """The effective settings, or None when they do not resolve (save and load work without)."""
        try:
            return self.notebook.resolve({}, self.traitlet_values())
        except ValueError:
            return None

    # --- output ---------------------------------------------------------------------------------

    def _fail(self, message: str, strict: bool) -> None:
        if strict:
            raise RoundFailedError(message)
        self._say(message, error=True)
        return None

    def _say(self, message: str, *, error: bool = False) -> None:
        print(message, file=sys.stderr if error else sys.stdout)


_TRUE_WORDS = frozenset({"1", "true", "yes", "on"})  # as the settings table reads a bool
