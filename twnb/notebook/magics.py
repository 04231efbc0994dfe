"""`%%taskweaver` and `%taskweaver SUBCOMMAND` (docs/architecture.md, contracts 4 and 5).

The traitlets come from the settings table (twnb/config/table.py; never the API key): `%config
TaskWeaverMagics.model = "gpt-4o-mini"` in a notebook, `c.TaskWeaverMagics.model = ...` in
`ipython_config.py`. A traitlet left at None means "not set here", so the environment, `.env`,
`twnb.yaml` and the user config apply.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand
from traitlets import observe, validate

from twnb.config import SETTINGS
from twnb.notebook.setting_traits import setting_traits

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    from twnb.config import ResolvedSettings
    from twnb.memory import Conversation, Plan, Round
    from twnb.notebook.notebook_session import NotebookSession
    from twnb.notebook.recorded_round import RecordedRounds
    from twnb.notebook.round_display import RoundDisplay
    from twnb.notebook.typed_arguments import argument, magic_arguments, parse_argstring
    from twnb.session import Session
else:  # the same functions as typed_arguments.py's, untyped: `%load_ext` loads one module fewer
    from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

SUBCOMMANDS = {
    "save": "save PATH [--force]  write the conversation as TaskWeaver YAML (during a Round: as it stands);\n"
    "                         a file holding more Rounds is replaced only with --force",
    "load": "load PATH | --latest read a saved conversation (YAML or notebook) or the newest autosave;\n"
    "                         --rerun runs its recorded code here to rebuild the variables it made,\n"
    "                         verified first as generated code is (--no-verify: unchecked); your own\n"
    "                         recorded cells run too when you agree (--user-cells: without asking)",
    "reset": "reset                start a new, empty conversation",
    "show": "show ROUND_ID        show a recorded Round again (also a number or `last`); never calls the LLM",
    "history": "history              the Rounds of this conversation as a table",
    "export": "export PATH.ipynb [--force]  write the conversation as a notebook (Rounds, code, recorded\n"
    "                         outputs); an existing file is replaced only with --force",
    "undo": "undo [ROUND] [--force]  put the kernel back as it was before the Round (default: the last):\n"
    "                         its variables removed or restored, files it made moved to twnb-undone/,\n"
    "                         files it overwrote restored; refused when later changes touched the same\n"
    "                         variables, unless --force. The Round stays in the record, marked undone",
    "config": "config               effective settings and where each came from (keys are never shown)",
    "trace": "trace on|off|console|otlp [URL]  OpenTelemetry spans of each Round (needs twnb[otel])",
    "plans": "plans [recover N]    the conversation's plans; recover N: the next Round continues plan N",
    "plugins": "plugins [add NAME]   every plugin, its source and state (and why not loaded);\n"
    "                         add NAME makes the notebook's function NAME a plugin from the next Round on",
    "rules": "rules                the rules in force (AGENTS.md, TWNB.md in this folder and its parents up\n"
    "                         to the project's root), from which files, with their token cost",
    "remember": 'remember [ROUND | "text"]  keep a Round (default: the last) as experience, summarised by\n'
    "                         the LLM (raw_exp_<id>.yaml, exp_<id>.yaml), or your own words\n"
    "                         (handcrafted_exp_<id>.yaml); relevant experience goes into later prompts",
    "experience": "experience [show ID | delete ID]  the experience kept in experience_dir",
    "help": "help                 this help",
}

HELP = (
    """twnb: TaskWeaver's Planner and CodeInterpreter in the notebook.

Cell form: the cell body is the request, run as one Round on this kernel:

    %%taskweaver [--model M] [--step[=risky]] [--no-verify] [--strict] [--timeout S] [--plugin-only]
    Load sales.csv and plot revenue by month.

--strict (or the strict setting, TWNB_STRICT=1 for a batch run) raises when the Round does not finish,
so papermill and nbclient stop with an error.

--step pauses the Round in its widget: approve or edit the plan, then Run, Edit, Skip or Stop each
piece of code before it runs (JupyterLab or Notebook 7, ipykernel 7.4 or later;
`%config TaskWeaverMagics.step = True` makes it the default). --step=risky pauses only on code that
would overwrite or delete files, write outside the notebook's folder, change the working folder or
the environment, reach the network, change your variables in place or exceed the undo budget, and
says why; the rest runs without asking (in a batch run, nbclient or papermill, the first piece that
would pause ends the Round failed instead). --plugin-only lets the Round's code call
only plugins (TaskWeaver plugins in plugin_dirs, @twnb.plugin functions, MCP tools) and use what they
return.

Line form: %taskweaver SUBCOMMAND
"""
    + "\n".join("    " + text for text in SUBCOMMANDS.values())
    + """

Settings (highest first): flags > %config TaskWeaverMagics.* > environment > .env > twnb.yaml >
~/.config/twnb/config.yaml. Put the API key in the environment or in .env (OPENAI_API_KEY), never in
the notebook. See `%config TaskWeaverMagics` and `%taskweaver config`."""
)


# What changes the conversation or the settings a running Round relies on, or would copy its artifacts
# and write it as a notebook half-made (export): refused until the Round ends (run from generated code,
# or a cell queued behind the Round; step mode's panel undoes a piece of code itself). save, show,
# history, config only read.
CHANGES_THE_CONVERSATION = ("reset", "load", "export", "undo")


class RoundRunning(RuntimeError):
    """A command that would change what the running Round relies on; the text says what to do."""

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


def round_running_message(what: str) -> str:
    return (
        f"A Round is running: {what} would change what it relies on, so nothing was done. "
        "Run it in a cell of its own after the Round ends."
    )


class RoundFailedError(RuntimeError):
    """Raised by `%%taskweaver --strict` when the Round did not finish (for batch runs)."""

    def _render_traceback_(self) -> list[str]:
        # IPython shows this instead of a traceback: the reason is the whole story.
        return [f"RoundFailedError: {self}"]


_F = TypeVar("_F", bound=Callable[..., Any])


def _help_doc(function: _F) -> _F:
    function.__doc__ = HELP
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
        from twnb.notebook.notebook_session import NotebookSession

        # "The notebook's folder" is the kernel's working directory when the extension first loaded;
        # `notebook` is the one kept across `%reload_ext twnb` (see extension.py).
        self.notebook = notebook or NotebookSession(shell, workdir or os.getcwd())
        self.notebook.settings_holder = self
        self.last_display: RoundDisplay | None = None  # the last Round's (its view counts updates)
        self._recorded_rounds: RecordedRounds | None = None  # `show` of a Round only a notebook holds

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
    @argument("--latest", action="store_true", help="with `load`: the newest autosave")
    @argument("--rerun", action="store_true", help="with `load`: run the recorded code to rebuild variables")
    @argument(
        "--user-cells",
        dest="user_cells",
        action="store_true",
        help="with `load --rerun`: also run the user's own recorded cells, without asking",
    )
    @argument(
        "--force",
        action="store_true",
        help="with `save`: replace a file that holds more Rounds; with `export`: replace an existing file; "
        "with `undo`: undo although later changes touched the same variables",
    )
    @argument("subcommand", nargs="*", help="line form: " + ", ".join(SUBCOMMANDS))
    @no_var_expand
    @line_cell_magic
    @_help_doc
    def taskweaver(self, line: str = "", cell: str | None = None) -> None:
        from twnb.notebook.held_back import CellsHeldBack

        args = parse_argstring(self.taskweaver, line)
        try:
            return self._dispatch(args, cell)
        except (RoundFailedError, RoundRunning, CellsHeldBack):
            raise  # --strict, or the cells queued below held back: one line by design
        except Exception as error:
            # Expected failures are said where they happen; anything else still gets one line, not a
            # traceback in the user's notebook (the traceback goes to twnb's debug log).
            from twnb.base import get_logger
            from twnb.session import redactor_for

            get_logger(__name__).debug("a taskweaver magic failed", exc_info=True)
            text = redactor_for(self._settings_or_none()).redact(_one_line(error))
            return self._fail(f"twnb could not do that: {type(error).__name__}: {text}", args.strict)

    def _dispatch(self, args: argparse.Namespace, cell: str | None) -> None:
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
        return self._subcommand(args)

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
        from twnb.notebook.step_transform import NOT_A_STEP_CELL

        return self._fail(refusal(self.shell) or NOT_A_STEP_CELL, args.strict)

    def prepare_round(self, query: str, args: argparse.Namespace) -> Session | None:
        """The Session for this cell's Round, or None after saying why there is none."""
        resolved = self.resolve_round(query, args)
        session = None if resolved is None else self.session_for(resolved, args)
        if session is None or not self.take_mentions(session, query, args):
            return None
        return session

    def take_mentions(self, session: Session, query: str, args: argparse.Namespace) -> bool:
        """The request's @-mentions described for the Round (session/mentions.py); False after saying
        which mention names nothing (the Round does not start: no LLM call)."""
        from twnb.session import MentionError, MentionResolver

        redact = session.redactor.redact if session.redactor is not None else str
        resolver = MentionResolver(
            self.shell.user_ns, self.notebook.workdir, self.notebook.conversation, redact
        )
        try:
            session.next_mentions = [mention.to_dict() for mention in resolver.resolve(query)]
        except MentionError as error:
            self._fail(str(error), args.strict)
            return False
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
        """A Round the user steered (step mode's edits, skips, refused edits, an undo) ends by offering
        to remember it: a button with widgets, else one line; nothing is remembered without the user's
        act (remember_button.py)."""
        from twnb.notebook.round_display import has_widget_frontend
        from twnb.session import remember_offer

        rounds = self.notebook.conversation.rounds
        number = next((n for n, r in enumerate(rounds, 1) if r.id == round.id), None)
        offer = remember_offer(round, number) if number is not None else None
        if not offer:
            return
        if self.shell is None or not has_widget_frontend(self.shell):
            self._say(offer)
            return
        from twnb.notebook.remember_button import RememberButton

        RememberButton(offer, lambda: self._remember(str(number)), self.shell).show()

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

    def _subcommand(self, args: argparse.Namespace) -> None:
        words = list(args.subcommand)
        if not words:
            words = ["load"] if args.latest else ["help"]
        name, rest = words[0], words[1:]
        # --no-verify also goes with `load --rerun`: the recorded code is verified before it runs again.
        cell_flags = [
            flag
            for flag, given in (
                ("--model", args.model),
                ("--step", args.step is not None),
                ("--no-verify", args.no_verify and not (name == "load" and args.rerun)),
                ("--strict", args.strict),
                ("--timeout", args.timeout is not None),
                ("--plugin-only", args.plugin_only),
            )
            if given
        ]
        misplaced = [
            (flag, owners)
            for flag, given, owners in (
                ("--latest", args.latest, ("load",)),
                ("--rerun", args.rerun, ("load",)),
                ("--user-cells", args.user_cells, ("load",)),
                ("--force", args.force, ("save", "export", "undo")),
            )
            if given and name not in owners
        ]
        if cell_flags or misplaced:
            flags = ", ".join(cell_flags or [flag for flag, _ in misplaced])
            where = "%%taskweaver cells" if cell_flags else _one_of(misplaced[0][1])
            self._say(f"{flags}: for {where} only, not %taskweaver {name}; nothing was done.", error=True)
            return None
        handler: Callable[[list[str], argparse.Namespace], None] | None = getattr(self, f"_cmd_{name}", None)
        if handler is not None and name in CHANGES_THE_CONVERSATION and self.notebook.round_running:
            self._say(round_running_message(f"%taskweaver {name}"), error=True)
            return None
        if handler is None:
            self._say(
                f"Unknown subcommand {name!r}. Subcommands: {', '.join(SUBCOMMANDS)}. "
                "To send a request, use the cell form: %%taskweaver on the first line, the request below.",
                error=True,
            )
            return None
        return handler(rest, args)

    def _cmd_help(self, rest: list[str], args: argparse.Namespace) -> None:
        print(HELP)

    def _cmd_save(self, rest: list[str], args: argparse.Namespace) -> None:
        if len(rest) != 1:
            self._say("Usage: %taskweaver save PATH (a .yaml file) [--force]", error=True)
            return
        from twnb.session import saved_round_count

        rounds = len(self.notebook.conversation.rounds)
        held = saved_round_count(self._path(rest[0]))
        if held is not None and held > rounds and not args.force:
            # A batch run whose Rounds failed (or never ran) must not replace the good conversation.
            self._say(
                f"{rest[0]} holds {held} Rounds and this conversation has {rounds}: nothing was written. "
                f"Save elsewhere, or add --force to replace it.",
                error=True,
            )
            return
        try:
            path = self.notebook.save(self._path(rest[0]), self._settings_or_none())
        except OSError as error:
            self._say(f"Could not save to {rest[0]}: {error.strerror or error}", error=True)
            return
        except ValueError as error:
            self._say(f"Could not save to {rest[0]}: {_one_line(error)}", error=True)
            return
        self._say(f"Saved {rounds} Round{'s' if rounds != 1 else ''} to {path}")

    def _cmd_load(self, rest: list[str], args: argparse.Namespace) -> None:
        if args.latest and not rest:
            try:
                resolved = self.notebook.resolve({}, self.traitlet_values())
            except ValueError as error:
                self._say(str(error), error=True)
                return
            path = self.notebook.latest_autosave(resolved)
            if path is None:
                self._say(f"No autosave found under {self.notebook.session_dir(resolved)}.", error=True)
                return
        elif len(rest) == 1 and not args.latest:
            path = self._path(rest[0])
        else:
            self._say(
                "Usage: %taskweaver load PATH (a .yaml file or a notebook), or %taskweaver load --latest",
                error=True,
            )
            return
        settings = self._settings_or_none()
        replaced = (
            len(self.notebook.conversation.rounds),
            self.notebook.session_id,
            self.notebook.autosave_folder(settings),
        )
        own = _same_autosave(path, replaced[2])  # `load --latest` right after a load finds that one
        try:
            conversation = self.notebook.load(path, settings)
        except OSError as error:
            self._say(f"Could not load {path}: {error.strerror or error}; nothing was changed.", error=True)
            return
        except ValueError as error:
            text = _one_line(error)  # a located error starts with the file's name already
            where = "" if text.startswith(f"{path}: ") else f"{path}: "
            self._say(f"Could not load {where}{text}; nothing was changed.", error=True)
            return
        from twnb.notebook.conversation_variables import missing_variables
        from twnb.notebook.rerun_recorded import outside_lines, replaced_line

        rounds, session = len(conversation.rounds), self.notebook.session_id
        self._say(f"Loaded {rounds} Round{'s' if rounds != 1 else ''} from {path} (session {session}).")
        said = (
            "It was this kernel's own conversation, as its autosave holds it: nothing else was replaced."
            if own and replaced[0]
            else replaced_line(*replaced)
        )
        if said:
            self._say(said)
        namespace = self.shell.user_ns if self.shell is not None else {}
        for line in outside_lines(conversation, namespace):
            self._say(line)
        if args.rerun:
            self._rerun(conversation, args, settings)
        missing = missing_variables(conversation, namespace)
        if missing:
            how = (
                "ask for them again"
                if args.rerun
                else f"%taskweaver load {rest[0] if rest else '--latest'} --rerun runs the recorded code "
                "here, verified first as generated code is"
            )
            self._say(
                "Variables the conversation made that this kernel lacks: " + ", ".join(missing) + f" ({how})."
            )

    def _rerun(
        self, conversation: Conversation, args: argparse.Namespace, settings: ResolvedSettings | None
    ) -> None:
        """`load --rerun`: the recorded code again, verified; the user's own cells only if agreed."""
        from twnb.notebook.rerun_recorded import (
            ask_to_run_user_cells,
            pieces_needing_user_cells,
            rerun_recorded_code,
            user_cells_line,
            user_cells_of,
        )
        from twnb.replay import plugins_called
        from twnb.session import missing_plugin_lines, recorded_code_check

        namespace = self.shell.user_ns if self.shell is not None else {}
        cells = user_cells_of(conversation)
        agreed = bool(cells) and (args.user_cells or ask_to_run_user_cells(cells))
        held_back = []
        if cells and not agreed:
            # Said before anything runs; what would stop on a name only those cells make is not run.
            needing = pieces_needing_user_cells(conversation, namespace)
            held_back = [need.piece for need in needing]
            self._say(user_cells_line(len(cells), needing))
        check = recorded_code_check(
            settings.settings if settings is not None else None, verify=not args.no_verify
        )
        # The plugins the settings describe and the user's own @twnb.plugin functions, bound as for a
        # Round; a function a recorded cell defines runs as recorded code (the file may come from anyone).
        catalog = self.notebook.plugin_catalog(settings) if settings is not None else None
        binding: contextlib.AbstractContextManager[list[str]] = (
            catalog.bound() if catalog is not None else contextlib.nullcontext([])
        )
        with binding as problems:
            for problem in problems:
                self._say(f"Plugin {problem}", error=True)
            for line in missing_plugin_lines(plugins_called(conversation), namespace):
                self._say(line, error=True)
            summary = rerun_recorded_code(
                self.shell, conversation, user_cells=agreed, check=check, held_back=held_back
            )
        own = f", {summary.user_cells_ran} of them your own" if summary.user_cells_ran else ""
        self._say(
            f"Re-ran the recorded code of {summary.ran} cell{'s' if summary.ran != 1 else ''} here{own}."
        )
        for refused in summary.refused:
            self._say(f"  not run, verification refused it: {refused}", error=True)
        for refused in summary.guard_refused:
            self._say(f"  stopped, the runtime guard refused what it did: {refused}", error=True)
        if summary.refused or summary.guard_refused:
            self._say("  (--no-verify runs them unchecked: only for code you trust)", error=True)
        for failure in summary.failed:
            self._say(f"  raised now: {failure}", error=True)

    def _cmd_export(self, rest: list[str], args: argparse.Namespace) -> None:
        if len(rest) != 1 or not rest[0].lower().endswith(".ipynb"):
            self._say("Usage: %taskweaver export PATH.ipynb [--force]", error=True)
            return
        rounds = len(self.notebook.conversation.rounds)
        if not rounds:
            self._say("There are no Rounds to export yet; nothing was written.", error=True)
            return
        if self._path(rest[0]).exists() and not args.force:
            # It may be the user's own notebook (even the one open now): never replaced silently.
            self._say(
                f"{rest[0]} exists: nothing was written. Export elsewhere, or add --force to replace it.",
                error=True,
            )
            return
        try:
            result = self.notebook.export(self._path(rest[0]), self._settings_or_none())
        except OSError as error:
            self._say(f"Could not export to {rest[0]}: {error.strerror or error}", error=True)
            return
        except ValueError as error:
            self._say(f"Could not export to {rest[0]}: {_one_line(error)}", error=True)
            return
        self._say(f"Exported {rounds} Round{'s' if rounds != 1 else ''} to {result.path} (nothing was run).")
        for missing in result.missing_artifacts:
            self._say(f"Artifact not found (its link is left as it was): {missing}", error=True)
        for refused in result.refused_artifacts:
            self._say(f"Artifact outside the conversation's folders, not copied: {refused}", error=True)

    def _cmd_reset(self, rest: list[str], args: argparse.Namespace) -> None:
        session_id = self.notebook.reset()
        self._say(f"Started a new conversation (session {session_id}). Variables in the kernel are kept.")

    def _cmd_show(self, rest: list[str], args: argparse.Namespace) -> None:
        if len(rest) != 1:
            self._say("Usage: %taskweaver show ROUND_ID (or a Round number, or last)", error=True)
            return
        from IPython.display import display

        round = self.notebook.find_round(rest[0]) if self.notebook.conversation.rounds else None
        if round is None and self._show_recorded(rest[0]):
            return
        if not self.notebook.conversation.rounds:
            from twnb.notebook.history_table import NO_ROUNDS

            self._say(NO_ROUNDS)
            self._offer_notebook()
            return
        if round is None:
            known = ", ".join(r.id for r in self.notebook.conversation.rounds[-5:]) or "none"
            self._say(f"No Round {rest[0]!r} in this conversation (latest: {known}).", error=True)
            self._offer_notebook()
            return
        display(self._round_bundle(round), raw=True)

    def _show_recorded(self, round_id: str) -> bool:
        """A Round this session does not hold, shown as the notebook that recorded it holds it (an
        exported notebook run in a fresh kernel: recorded_round.py); nothing is loaded."""
        from IPython.display import display

        from twnb.notebook.recorded_round import RecordedRounds
        from twnb.render import artifact_previews, plan_from_round, round_bundle

        if self._recorded_rounds is None:
            self._recorded_rounds = RecordedRounds()
        found = self._recorded_rounds.find(round_id, self.notebook.workdir)
        if found is None:
            return False
        folder = found.notebook.parent
        bundle = round_bundle(
            found.round,
            session_id=found.session_id,
            conversation_id=found.conversation_id,
            plan=plan_from_round(found.round),
            previews=artifact_previews(found.round, folder),
            base_dir=folder,
        )
        display(bundle, raw=True)
        return True

    def _round_bundle(self, round: Round, *, in_cell: bool = False) -> dict[str, Any]:
        """`in_cell`: for the cell the Round ran in, which holds the images its code displayed."""
        from twnb.render import artifact_previews, plan_from_round, round_bundle

        bundle: dict[str, Any] = round_bundle(
            round,
            session_id=self.notebook.session_id,
            conversation_id=self.notebook.conversation.id,
            plan=plan_from_round(round),
            previews=artifact_previews(round, self.notebook.workdir),
            base_dir=self.notebook.workdir,
            in_cell=in_cell,
        )
        return bundle

    def _cmd_undo(self, rest: list[str], args: argparse.Namespace) -> None:
        if len(rest) > 1:
            self._say("Usage: %taskweaver undo [ROUND] [--force] (a Round number, id, or last)", error=True)
            return
        outcome = self.notebook.undo(rest[0] if rest else None, force=bool(args.force))
        self._say(outcome.line, error=not outcome.done)
        if outcome.done and outcome.round is not None:
            self._redraw_undone(outcome.round)
            self._offer_to_remember(outcome.round)

    def _redraw_undone(self, round: Round) -> None:
        """The undone Round's own output, where it ran, becomes its final view again: greyed, with the
        line of what was undone (kept so in the saved notebook)."""
        display_id = self.notebook.round_displays.get(round.id)
        if display_id is None:
            return
        from IPython.display import update_display

        update_display(self._round_bundle(round, in_cell=True), display_id=display_id, raw=True)

    def _cmd_history(self, rest: list[str], args: argparse.Namespace) -> None:
        from IPython.display import display

        from twnb.notebook.history_table import history_bundle

        display(history_bundle(self.notebook.conversation), raw=True)
        if not self.notebook.conversation.rounds:
            self._offer_notebook()

    def _offer_notebook(self) -> None:
        """A fresh kernel: offer the Rounds its notebook holds (Jupyter names it in JPY_SESSION_NAME)."""
        from twnb.notebook.notebook_offer import notebook_offer

        offer = notebook_offer(self.notebook.workdir)
        if offer:
            self._say(offer)

    def _cmd_plans(self, rest: list[str], args: argparse.Namespace) -> None:
        from IPython.display import display

        from twnb.notebook.plans_table import plans_bundle

        if not rest:
            display(plans_bundle(self.notebook.plans), raw=True)
            return
        if len(rest) != 2 or rest[0] != "recover" or not rest[1].isdigit():
            self._say("Usage: %taskweaver plans, or %taskweaver plans recover N", error=True)
            return
        if self.notebook.round_running:
            self._say(round_running_message("%taskweaver plans recover"), error=True)
            return
        try:
            plan = self.notebook.recover_plan(int(rest[1]), self._settings_or_none())
        except ValueError as error:
            self._say(str(error), error=True)
            return
        steps = len(plan.subtasks)
        plural = "s" if steps != 1 else ""
        self._say(f"Plan {rest[1]} ({steps} step{plural}) is current: the next Round continues it.")

    def _cmd_plugins(self, rest: list[str], args: argparse.Namespace) -> None:
        usage = "Usage: %taskweaver plugins, or %taskweaver plugins add NAME (a function in the notebook)"
        if rest and (len(rest) != 2 or rest[0] != "add"):
            self._say(usage, error=True)
            return
        if rest:
            self._add_plugin(rest[1])
            return
        try:
            resolved = self.notebook.resolve({}, self.traitlet_values())
        except ValueError as error:
            self._say(str(error), error=True)
            return
        if self.notebook.round_running:
            self._say(round_running_message("%taskweaver plugins"), error=True)
            return
        from IPython.display import display

        from twnb.notebook.plugins_table import plugins_bundle

        catalog = self.notebook.plugin_catalog(resolved)
        catalog.refresh()
        display(plugins_bundle(catalog.states(), self.notebook.redactor(resolved).redact), raw=True)

    def _add_plugin(self, name: str) -> None:
        namespace = getattr(self.shell, "user_ns", {}) or {}
        if not name.isidentifier():
            self._say(
                f"{name!r} is not a Python name: give the name of a function in the notebook.", error=True
            )
            return
        value = namespace.get(name)
        if value is None or not callable(value) or isinstance(value, type):
            what = "nothing" if value is None else f"a {type(value).__name__}"
            self._say(f"{name} in the notebook is {what}, not a function: define it first.", error=True)
            return
        if name not in self.notebook.plugin_names:
            self.notebook.plugin_names.append(name)
        self._say(
            f"{name} is a plugin from the next Round on (its spec comes from its signature and docstring; "
            "redefining it updates the plugin)."
        )

    def _cmd_config(self, rest: list[str], args: argparse.Namespace) -> None:
        try:
            resolved = self.notebook.resolve({}, self.traitlet_values())
        except ValueError as error:
            self._say(str(error), error=True)
            return
        from twnb.config import Confinement

        table = resolved.format_table()
        confinement = Confinement.from_environ()
        kernel = (
            confinement.describe()
            if confinement is not None
            else "not confined (the twnb-confined kernel runs generated code confined by the system)"
        )
        text = f"twnb settings (folder {resolved.workdir}):\n{table}\nkernel: {kernel}"
        print(self.notebook.redactor(resolved).redact(text))

    def _cmd_rules(self, rest: list[str], args: argparse.Namespace) -> None:
        from twnb.session import rules_in_force

        if rest:
            self._say(f"%taskweaver rules takes no arguments, got {' '.join(rest)!r}.", error=True)
            return
        try:
            resolved = self.notebook.resolve({}, self.traitlet_values())
        except ValueError as error:
            self._say(str(error), error=True)
            return
        print(rules_in_force(resolved, self.notebook.conversation).describe())

    def _cmd_remember(self, rest: list[str], args: argparse.Namespace) -> None:
        line, failed = self._remember(" ".join(rest).strip())
        self._say(line, error=failed)

    def _remember(self, words: str) -> tuple[str, bool]:
        """`remember [ROUND | "text"]` (or the offer's button): the line saying what was remembered, and
        whether nothing was."""
        from twnb.session import experience_store

        if len(words) >= 2 and words[0] == words[-1] and words[0] in "\"'":
            words = words[1:-1].strip()  # the magic's line keeps the quotes of "text"
        session = self.notebook.session
        rounds = self.notebook.conversation.rounds
        names_a_round = not words or words == "last" or words.isdigit() or any(r.id == words for r in rounds)
        try:
            if names_a_round:
                if session is None or not rounds:
                    return "No Round to remember yet: run a %%taskweaver Round first.", True
                experience = session.remember(words or None)
                what = f"the Round as exp_{experience.exp_id}.yaml (summarised by the LLM)"
            else:
                resolved = self.notebook.resolve({}, self.traitlet_values())
                experience = experience_store(resolved).remember_text(words)
                what = f"handcrafted_exp_{experience.exp_id}.yaml"
        except (ValueError, OSError) as error:
            return f"Nothing was remembered: {error}", True
        except Exception as error:  # the LLM's summary failed: the raw conversation is kept
            return f"Nothing was summarised ({type(error).__name__}: {error}); try again.", True
        folder = experience.path.parent if experience.path is not None else ""
        return f"Remembered {what} in {folder}: {experience.experience_text[:200]}", False

    def _cmd_experience(self, rest: list[str], args: argparse.Namespace) -> None:
        from twnb.session import experience_store

        try:
            store = experience_store(self.notebook.resolve({}, self.traitlet_values()))
        except ValueError as error:
            self._say(str(error), error=True)
            return
        usage = "Usage: %taskweaver experience [show ID | delete ID]"
        if rest and (len(rest) != 2 or rest[0] not in ("show", "delete")):
            self._say(usage, error=True)
            return
        if not rest:
            found = store.experiences()
            lines = [f"{len(found)} experience{'s' if len(found) != 1 else ''} in {store.folder}"]
            for each in found:
                kind = "handcrafted" if each.handcrafted else "summarised"
                lines.append(f"  {each.exp_id} ({kind}): {' '.join(each.experience_text.split())[:100]}")
            lines += [f"  not read: {problem}" for problem in store.problems]
            print("\n".join(lines))
            return
        action, exp_id = rest
        if action == "delete":
            removed = store.delete(exp_id)
            if not removed:
                self._say(
                    f"No experience {exp_id!r} in {store.folder}; see %taskweaver experience.", error=True
                )
                return
            self._say(f"Deleted {', '.join(p.name for p in removed)}.")
            return
        experience = store.find(exp_id)
        if experience is None:
            self._say(f"No experience {exp_id!r} in {store.folder}; see %taskweaver experience.", error=True)
            return
        print(f"{experience.path}\n{experience.experience_text}")

    def _cmd_trace(self, rest: list[str], args: argparse.Namespace) -> None:
        from twnb.telemetry import CAPTURE_VARIABLE, configure_tracing, content_capture, tracing

        usage = "Usage: %taskweaver trace on|off|console|otlp [URL]"
        if not rest:
            where = f" ({tracing.endpoint})" if tracing.endpoint else ""
            self._say(f"Tracing is {tracing.mode}{where}. {usage}")
            return
        mode, url = rest[0], rest[1] if len(rest) > 1 else None
        if len(rest) > 2 or (url is not None and mode.lower() != "otlp"):
            self._say(f"{usage} (only otlp takes a URL)", error=True)
            return
        if url is not None and not url.startswith(("http://", "https://")):
            self._say(f"{url!r} is not an http(s) URL, e.g. http://localhost:4318", error=True)
            return
        try:
            said = configure_tracing(mode, url)
        except (ValueError, ImportError) as error:
            self._say(str(error), error=True)
            return
        if tracing.tracer is not None and content_capture():
            said += f" Message contents are recorded, redacted ({CAPTURE_VARIABLE})."
        self._say(said)

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

    def _path(self, text: str) -> Path:
        return Path(text).expanduser()  # relative to the kernel's current directory, as `open` would be


_TRUE_WORDS = frozenset({"1", "true", "yes", "on"})  # as the settings table reads a bool


def _one_of(subcommands: tuple[str, ...]) -> str:
    """'%taskweaver load', or '%taskweaver save, export or undo'."""
    *others, last = subcommands
    return "%taskweaver " + (f"{', '.join(others)} or {last}" if others else last)


def _same_autosave(path: Path, autosave: Path | None) -> bool:
    """Whether `path` is in the autosave folder of this kernel's conversation."""
    if autosave is None or not autosave.is_dir():
        return False
    from twnb.session import rounds_folder

    try:
        return rounds_folder(path).resolve() == autosave.resolve()
    except OSError:
        return False


def _one_line(error: BaseException) -> str:
    """An error's text on one line (YAML parser messages span several)."""
    return " ".join(str(error).split())
