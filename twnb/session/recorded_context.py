"""The Rounds a replayed cassette was recorded with, so that a replay builds its prompts from the context
its recording used (the experiences, the user's rules), not from what the replaying machine holds today.

A cassette replays the model's side of a conversation; the prompts are composed again. A Round's
experiences come from the experience folder and its rules from AGENTS.md and TWNB.md: on another machine,
or once the folder has changed, a replay would send other prompts than the recording did (drift) and
could differ silently. What the recording used is in its Rounds (`Round.extra`: `experiences`,
`rules`), so a replayed Round takes it from the recorded Round at the same place in the conversation,
when that one was asked the same request. The recorded conversation is the one saved with the cassette:
`x.yaml` beside `x.cassette.yaml` (`%taskweaver save`), or the Rounds autosaved in the session folder a
`cassette.yaml` was recorded in. Without it (a cassette copied alone, another request), the Round uses
today's context, and a difference shows as drift in the Round's record.

The request's @-mentions are described by the magic before the Round starts, from the live namespace
and folder: in a replay it takes the descriptions the recorded Round's prompt carried
(`Round.extra["mentions"]`, the text as the prompt had it), so a frame with other rows or a changed file
does not make the replay drift, nor a mention that names nothing today stop it. Where today's would
differ, one line in the Round says so (`replayed_mentions`): the replayed code runs on today's objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from twnb.base import get_logger
from twnb.memory import Round
from twnb.session.conversation_store import load_conversation_file
from twnb.session.mentions import MentionResolver

logger = get_logger(__name__)

CASSETTE_SUFFIX = ".cassette.yaml"
SESSION_CASSETTE = "cassette.yaml"  # a recording session's own cassette, beside its `rounds` folder


def recorded_conversation_path(cassette: Path) -> Path | None:
    """Where the conversation recorded with `cassette` is saved, if anywhere."""
    if cassette.name.endswith(CASSETTE_SUFFIX):
        saved = cassette.with_name(cassette.name.removesuffix(CASSETTE_SUFFIX) + ".yaml")
        if saved.is_file():
            return saved
    if cassette.name == SESSION_CASSETTE and (cassette.parent / "rounds").is_dir():
        return cassette.parent / "rounds"
    return None


@dataclass
class RecordedRounds:
    """The recorded conversation of a replayed `cassette`, read the first time a Round asks."""

    cassette: Path
    _rounds: list[Round] | None = field(default=None, init=False, repr=False)

    def rounds(self) -> list[Round]:
        if self._rounds is None:
            self._rounds = self._read()
        return self._rounds

    def round_at(self, index: int, user_query: str) -> Round | None:
        """The recorded Round at `index` (0: the conversation's first), if it was asked `user_query`."""
        rounds = self.rounds()
        if 0 <= index < len(rounds) and rounds[index].user_query == user_query:
            return rounds[index]
        return None

    def _read(self) -> list[Round]:
        path = recorded_conversation_path(self.cassette)
        if path is None:
            return []
        try:
            return list(load_conversation_file(path).rounds)
        except (OSError, ValueError) as error:
            # The replay goes on with today's context; drift will say where it differs.
            logger.warning("the conversation recorded with %s could not be read: %s", self.cassette, error)
            return []


@dataclass(frozen=True)
class RoundMentions:
    """What a Round's @-mentions add to its prompt (`Mention.to_dict()` each), and the line to say in
    the Round when a replay described them as recorded but they hold something else today ("": no)."""

    mentions: list[dict[str, str]]
    note: str = ""


def replayed_mentions(resolver: MentionResolver, request: str, recorded: Round | None) -> RoundMentions:
    """The mentions of `request` for the next Round: as `recorded` described them when the Round replays
    it (none if it had none), else as `resolver` describes them now (MentionError for one that names
    nothing, as in a live Round)."""
    if recorded is None:
        return RoundMentions([mention.to_dict() for mention in resolver.resolve(request)])
    used = [
        {"mention": str(m["mention"]), "kind": str(m["kind"]), "text": str(m["text"])}
        for m in recorded.extra.get("mentions") or []
        if isinstance(m, dict) and {"mention", "kind", "text"} <= m.keys()
    ]
    today = resolver.describe(request)
    changed, gone = [], []
    for m in used:
        if m["mention"] not in today:
            continue  # not in today's request as written (a redacted request): nothing to compare
        live = today[m["mention"]]
        if live is None:
            gone.append(m["mention"])
        elif live.text != m["text"]:
            changed.append(m["mention"])
    return RoundMentions(used, _drift_note(changed, gone))


def _drift_note(changed: list[str], gone: list[str]) -> str:
    """One line for the mentions whose live object differs from the recording's description."""
    parts = []
    if changed:
        parts.append(f"{', '.join(changed)} {'has' if len(changed) == 1 else 'have'} changed")
    if gone:
        parts.append(f"{', '.join(gone)} {'names' if len(gone) == 1 else 'name'} nothing now")
    if not parts:
        return ""
    return (
        f"Since the recording, {' and '.join(parts)}: the replay's prompt describes "
        f"{'it' if len(changed) + len(gone) == 1 else 'them'} as recorded, and its code runs on what the "
        "notebook holds today."
    )


__all__ = ["RecordedRounds", "RoundMentions", "recorded_conversation_path", "replayed_mentions"]
