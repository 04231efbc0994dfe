"""What the Planner's and the CodeInterpreter's prompt builders share: requests as `Msg` lists, the
stable prefix (system prompt and rendered examples), the condensed past, and appending to the last
user turn.

Prompts are built as `twnb.llm.messages.Msg` (AgentScope's shape) and turned into the openai format
in one place only, by `LLMTurn` right before the call (`to_openai_messages`): thinking blocks are
dropped there, never sent back. Turns are plain text, so the request is byte-for-byte what a dict
built by hand would be (the cassette hashes and provider prompt caching depend on that).
"""

from __future__ import annotations

from collections.abc import Sequence

from twnb.base import clip
from twnb.llm import ContentBlock, Msg, TextBlock, ThinkingBlock
from twnb.memory import Post, Round
from twnb.roles.namespace_delta import NamespaceSnapshot
from twnb.roles.prompt_fit import FULL, PromptFit
from twnb.roles.prompt_library import PromptTemplates
from twnb.roles.round_digest import (
    CondensePolicy,
    HistoryLayout,
    failure_reason,
    history_layout,
    undone_note,
)


def user_msg(name: str, text: str) -> Msg:
    return Msg(name, "user", text)


def assistant_msg(post: Post, text: str) -> Msg:
    """The role's own earlier reply, with the reasoning it came with as a thinking block: the Msg
    is the whole turn, and the conversion to openai drops the thinking."""
    blocks: list[ContentBlock] = []
    reasoning = post.extra.get("reasoning") if isinstance(post.extra, dict) else None
    if isinstance(reasoning, str) and reasoning:
        blocks.append(ThinkingBlock(type="thinking", thinking=reasoning))
    blocks.append(TextBlock(type="text", text=text))
    return Msg(post.send_from, "assistant", blocks)


def append_user_text(messages: list[Msg], name: str, text: str, *, merge: bool = True) -> None:
    """Add `text` as a user turn; with `merge`, into a user turn just before it (some servers need
    turns to alternate), separated by a blank line."""
    last = messages[-1] if messages else None
    if merge and last is not None and last.role == "user" and isinstance(last.content, str):
        last.content += "\n\n" + text
    else:
        messages.append(user_msg(name, text))


def append_to_last_user(messages: list[Msg], text: str) -> None:
    """`text` after a blank line at the end of the last message, if that is a user turn (the namespace
    summary's place: the end of the prompt, so everything before it stays cacheable)."""
    if text and messages and messages[-1].role == "user" and isinstance(messages[-1].content, str):
        messages[-1].content += "\n\n" + text


class ChatPrompt:
    """The common half of a role's prompt builder; a subclass sets `_system`, `_examples`, `_digests = {}`
    and `_namespace = NamespaceSnapshot()` in its `__post_init__` and says how to digest a Round
    (`digest_round`).

    Cache-friendly order: what never changes (system, examples), then the history, which between
    condensation steps only grows at its end (round_digest.history_layout), with the namespace snapshot
    after the condensed Rounds; last what changes every call (the namespace's changes, the request)."""

    templates: PromptTemplates
    policy: CondensePolicy
    # The plugins' section of the system message (the role sets it before composing; "" for none):
    # a section of its own, after the stable instructions, changing only when the plugins offered do.
    plugin_section: str = ""
    # The user's rules (AGENTS.md, TWNB.md; the session sets it at each Round, "" for none): right after
    # the role's own instructions, since it changes only when a rule file does.
    rules_section: str = ""
    _system: str
    _examples: list[Msg]
    _digests: dict[tuple[str, bool], tuple[Round, str]]
    _namespace: NamespaceSnapshot

    @property
    def system_prompt(self) -> str:
        return self._system

    def prefix(self, fit: PromptFit = FULL) -> list[Msg]:
        """The system message (with the user's rules and the plugins' section, if any) and the examples
        (unless `fit` leaves them out), the same text on every call (the example Msgs are shared between
        calls: read them, never change them)."""
        examples = self._examples if fit.examples else []
        sections = [self._system, self.rules_section, self.plugin_section]
        system = "\n\n".join(s for s in sections if s)
        return [Msg("system", "system", system), *examples]

    def digest_round(self, round: Round, *, one_line: bool) -> str:
        raise NotImplementedError(f"{type(self).__name__}.digest_round")

    def lists_in_full(self, full: Sequence[Round]) -> bool:
        """Whether the first of the Rounds shown in full opens with its item in the list of condensed
        Rounds (the list's header is then shown even with no Round condensed yet)."""
        return False

    def keeps_in_full(self, round: Round) -> bool:
        """Whether the previous Round stays in full while the next one runs, although the policy
        digests it (`block_rounds` 0): the role needs more of it than its digest."""
        return False

    def layout(self, rounds: list[Round], fit: PromptFit = FULL) -> HistoryLayout:
        """Which of `rounds` (the current one last) this role sees in which form."""
        keep = len(rounds) > 1 and self.keeps_in_full(rounds[-2])
        return history_layout(rounds, fit.policy or self.policy, keep_previous=keep)

    def condensed_past(
        self, rounds: list[Round], summary: str, fit: PromptFit = FULL
    ) -> tuple[str, list[Round], str]:
        """(the head of the history: digests of the older Rounds and the namespace snapshot, the Rounds
        to render in full with the current one last, the namespace changes for the last message).
        A `fit` that clips the summary sends it whole at the head (clipped) with no changes after."""
        layout = self.layout(rounds, fit)
        digest = [self.templates.fill("omitted_rounds", count=str(layout.omitted))] if layout.omitted else []
        digest += [d for r in layout.one_line if (d := self._digest(r, one_line=True))]
        digest += [d for r in layout.condensed if (d := self._digest(r, one_line=False))]
        # The snapshot changes with the one-line tier (every `condensed_step` Rounds), so it goes first.
        if fit.summary_chars is None:
            snapshot, changes = self._namespace.split(layout.snapshot_key, summary)
        else:  # fitted to a small context: no caching to keep, the summary as it is now, clipped
            clipped = clip(summary.strip(), fit.summary_chars, count=True) if fit.summary_chars else ""
            snapshot, changes = NamespaceSnapshot().split(None, clipped)
        parts = [snapshot] if snapshot else []
        if digest or self.lists_in_full(layout.full):
            parts.append("\n".join([self.templates.text("condensed_header"), *digest]))
        head = "\n\n".join(parts) + "\n" if parts else ""
        return head, layout.full, changes

    def output_caps(self, full: Sequence[Round], fit: PromptFit = FULL) -> dict[str, int | None]:
        """How much of a code output each full Round shows: all of it for the current Round (unless
        `fit` clips every output)."""
        caps: dict[str, int | None] = {
            r.id: (None if r is full[-1] else self.policy.recent_output_chars) for r in full
        }
        if fit.output_chars is not None:
            caps = {key: min(cap or fit.output_chars, fit.output_chars) for key, cap in caps.items()}
        return caps

    @staticmethod
    def failure_note(round: Round, current: Round) -> str:
        """Said after an earlier Round shown in full that failed, so its missing answer is not a
        mystery, or that the user undid."""
        if round is current:
            return ""
        notes = [undone_note(round)] if round.undone else []
        if round.state == "failed":
            notes.insert(0, f"(This round failed: {failure_reason(round).rstrip('.')}. Its code did run.)")
        return "\n".join(notes)

    def _digest(self, round: Round, *, one_line: bool) -> str:
        """A Round's digest, remembered while the same (cached, read-only) view object is passed in."""
        cached = self._digests.get((round.id, one_line))
        if cached is not None and cached[0] is round:
            return cached[1]
        text = self.digest_round(round, one_line=one_line)
        self._digests[(round.id, one_line)] = (round, text)
        return text


__all__ = [
    "ChatPrompt",
    "append_to_last_user",
    "append_user_text",
    "assistant_msg",
    "user_msg",
]
