"""`%taskweaver reset`, `show`, `history`, `undo` and `plans`: the conversation's Rounds and plans."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from IPython.display import display, update_display

from twnb.notebook.experience_commands import offer_to_remember
from twnb.notebook.subcommand_context import SubcommandContext, round_running_message

if TYPE_CHECKING:
    from twnb.memory import Round

# lazy: %load_ext twnb imports this module; each command loads what it needs when it runs:
# twnb.render (71 modules, ~100 ms), twnb.notebook.history_table and twnb.notebook.plans_table (72-73
# modules), twnb.notebook.recorded_round and twnb.notebook.notebook_offer (1 module each, ~1 ms)


def reset_command(ctx: SubcommandContext, args: argparse.Namespace) -> None:
    session_id = ctx.notebook.reset()
    ctx.say(f"Started a new conversation (session {session_id}). Variables in the kernel are kept.")


def show_command(ctx: SubcommandContext, args: argparse.Namespace) -> None:
    rest: list[str] = args.words
    if len(rest) != 1:
        ctx.say("Usage: %taskweaver show ROUND_ID (or a Round number, or last)", error=True)
        return

    round = ctx.notebook.find_round(rest[0]) if ctx.notebook.conversation.rounds else None
    if round is None and _show_recorded(ctx, rest[0]):
        return
    if not ctx.notebook.conversation.rounds:
        from twnb.notebook.history_table import NO_ROUNDS

        ctx.say(NO_ROUNDS)
        _offer_notebook(ctx)
        return
    if round is None:
        known = ", ".join(r.id for r in ctx.notebook.conversation.rounds[-5:]) or "none"
        ctx.say(f"No Round {rest[0]!r} in this conversation (latest: {known}).", error=True)
        _offer_notebook(ctx)
        return
    display(_shown(ctx, _round_bundle(ctx, round)), raw=True)


def _show_recorded(ctx: SubcommandContext, round_id: str) -> bool:
    """A Round this session does not hold, shown as the notebook that recorded it holds it (an
    exported notebook run in a fresh kernel: recorded_round.py); nothing is loaded."""
    from twnb.notebook.recorded_round import RecordedRounds
    from twnb.render import artifact_previews, plan_from_round, round_bundle

    if ctx.recorded_rounds is None:
        ctx.recorded_rounds = RecordedRounds()
    found = ctx.recorded_rounds.find(round_id, ctx.notebook.workdir)
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
    display(_shown(ctx, bundle), raw=True)
    return True


def _shown(ctx: SubcommandContext, bundle: dict[str, Any]) -> dict[str, Any]:
    """A terminal prints the whole Round as text; a notebook keeps the bundle (its text a summary)."""
    from twnb.notebook.round_display import has_kernel
    from twnb.render import terminal_bundle

    return bundle if has_kernel(ctx.shell) else terminal_bundle(bundle)


def _round_bundle(ctx: SubcommandContext, round: Round, *, in_cell: bool = False) -> dict[str, Any]:
    """`in_cell`: for the cell the Round ran in, which holds the images its code displayed."""
    from twnb.render import artifact_previews, plan_from_round, round_bundle

    bundle: dict[str, Any] = round_bundle(
        round,
        session_id=ctx.notebook.session_id,
        conversation_id=ctx.notebook.conversation.id,
        plan=plan_from_round(round),
        previews=artifact_previews(round, ctx.notebook.workdir),
        base_dir=ctx.notebook.workdir,
        in_cell=in_cell,
    )
    return bundle


def undo_command(ctx: SubcommandContext, args: argparse.Namespace) -> None:
    rest: list[str] = args.words
    if len(rest) > 1:
        ctx.say("Usage: %taskweaver undo [ROUND] [--force] (a Round number, id, or last)", error=True)
        return
    outcome = ctx.notebook.undo(rest[0] if rest else None, force=bool(args.force))
    ctx.say(outcome.line, error=not outcome.done)
    if outcome.done and outcome.round is not None:
        _redraw_undone(ctx, outcome.round)
        offer_to_remember(ctx, outcome.round)


def _redraw_undone(ctx: SubcommandContext, round: Round) -> None:
    """The undone Round's own output, where it ran, becomes its final view again: greyed, with the
    line of what was undone (kept so in the saved notebook)."""
    display_id = ctx.notebook.round_displays.get(round.id)
    if display_id is None:
        return

    update_display(_round_bundle(ctx, round, in_cell=True), display_id=display_id, raw=True)


def history_command(ctx: SubcommandContext, args: argparse.Namespace) -> None:
    from twnb.notebook.history_table import history_bundle

    display(history_bundle(ctx.notebook.conversation), raw=True)
    if not ctx.notebook.conversation.rounds:
        _offer_notebook(ctx)


def _offer_notebook(ctx: SubcommandContext) -> None:
    """A fresh kernel: offer the Rounds its notebook holds (Jupyter names it in JPY_SESSION_NAME)."""
    from twnb.notebook.notebook_offer import notebook_offer

    offer = notebook_offer(ctx.notebook.workdir)
    if offer:
        ctx.say(offer)


def plans_command(ctx: SubcommandContext, args: argparse.Namespace) -> None:
    rest: list[str] = args.words

    from twnb.notebook.plans_table import plans_bundle

    if not rest:
        display(plans_bundle(ctx.notebook.plans), raw=True)
        return
    if len(rest) != 2 or rest[0] != "recover" or not rest[1].isdigit():
        ctx.say("Usage: %taskweaver plans, or %taskweaver plans recover N", error=True)
        return
    if ctx.notebook.round_running:
        ctx.say(round_running_message("%taskweaver plans recover"), error=True)
        return
    try:
        plan = ctx.notebook.recover_plan(int(rest[1]), ctx.settings_or_none())
    except ValueError as error:
        ctx.say(str(error), error=True)
        return
    steps = len(plan.subtasks)
    plural = "s" if steps != 1 else ""
    ctx.say(f"Plan {rest[1]} ({steps} step{plural}) is current: the next Round continues it.")
