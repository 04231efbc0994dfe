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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from twnb.base import get_logger
from twnb.memory import Round
from twnb.session.conversation_store import load_conversation_file

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


__all__ = ["RecordedRounds", "recorded_conversation_path"]
