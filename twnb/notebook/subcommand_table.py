"""`%taskweaver SUBCOMMAND`: the one table of subcommands, each with its own flags, parser and help.

`%taskweaver help`, `%taskweaver SUBCOMMAND --help`, the magic's `%taskweaver?` and the refusal of a
flag given to a subcommand it does not belong to are all made from this table (as IPython's
`magic_arguments` gives each magic its parser). The subcommands themselves live by idea in
file_commands.py, round_commands.py, setting_commands.py and experience_commands.py.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from IPython.core.magic_arguments import MagicArgumentParser

from twnb.notebook.experience_commands import experience_command, remember_command
from twnb.notebook.file_commands import export_command, load_command, save_command
from twnb.notebook.round_commands import (
    history_command,
    plans_command,
    reset_command,
    show_command,
    undo_command,
)
from twnb.notebook.setting_commands import config_command, plugins_command, rules_command, trace_command

if TYPE_CHECKING:
    from twnb.notebook.subcommand_context import SubcommandContext


@dataclass(frozen=True)
class Flag:
    """A flag of one subcommand (a switch: `store_true`). `only_with`: only when that flag is given too;
    otherwise the flag is not this subcommand's (`load --no-verify` goes with `--rerun`). `used_with`:
    the flag it is meant for, said in the help but not enforced (`load --user-cells` with `--rerun`)."""

    name: str
    help: str
    only_with: str | None = None
    used_with: str | None = None

    @property
    def dest(self) -> str:
        return self.name.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class Subcommand:
    """One line-form subcommand: `usage` (its name and arguments) and `text` (what it does; lines end
    with "\\n") make its line in `%taskweaver help`; `words` describes its positional arguments;
    `changes_conversation`: refused while a Round runs."""

    name: str
    usage: str
    text: str
    run: Callable[[SubcommandContext, argparse.Namespace], None]
    words: str = ""
    flags: tuple[Flag, ...] = ()
    changes_conversation: bool = False

    def help_line(self) -> str:
        """Its line in `%taskweaver help`: the usage, then the text in a column."""
        head = self.usage.ljust(_COLUMN) if len(self.usage) < _COLUMN else self.usage + "  "
        return head + self.text.replace("\n", "\n" + " " * (_COLUMN + 4))

    def parser(self) -> MagicArgumentParser:
        """Its own parser: its flags and its words (argparse errors are IPython's one-line UsageError)."""
        parser = MagicArgumentParser(
            prog=f"%taskweaver {self.name}",
            usage=f"taskweaver {self.usage}",  # IPython's help formatter puts the % before it
            description=" ".join(self.text.split()),
        )
        for flag in self.flags:
            meant = flag.used_with or flag.only_with
            text = f"{flag.help} (with {meant})" if meant else flag.help
            parser.add_argument(flag.name, dest=flag.dest, action="store_true", help=text)
        parser.add_argument("words", nargs="*", metavar="ARGUMENTS", help=self.words or argparse.SUPPRESS)
        return parser

    def parse(self, line: str, *, named: bool = True) -> argparse.Namespace:
        """The magic's line read by this subcommand's parser; `named`: its first word is the name."""
        parsed: argparse.Namespace = self.parser().parse_argstring(line)
        parsed.words = parsed.words[1:] if named else parsed.words
        return parsed

    def help(self) -> str:
        """Its parser's help, its usage line as `%taskweaver help` shows one (not IPython's `::` block)."""
        return "Usage: " + self.parser().format_help().removeprefix("::\n\n  ").rstrip()

    def owns(self, flag: str, args: argparse.Namespace) -> bool:
        """Whether `flag`, as given in `args`, is one of this subcommand's."""
        own = next((each for each in self.flags if each.name == flag), None)
        return own is not None and (own.only_with is None or _given(args, own.only_with))


_COLUMN = 21  # where a subcommand's text starts in `%taskweaver help`


def _help_command(ctx: SubcommandContext, args: argparse.Namespace) -> None:
    """`help`: the whole magic's help; `help SUBCOMMAND`: that subcommand's own (its parser's)."""
    named = find(args.words[0]) if args.words else None
    print(named.help() if named is not None else HELP)


_FORCE = "--force"
SUBCOMMANDS: tuple[Subcommand, ...] = (
    Subcommand(
        "save",
        "save PATH [--force]",
        "write the conversation as TaskWeaver YAML (during a Round: as it stands);\n"
        "a file holding more Rounds is replaced only with --force",
        save_command,
        words="PATH: a .yaml file",
        flags=(Flag(_FORCE, "replace a file that holds more Rounds"),),
    ),
    Subcommand(
        "load",
        "load PATH | --latest",
        "read a saved conversation (YAML or notebook) or the newest autosave;\n"
        "--rerun runs its recorded code here to rebuild the variables it made,\n"
        "verified first as generated code is (--no-verify: unchecked); your own\n"
        "recorded cells run too when you agree (--user-cells: without asking)",
        load_command,
        words="PATH: a .yaml file or a notebook",
        flags=(
            Flag("--latest", "the newest autosave"),
            Flag("--rerun", "run the recorded code to rebuild variables"),
            Flag(
                "--user-cells", "also run the user's own recorded cells, without asking", used_with="--rerun"
            ),
            Flag("--no-verify", "run the recorded code unchecked", only_with="--rerun"),
        ),
        changes_conversation=True,
    ),
    Subcommand("reset", "reset", "start a new, empty conversation", reset_command, changes_conversation=True),
    Subcommand(
        "show",
        "show ROUND_ID",
        "show a recorded Round again (also a number or `last`); never calls the LLM",
        show_command,
        words="ROUND_ID: a Round's id, number or `last`",
    ),
    Subcommand("history", "history", "the Rounds of this conversation as a table", history_command),
    Subcommand(
        "export",
        "export PATH.ipynb [--force]",
        "write the conversation as a notebook (Rounds, code, recorded\n"
        "outputs); an existing file is replaced only with --force",
        export_command,
        words="PATH.ipynb: the notebook to write",
        flags=(Flag(_FORCE, "replace an existing file"),),
        changes_conversation=True,
    ),
    Subcommand(
        "undo",
        "undo [ROUND] [--force]",
        "put the kernel back as it was before the Round (default: the last):\n"
        "its variables removed or restored, files it made moved to twnb-undone/,\n"
        "files it overwrote restored; refused when later changes touched the same\n"
        "variables, unless --force. The Round stays in the record, marked undone",
        undo_command,
        words="ROUND: a Round's number, id or `last`",
        flags=(Flag(_FORCE, "undo although later changes touched the same variables"),),
        changes_conversation=True,
    ),
    Subcommand(
        "config",
        "config",
        "effective settings and where each came from (keys are never shown)",
        config_command,
    ),
    Subcommand(
        "trace",
        "trace on|off|console|otlp [URL]",
        "OpenTelemetry spans of each Round (needs twnb[otel])",
        trace_command,
        words="on, off, console or otlp, and otlp's URL",
    ),
    Subcommand(
        "plans",
        "plans [recover N]",
        "the conversation's plans; recover N: the next Round continues plan N",
        plans_command,
        words="recover N: make plan N current",
    ),
    Subcommand(
        "plugins",
        "plugins [add NAME]",
        "every plugin, its source and state (and why not loaded);\n"
        "add NAME makes the notebook's function NAME a plugin from the next Round on",
        plugins_command,
        words="add NAME: a function in the notebook",
    ),
    Subcommand(
        "rules",
        "rules",
        "the rules in force (AGENTS.md, TWNB.md in this folder and its parents up\n"
        "to the project's root), from which files, with their token cost",
        rules_command,
    ),
    Subcommand(
        "remember",
        'remember [ROUND | "text"]',
        "keep a Round (default: the last) as experience, summarised by\n"
        "the LLM (raw_exp_<id>.yaml, exp_<id>.yaml), or your own words\n"
        "(handcrafted_exp_<id>.yaml); relevant experience goes into later prompts",
        remember_command,
        words='ROUND (a number, id or `last`) or "text" to remember',
    ),
    Subcommand(
        "experience",
        "experience [show ID | delete ID]",
        "the experience kept in experience_dir",
        experience_command,
        words="show ID or delete ID",
    ),
    Subcommand(
        "help",
        "help [SUBCOMMAND]",
        "this help; with a subcommand's name, its usage and flags",
        _help_command,
        words="SUBCOMMAND: one of the names above",
    ),
)
SUBCOMMAND_NAMES = tuple(each.name for each in SUBCOMMANDS)
_BY_NAME = {each.name: each for each in SUBCOMMANDS}

# The cell form's flags (the Round's): refused on any subcommand that does not own them.
CELL_FLAGS = ("--model", "--step", "--no-verify", "--strict", "--timeout", "--plugin-only")


def find(name: str) -> Subcommand | None:
    return _BY_NAME.get(name)


def line_flags() -> list[tuple[str, str]]:
    """Every subcommand flag once (first seen in the order `load`'s come, then the rest), with the
    help the whole magic's parser gives it: each owner's own, "with `owner`: ...", joined."""
    order = [flag.name for flag in _BY_NAME["load"].flags] + [
        flag.name for each in SUBCOMMANDS for flag in each.flags
    ]
    found: list[tuple[str, str]] = []
    for name in dict.fromkeys(order):
        if name in CELL_FLAGS:  # a cell flag some subcommand also takes: the cell form declares it
            continue
        owned = [(each.name, flag) for each in SUBCOMMANDS for flag in each.flags if flag.name == name]
        found.append((name, "; ".join(f"with `{_owner(owner, flag)}`: {flag.help}" for owner, flag in owned)))
    return found


def misplaced_flags(name: str, args: argparse.Namespace) -> str | None:
    """The refusal of flags given to subcommand `name` that are not its own (cell flags first), or None."""
    subcommand = find(name)

    def owned(flag: str) -> bool:
        return subcommand is not None and subcommand.owns(flag, args)

    cell = [flag for flag in CELL_FLAGS if _given(args, flag) and not owned(flag)]
    if cell:
        where = "%%taskweaver cells"
        flags = cell
    else:
        flags = [flag for flag, _ in line_flags() if _given(args, flag) and not owned(flag)]
        if not flags:
            return None
        owners = [each.name for each in SUBCOMMANDS if any(own.name == flags[0] for own in each.flags)]
        where = _one_of(tuple(owners))
    return f"{', '.join(flags)}: for {where} only, not %taskweaver {name}; nothing was done."


def _owner(subcommand: str, flag: Flag) -> str:
    """'load', or 'load --rerun' for a flag meant for use with another."""
    meant = flag.used_with or flag.only_with
    return f"{subcommand} {meant}" if meant else subcommand


def _given(args: argparse.Namespace, flag: str) -> bool:
    value: Any = getattr(args, flag.lstrip("-").replace("-", "_"), None)
    return value is not None and value is not False and value != ""


def _one_of(subcommands: tuple[str, ...]) -> str:
    """'%taskweaver load', or '%taskweaver save, export or undo'."""
    *others, last = subcommands
    return "%taskweaver " + (f"{', '.join(others)} or {last}" if others else last)


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
    + "\n".join("    " + each.help_line() for each in SUBCOMMANDS)
    + """

Settings (highest first): flags > %config TaskWeaverMagics.* > environment > .env > twnb.yaml >
~/.config/twnb/config.yaml. Put the API key in the environment or in .env (OPENAI_API_KEY), never in
the notebook. See `%config TaskWeaverMagics` and `%taskweaver config`."""
)
