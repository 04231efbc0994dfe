"""`%taskweaver remember` and `experience`: the experience kept for later prompts, and the offer to
remember a Round the user steered."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from twnb.notebook.subcommand_context import SubcommandContext

if TYPE_CHECKING:
    from twnb.memory import Round

# lazy: %load_ext twnb imports this module; twnb.session (50-170 modules, ~100-250 ms),
# twnb.notebook.round_display and twnb.notebook.remember_button (the view, ipywidgets) load when
# experience is used


def remember_command(ctx: SubcommandContext, args: argparse.Namespace) -> None:
    line, failed = remember_words(ctx, " ".join(args.words).strip())
    ctx.say(line, error=failed)


def remember_words(ctx: SubcommandContext, words: str) -> tuple[str, bool]:
    """`remember [ROUND | "text"]` (or the offer's button): the line saying what was remembered, and
    whether nothing was."""
    from twnb.session import experience_store

    if len(words) >= 2 and words[0] == words[-1] and words[0] in "\"'":
        words = words[1:-1].strip()  # the magic's line keeps the quotes of "text"
    session = ctx.notebook.session
    rounds = ctx.notebook.conversation.rounds
    names_a_round = not words or words == "last" or words.isdigit() or any(r.id == words for r in rounds)
    try:
        if names_a_round:
            if session is None or not rounds:
                return "No Round to remember yet: run a %%taskweaver Round first.", True
            experience = session.remember(words or None)
            what = f"the Round as exp_{experience.exp_id}.yaml (summarised by the LLM)"
        else:
            resolved = ctx.resolve()
            experience = experience_store(resolved).remember_text(words)
            what = f"handcrafted_exp_{experience.exp_id}.yaml"
    except (ValueError, OSError) as error:
        return f"Nothing was remembered: {error}", True
    except Exception as error:  # the LLM's summary failed: the raw conversation is kept
        return f"Nothing was summarised ({type(error).__name__}: {error}); try again.", True
    folder = experience.path.parent if experience.path is not None else ""
    line = f"Remembered {what} in {folder}: {experience.experience_text[:200]}"
    if experience.path is not None:
        line += _kept_until_accepted(ctx, experience.path)
    return line, False


def _kept_until_accepted(ctx: SubcommandContext, path: Path) -> str:
    """In a confined kernel that can write the experience folder, what it writes there is quarantined
    (twnb/config/quarantine.py: no later session trusts it without the user's act from outside),
    this very experience too: said at once, with the command that makes it used."""
    from twnb.config import FolderQuarantine  # lazy: only a remembered experience asks

    quarantine = FolderQuarantine(ctx.resolve().workdir)
    if quarantine.refusal(path) is None:
        return ""
    name = quarantine.name_of(path)
    return (
        f". It is kept, but a confined kernel wrote it, so twnb uses it only after you run "
        f"`twnb trust --folder {quarantine.folder} accept {name}` in a terminal outside this kernel."
    )


def offer_to_remember(ctx: SubcommandContext, round: Round) -> None:
    """A Round the user steered (step mode's edits, skips, refused edits, an undo) ends by offering
    to remember it: a button with widgets, else one line; nothing is remembered without the user's
    act (remember_button.py)."""
    from twnb.notebook.round_display import has_widget_frontend
    from twnb.session import remember_offer

    rounds = ctx.notebook.conversation.rounds
    number = next((n for n, r in enumerate(rounds, 1) if r.id == round.id), None)
    offer = remember_offer(round, number) if number is not None else None
    if not offer:
        return
    if ctx.shell is None or not has_widget_frontend(ctx.shell):
        ctx.say(offer)
        return
    from twnb.notebook.remember_button import RememberButton

    RememberButton(offer, lambda: remember_words(ctx, str(number)), ctx.shell).show()


def experience_command(ctx: SubcommandContext, args: argparse.Namespace) -> None:
    rest: list[str] = args.words
    from twnb.session import experience_store

    try:
        store = experience_store(ctx.resolve())
    except ValueError as error:
        ctx.say(str(error), error=True)
        return
    usage = "Usage: %taskweaver experience [show ID | delete ID]"
    if rest and (len(rest) != 2 or rest[0] not in ("show", "delete")):
        ctx.say(usage, error=True)
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
            ctx.say(f"No experience {exp_id!r} in {store.folder}; see %taskweaver experience.", error=True)
            return
        ctx.say(f"Deleted {', '.join(p.name for p in removed)}.")
        return
    experience = store.find(exp_id)
    if experience is None:
        ctx.say(f"No experience {exp_id!r} in {store.folder}; see %taskweaver experience.", error=True)
        return
    print(f"{experience.path}\n{experience.experience_text}")
