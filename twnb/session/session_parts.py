"""The collaborators a `Session` takes besides its roles and executor, grouped by what they are for
(twnb/session/factory.py builds them from the settings). Every part is optional: a session without
them records its Rounds, and no more.

- `RoundLimits`: how long a Round may go on, and whether each Round is autosaved.
- `Recording`: how the Rounds are recorded and observed beyond the conversation (the cassette recorded
  to, the replay served from, the LLM calls' relay, the prices for the ledger, tracing).
- `RoundContext`: what goes into each Round besides the request (the user's own cells, the notebook's
  plugins, the user's rules, the experience folder, and in a replay the recorded Rounds).
- `SessionParts`: those two, with the live kernel's undo log and the risk check of risky step mode.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from twnb.base import clip, get_logger

if TYPE_CHECKING:
    from twnb.kernel import UndoLog, UserCellSource
    from twnb.memory import EventRelay, Observer, ReplayRecord, Round
    from twnb.plugins import PluginCatalog
    from twnb.session.experience import ExperienceStore
    from twnb.session.project_rules import ProjectRules
    from twnb.session.recorded_context import RecordedRounds
    from twnb.session.risk_check import RiskCheck

logger = get_logger(__name__)

# The hook giving each Round its tracing observer, called with the Session (Any: session.py imports this
# module) and the Round.
TracingHook = Callable[[Any, "Round"], "Observer | None"]

_DRIFT_LINES = 20  # drift lines a Round's record keeps
_DRIFT_CHARS = 400


class CassetteReplay(Protocol):
    """The cassette a replay session serves its replies from (twnb.llm.cassette.ReplayClient)."""

    path: Path

    @property
    def used_up(self) -> bool: ...

    def rewind(
        self, unlike_the_recording: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None
    ) -> None: ...

    def take_drift(self) -> list[str]: ...


@dataclass(frozen=True)
class RoundLimits:
    """`max_posts`: internal posts a Round may make before it fails; `timeout`: seconds one execution may
    take (None: no limit); `autosave`: each Round written to the session's folder as it goes."""

    max_posts: int = 20
    timeout: float | None = 600.0
    autosave: bool = True


@dataclass(frozen=True)
class Recording:
    """`cassette_path`: where the LLM calls are recorded (None: not recorded); `replay`: the cassette the
    replies are served from (None: a live session); `llm_events`: the chat client's calls, connected to
    the Round's observers while it runs; `prices` per model for the ledger; `tracing`: the hook giving
    each Round its tracing observer."""

    cassette_path: Path | None = None
    replay: CassetteReplay | None = None
    llm_events: EventRelay | None = None
    prices: Mapping[str, Mapping[str, float]] | None = None
    tracing: TracingHook | None = None

    def round_tracer(self, session: Any, round: Round) -> Observer | None:
        """The Round's tracing observer, if tracing is on; tracing that fails to start never stops a
        Round."""
        if self.tracing is None:
            return None
        try:
            return self.tracing(session, round)
        except Exception:
            logger.warning("tracing could not start for Round %s; the Round goes on", round.id, exc_info=True)
            return None

    def replay_record(self, rewound: bool, redact: Callable[[str], str]) -> ReplayRecord | None:
        """What a replayed Round says of itself: the cassette, whether it started over, and each call
        whose request drifted from the recording (bounded; the recorded reply was served anyway)."""
        if self.replay is None:
            return None
        record: ReplayRecord = {"cassette": self.replay.path.name}
        if rewound:
            record["rewound"] = True
        drift = self.replay.take_drift()
        if drift:
            lines = [clip(redact(line), _DRIFT_CHARS) for line in drift[:_DRIFT_LINES]]
            if len(drift) > _DRIFT_LINES:
                lines.append(f"... and {len(drift) - _DRIFT_LINES} more")
            record["drift"] = lines
        return record


@dataclass(frozen=True)
class RoundContext:
    """`user_cells`: the user's own cells since the previous Round (recorded in the next); `plugins`: the
    notebook's plugins (owned by whoever built them: never closed by the session); `rules`: the user's
    AGENTS.md and TWNB.md (None: no rules are read); `experience`: the experience folder (None: no
    experience is used or kept); `recorded`: a replay's recorded Rounds, whose context a replayed Round
    uses instead (None: not a replay)."""

    user_cells: UserCellSource | None = None
    plugins: PluginCatalog | None = None
    rules: ProjectRules | None = None
    experience: ExperienceStore | None = None
    recorded: RecordedRounds | None = None


@dataclass(frozen=True)
class SessionParts:
    """`undo_log`: the live kernel's runs, for `undo` (None: code runs elsewhere); `risk`: risky step
    mode's grades (None: every piece of code is graded as needing a click)."""

    recording: Recording = field(default_factory=Recording)
    context: RoundContext = field(default_factory=RoundContext)
    undo_log: UndoLog | None = None
    risk: RiskCheck | None = None
