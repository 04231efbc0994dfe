"""`%taskweaver save`, `load` (and `load --rerun`) and `export`: the conversation to and from files."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from twnb.notebook.subcommand_context import SubcommandContext, one_line

if TYPE_CHECKING:
    from twnb.config import ResolvedSettings
    from twnb.memory import Conversation

# lazy: %load_ext twnb imports this module; each command loads what it needs when it runs:
# twnb.session (50-155 modules, ~100-250 ms), twnb.replay (2 modules, ~3 ms),
# twnb.notebook.rerun_recorded and twnb.notebook.conversation_variables (1 module each, ~1-2 ms)


def save_command(ctx: SubcommandContext, args: argparse.Namespace) -> None:
    rest: list[str] = args.words
    if len(rest) != 1:
        ctx.say("Usage: %taskweaver save PATH (a .yaml file) [--force]", error=True)
        return
    from twnb.session import saved_round_count

    rounds = len(ctx.notebook.conversation.rounds)
    held = saved_round_count(ctx.path(rest[0]))
    if held is not None and held > rounds and not args.force:
        # A batch run whose Rounds failed (or never ran) must not replace the good conversation.
        ctx.say(
            f"{rest[0]} holds {held} Rounds and this conversation has {rounds}: nothing was written. "
            f"Save elsewhere, or add --force to replace it.",
            error=True,
        )
        return
    try:
        path = ctx.notebook.save(ctx.path(rest[0]), ctx.settings_or_none())
    except OSError as error:
        ctx.say(f"Could not save to {rest[0]}: {error.strerror or error}", error=True)
        return
    except ValueError as error:
        ctx.say(f"Could not save to {rest[0]}: {one_line(error)}", error=True)
        return
    ctx.say(f"Saved {rounds} Round{'s' if rounds != 1 else ''} to {path}")


def load_command(ctx: SubcommandContext, args: argparse.Namespace) -> None:
    rest: list[str] = args.words
    if args.latest and not rest:
        try:
            resolved = ctx.resolve()
        except ValueError as error:
            ctx.say(str(error), error=True)
            return
        path = ctx.notebook.latest_autosave(resolved)
        if path is None:
            ctx.say(f"No autosave found under {ctx.notebook.session_dir(resolved)}.", error=True)
            return
    elif len(rest) == 1 and not args.latest:
        path = ctx.path(rest[0])
    else:
        ctx.say(
            "Usage: %taskweaver load PATH (a .yaml file or a notebook), or %taskweaver load --latest",
            error=True,
        )
        return
    settings = ctx.settings_or_none()
    replaced = (
        len(ctx.notebook.conversation.rounds),
        ctx.notebook.session_id,
        ctx.notebook.autosave_folder(settings),
    )
    own = _same_autosave(path, replaced[2])  # `load --latest` right after a load finds that one
    try:
        conversation = ctx.notebook.load(path, settings)
    except OSError as error:
        ctx.say(f"Could not load {path}: {error.strerror or error}; nothing was changed.", error=True)
        return
    except ValueError as error:
        text = one_line(error)  # a located error starts with the file's name already
        where = "" if text.startswith(f"{path}: ") else f"{path}: "
        ctx.say(f"Could not load {where}{text}; nothing was changed.", error=True)
        return
    from twnb.notebook.conversation_variables import missing_variables
    from twnb.notebook.rerun_recorded import outside_lines, replaced_line

    rounds, session = len(conversation.rounds), ctx.notebook.session_id
    ctx.say(f"Loaded {rounds} Round{'s' if rounds != 1 else ''} from {path} (session {session}).")
    said = (
        "It was this kernel's own conversation, as its autosave holds it: nothing else was replaced."
        if own and replaced[0]
        else replaced_line(*replaced)
    )
    if said:
        ctx.say(said)
    namespace = ctx.shell.user_ns if ctx.shell is not None else {}
    for line in outside_lines(conversation, namespace):
        ctx.say(line)
    if args.rerun:
        _rerun(ctx, conversation, args, settings)
    missing = missing_variables(conversation, namespace)
    if missing:
        how = (
            "ask for them again"
            if args.rerun
            else f"%taskweaver load {rest[0] if rest else '--latest'} --rerun runs the recorded code "
            "here, verified first as generated code is"
        )
        ctx.say(
            "Variables the conversation made that this kernel lacks: " + ", ".join(missing) + f" ({how})."
        )


def _rerun(
    ctx: SubcommandContext,
    conversation: Conversation,
    args: argparse.Namespace,
    settings: ResolvedSettings | None,
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

    namespace = ctx.shell.user_ns if ctx.shell is not None else {}
    cells = user_cells_of(conversation)
    agreed = bool(cells) and (args.user_cells or ask_to_run_user_cells(cells))
    held_back = []
    if cells and not agreed:
        # Said before anything runs; what would stop on a name only those cells make is not run.
        needing = pieces_needing_user_cells(conversation, namespace)
        held_back = [need.piece for need in needing]
        ctx.say(user_cells_line(len(cells), needing))
    check = recorded_code_check(
        settings.settings if settings is not None else None, verify=not args.no_verify
    )
    # The plugins the settings describe and the user's own @twnb.plugin functions, bound as for a
    # Round; a function a recorded cell defines runs as recorded code (the file may come from anyone).
    catalog = ctx.notebook.plugin_catalog(settings) if settings is not None else None
    binding: contextlib.AbstractContextManager[list[str]] = (
        catalog.bound() if catalog is not None else contextlib.nullcontext([])
    )
    with binding as problems:
        for problem in problems:
            ctx.say(f"Plugin {problem}", error=True)
        for line in missing_plugin_lines(plugins_called(conversation), namespace):
            ctx.say(line, error=True)
        summary = rerun_recorded_code(
            ctx.shell, conversation, user_cells=agreed, check=check, held_back=held_back
        )
    own = f", {summary.user_cells_ran} of them your own" if summary.user_cells_ran else ""
    ctx.say(f"Re-ran the recorded code of {summary.ran} cell{'s' if summary.ran != 1 else ''} here{own}.")
    for refused in summary.refused:
        ctx.say(f"  not run, verification refused it: {refused}", error=True)
    for refused in summary.guard_refused:
        ctx.say(f"  stopped, the runtime guard refused what it did: {refused}", error=True)
    if summary.refused or summary.guard_refused:
        ctx.say("  (--no-verify runs them unchecked: only for code you trust)", error=True)
    for failure in summary.failed:
        ctx.say(f"  raised now: {failure}", error=True)


def export_command(ctx: SubcommandContext, args: argparse.Namespace) -> None:
    rest: list[str] = args.words
    if len(rest) != 1 or not rest[0].lower().endswith(".ipynb"):
        ctx.say("Usage: %taskweaver export PATH.ipynb [--force]", error=True)
        return
    rounds = len(ctx.notebook.conversation.rounds)
    if not rounds:
        ctx.say("There are no Rounds to export yet; nothing was written.", error=True)
        return
    if ctx.path(rest[0]).exists() and not args.force:
        # It may be the user's own notebook (even the one open now): never replaced silently.
        ctx.say(
            f"{rest[0]} exists: nothing was written. Export elsewhere, or add --force to replace it.",
            error=True,
        )
        return
    try:
        result = ctx.notebook.export(ctx.path(rest[0]), ctx.settings_or_none())
    except OSError as error:
        ctx.say(f"Could not export to {rest[0]}: {error.strerror or error}", error=True)
        return
    except ValueError as error:
        ctx.say(f"Could not export to {rest[0]}: {one_line(error)}", error=True)
        return
    ctx.say(f"Exported {rounds} Round{'s' if rounds != 1 else ''} to {result.path} (nothing was run).")
    for missing in result.missing_artifacts:
        ctx.say(f"Artifact not found (its link is left as it was): {missing}", error=True)
    for refused in result.refused_artifacts:
        ctx.say(f"Artifact outside the conversation's folders, not copied: {refused}", error=True)


def _same_autosave(path: Path, autosave: Path | None) -> bool:
    """Whether `path` is in the autosave folder of this kernel's conversation."""
    if autosave is None or not autosave.is_dir():
        return False
    from twnb.session import rounds_folder

    try:
        return rounds_folder(path).resolve() == autosave.resolve()
    except OSError:
        return False
