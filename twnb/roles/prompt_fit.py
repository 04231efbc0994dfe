"""Fitting a role's prompt to the model's context, before it is sent.

When the model's context is known (twnb/llm/context_window.py: the ``context_size`` setting, what the
server says, or its last context error), a prompt gets a budget: the context less room for the reply.
The role composes its prompt as usual (`FULL`); one over budget is composed again, cut harder at each
level, until it fits:

1. the namespace summary clipped, and the history condensed sooner (Rounds to digests, then to one
   line);
2. the few-shot examples left out, every earlier Round one line, the current Round's outputs clipped;
3. no namespace summary, earlier Rounds only counted, outputs clipped harder.

What is cut is what the model can do without: the notebook still holds every variable, and the
current Round's request, plan and code stay whole. A prompt that fits at none of them fails the Round
at once (`PromptTooLong`), saying the numbers and what to change, rather than sending what the server
would refuse or cut. A budget learned only from an earlier context error is not enforced: the prompt
is sent anyway (the server may have been restarted with a bigger context).

The seam is `compose(fit)`: each role's prompt builder takes a `PromptFit` and knows how to apply
it (chat_prompt.py); `run_fitted` does the rest, and fits once more when the server's context error
taught something new (its size, or how many characters a token is).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from twnb.llm import LLMContextExceeded, Msg, PromptBudget, context_hint, messages_text, to_openai_messages
from twnb.memory import NullObserver, Observer, PostRetry
from twnb.roles.role import RoleFailure
from twnb.roles.round_digest import CondensePolicy

if TYPE_CHECKING:
    from twnb.roles.llm_turn import LLMTurn, TurnResult

__all__ = ["FIT_LEVELS", "FULL", "PromptFit", "PromptTooLong", "fit_prompt", "run_fitted"]


@dataclass(frozen=True)
class PromptFit:
    """How hard a prompt is cut (see the module docstring); `FULL` cuts nothing."""

    level: int = 0
    summary_chars: int | None = None  # the namespace summary clipped to this many characters
    policy: CondensePolicy | None = None  # a history condensed sooner than the role's own policy
    examples: bool = True  # the few-shot examples kept
    output_chars: int | None = None  # every code output shown clipped to this many characters


FULL = PromptFit()
FIT_LEVELS = (
    FULL,
    PromptFit(
        1,
        summary_chars=1500,
        policy=CondensePolicy(block_rounds=0, condensed_rounds=1, condensed_step=1, oneline_rounds=6),
    ),
    PromptFit(
        2,
        summary_chars=600,
        policy=CondensePolicy(block_rounds=0, condensed_rounds=0, condensed_step=1, oneline_rounds=3),
        examples=False,
        output_chars=1500,
    ),
    PromptFit(
        3,
        summary_chars=0,
        policy=CondensePolicy(block_rounds=0, condensed_rounds=0, condensed_step=1, oneline_rounds=0),
        examples=False,
        output_chars=400,
    ),
)


class PromptTooLong(RoleFailure):
    """No cut made the prompt fit the model's context; the message has the numbers and the fixes."""

    def __init__(self, role: str, tokens: int, budget: PromptBudget) -> None:
        context = budget.context
        super().__init__(
            f"The {role}'s prompt does not fit the model's context: it needs ~{tokens:,} tokens, and the "
            f"{context.tokens:,}-token context ({context.source}) leaves {budget.prompt_tokens:,} once "
            f"{budget.reply_tokens:,} are kept for the reply; that is with the history condensed, the "
            f"namespace summary and the examples left out. {context_hint()} A smaller max_tokens setting "
            "keeps less for the reply."
        )
        self.tokens = tokens
        self.budget = budget


def prompt_tokens(messages: list[Msg], budget: PromptBudget) -> int:
    return budget.estimate(to_openai_messages(messages))


def fit_prompt(
    compose: Callable[[PromptFit], list[Msg]], budget: PromptBudget | None, role: str
) -> list[Msg]:
    """The prompt `compose` makes at the first level that fits `budget` (no budget: as it is)."""
    messages = compose(FULL)
    if budget is None:
        return messages
    tokens = prompt_tokens(messages, budget)
    for fit in FIT_LEVELS[1:]:
        if tokens <= budget.prompt_tokens:
            return messages
        messages = compose(fit)
        tokens = prompt_tokens(messages, budget)
    if tokens <= budget.prompt_tokens or not budget.enforced:
        return messages
    raise PromptTooLong(role, tokens, budget)


def run_fitted(
    turn: LLMTurn,
    compose: Callable[[PromptFit], list[Msg]],
    *,
    post_id: str,
    send_to: str,
    observer: Observer | None = None,
) -> TurnResult:
    """`turn` run with its prompt fitted to the model's context; when the server answers that it did
    not fit and its error taught something new, fitted again and sent once more."""
    messages = fit_prompt(compose, turn.budget(), turn.role)
    try:
        return turn.run(messages, post_id=post_id, send_to=send_to, observer=observer)
    except LLMContextExceeded as exceeded:
        chars = len(messages_text(to_openai_messages(messages)))
        context = turn.context
        if context is None or not context.learn(
            turn.model, exceeded.context_tokens, exceeded.prompt_tokens, chars
        ):
            raise
        size = exceeded.context_tokens or "?"
        reason = f"the prompt did not fit the model's context ({size} tokens): fitted to it"
    (observer or NullObserver()).on_event(PostRetry(post_id=post_id, reason=reason))
    messages = fit_prompt(compose, turn.budget(), turn.role)
    return turn.run(messages, post_id=post_id, send_to=send_to, observer=observer)
