"""What a Round starts with besides the request, from the session's `RoundContext` (session_parts.py):
the user's own cells since the previous Round, the user's rules, the experiences relevant to the
request and the notebook's plugins, each put into both roles' prompts and the Round's record; and
`%taskweaver remember`, which adds a Round to the experience folder."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from itertools import takewhile
from typing import TYPE_CHECKING

from twnb.base import create_id, get_logger
from twnb.llm import collect_reply
from twnb.memory import Conversation, Observer, PluginEntry, Round, StatusChanged
from twnb.roles import CodeInterpreter, Planner
from twnb.session.experience import SUMMARY_PROMPT, Experience, round_transcript
from twnb.session.project_rules import RulesInForce, written_by_rounds
from twnb.session.round_undo import find_round
from twnb.session.rules_record import rules_record, with_texts
from twnb.session.session_archive import SessionArchive
from twnb.session.session_parts import RoundContext

if TYPE_CHECKING:
    from twnb.kernel import Executor

logger = get_logger(__name__)


class RoundSetup:
    """`context`: what goes into each Round; `planner` and `code_interpreter`: the roles whose prompts
    carry it; `archive`: the conversation (redacted as it keeps it); `executor`: whose working folder the
    conversation's code wrote into (those files are not rules)."""

    def __init__(
        self,
        context: RoundContext,
        planner: Planner,
        code_interpreter: CodeInterpreter,
        archive: SessionArchive,
        executor: Executor,
    ) -> None:
        self.context = context
        self.planner = planner
        self.code_interpreter = code_interpreter
        self.archive = archive
        self.executor = executor
        self.rules_in_force = RulesInForce()  # what the latest Round's prompts carried
        # (the conversation, the entries) its plugins section was last made from: made again only when
        # either changed (a reset or a load brings another conversation)
        self._plugin_entries: tuple[int, list[int]] = (0, [])
        self.trust_lines: list[str] = []  # files the quarantine refused, for the Round's trust notes
        self._trust_said: set[str] = set()

    def record_user_cells(self, round: Round) -> None:
        """The user's own cells since the previous Round go into this one's record (redacted), so a
        replay can run them before the Round's code."""
        if self.context.user_cells is None:
            return
        taken = self.context.user_cells.take()
        if taken.cells:
            round.extra["user_cells"] = self.archive.redaction.data([cell.to_dict() for cell in taken.cells])
        if taken.omitted:
            round.extra["user_cells_omitted"] = taken.omitted

    def use_rules(self, round: Round) -> None:
        """The user's rules as they are now, in both roles' system prompts and in the Round's record;
        files the conversation's code wrote are left out (and named in the record). A replayed Round
        uses those its recording used, none if it used none (recorded_context.py)."""
        in_force = self._recorded_rules(round)
        if in_force is None:
            rules = self.context.rules
            if rules is None:
                return
            in_force = rules.read(written_by_rounds(self.archive.conversation, self.executor.workdir))
        self.rules_in_force = in_force
        self._trust(in_force.quarantined)
        section = in_force.section
        self.planner.prompt.rules_section = section
        self.code_interpreter.prompt.rules_section = section
        if in_force.files or in_force.written_by_code:
            earlier = list(takewhile(lambda r: r is not round, self.archive.conversation.rounds))
            round.extra["rules"] = rules_record(in_force, earlier)  # the texts once while unchanged

    def _recorded_rules(self, round: Round) -> RulesInForce | None:
        """In a replay, the rules the recorded Round's prompts carried; None when not known (not a
        replay, no such Round, or a record that kept no rule texts): then the files are read."""
        recorded = self._recorded_round(round)
        if recorded is None:
            return None
        data = recorded.extra.get("rules")
        if not isinstance(data, dict):
            return RulesInForce()
        recorded_rounds = self.context.recorded.rounds() if self.context.recorded is not None else []
        whole = with_texts(data, recorded_rounds)
        return RulesInForce.from_record(whole) if whole is not None else None

    def use_experience(self, round: Round) -> None:
        """The experiences relevant to the request, for both roles' prompts and the Round's record; a
        replayed Round uses those its recording used, none if it used none (recorded_context.py)."""
        recorded = self._recorded_round(round)
        if recorded is not None:
            used = recorded.extra.get("experiences")
            if used:
                round.extra["experiences"] = copy.deepcopy(used)
            return
        experience = self.context.experience
        if experience is None:
            return
        found = experience.retrieve(round.user_query)
        self._trust(experience.take_refused())
        note = experience.take_note()
        if note:
            round.extra.setdefault("context_notes", []).append(note)
        if found:
            ranked_by = experience.ranked_by
            round.extra["experiences"] = [
                {"exp_id": e.exp_id, "score": score, "text": e.experience_text, "ranked_by": ranked_by}
                for e, score in found
            ]

    def _trust(self, lines: Iterable[str]) -> None:
        """Files refused by the quarantine, each line said once (in the Round's `trust_notes`)."""
        for line in lines:
            if line not in self._trust_said:
                self._trust_said.add(line)
                self.trust_lines.append(line)

    def take_trust_lines(self) -> list[str]:
        lines, self.trust_lines = self.trust_lines, []
        return lines

    def recorded_round_for(self, query: str, *, starts_over: bool) -> Round | None:
        """In a replay, the recorded Round a Round asked `query` now would replay, if known (the magic
        describes the request's mentions from it, before the Round starts); `starts_over`: that Round
        begins a new conversation (a used-up cassette rewinds)."""
        if self.context.recorded is None:
            return None
        index = 0 if starts_over else len(self.archive.conversation.rounds)
        return self.context.recorded.round_at(index, self.archive.redaction.text(query.strip()))

    def _recorded_round(self, round: Round) -> Round | None:
        """In a replay, the recorded Round this one replays (same place, same request), if known."""
        if self.context.recorded is None:
            return None
        return self.context.recorded.round_at(len(self.archive.conversation.rounds) - 1, round.user_query)

    def start_plugins(self, round: Round, plugin_only: bool, watcher: Observer) -> None:
        """The Round's plugins: loaded the first time (the folders, the MCP servers), the notebook's
        functions looked at again; what could not be loaded is said once, in the Round
        (`plugin_problems`) and as a status; the conversation's `plugins:` section lists what the
        session has. The roles hear whether the Round is plugin-only."""
        self.planner.start_round(plugin_only=plugin_only)
        self.code_interpreter.start_round(plugin_only=plugin_only)
        if plugin_only:
            round.extra["plugin_only"] = True
        plugins = self.context.plugins
        if plugins is None:
            return
        try:
            problems = plugins.refresh()
        except Exception as error:  # a broken plugin source must not stop the Round
            logger.exception("loading plugins failed")
            problems = [f"plugins: loading failed ({type(error).__name__}: {error})"]
        entries = plugins.conversation_entries()
        conversation = self.archive.conversation
        made_from = (id(conversation), [id(e) for e in entries])
        # A loaded conversation's list stays while this session has no plugins.
        if made_from != self._plugin_entries and (entries or self._plugin_entries[0] == id(conversation)):
            redacted = [self.archive.redaction.data(entry.to_dict()) for entry in entries]  # once per change
            conversation.plugins = [PluginEntry.from_yaml_content(entry) for entry in redacted]
            self.archive.autosave_plugins()
        self._plugin_entries = made_from
        if problems:
            said = [self.archive.redaction.text(f"Plugin {problem}") for problem in problems]
            round.extra["plugin_problems"] = said
            for line in said:
                watcher.on_event(StatusChanged(line))

    def remember(self, ref: str | None) -> Experience:
        """The Round `ref` (None: the last) saved in the experience folder and summarised (see
        Session.remember). Raises ValueError with what to do."""
        experience = self.context.experience
        if experience is None:
            raise ValueError("No experience folder is set (experience_dir).")
        round = find_round(self.archive.conversation, ref or "last")
        if round is None:
            raise ValueError(f"No Round {ref or 'yet'} to remember: see %taskweaver history.")
        exp_id = create_id()
        kept = Conversation.init()
        kept.add_round(round)
        redaction = self.archive.redaction
        raw = experience.save_raw(redaction.data(kept.to_dict()), exp_id)
        transcript = redaction.text(round_transcript(round))
        turn = self.planner.turn
        messages = [
            {"role": "system", "content": SUMMARY_PROMPT},
            {"role": "user", "content": transcript},
        ]
        reply = collect_reply(turn.client.stream(messages, model=turn.model, role="Experience"))
        return experience.save_summary(exp_id, reply.text, raw)
