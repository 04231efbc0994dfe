"""How a Round ends when it fails: the sentence `round.extra["failure_reason"]` gets, and what a code post
whose result never came back records instead."""

from __future__ import annotations

from collections.abc import Callable

from twnb.base import get_logger
from twnb.llm import LLMError
from twnb.roles import RoleFailure
from twnb.session.code_request import NeedsApproval, UserStopped

logger = get_logger(__name__)

INTERRUPTED = "Interrupted; every post made so far is kept."
STOPPED = "Interrupted: stopped by the user; every post made so far is kept."
CANCELLED = "Cancelled before it finished; every post made so far is kept."


class RoundLimitReached(Exception):
    """The Round used up its internal posts without answering the User."""


def failure_reason(error: BaseException, redact: Callable[[str], str]) -> str:
    """The sentence `round.extra["failure_reason"]` gets for what ended the Round."""
    if isinstance(error, UserStopped):
        return STOPPED
    if isinstance(error, NeedsApproval):
        return redact(str(error))
    if isinstance(error, KeyboardInterrupt):
        return INTERRUPTED
    if isinstance(error, GeneratorExit):
        return CANCELLED
    if isinstance(error, RoundLimitReached):
        return str(error)
    if isinstance(error, RoleFailure):
        return redact(str(error))
    if isinstance(error, LLMError):
        return redact(f"The LLM call failed: {error}")
    if isinstance(error, Exception):
        logger.exception("the Round failed on an unexpected error")
        return redact(f"Unexpected error: {type(error).__name__}: {error}")
    return redact(f"Stopped by {type(error).__name__}: {error}")


def no_result(error: BaseException) -> tuple[str, str]:
    """(execution_status, execution_result text) for code whose result never came back."""
    if isinstance(error, UserStopped):
        return "NONE", "Not run: the user stopped the Round before this code ran."
    if isinstance(error, NeedsApproval):
        return "NONE", str(error)
    if isinstance(error, KeyboardInterrupt):
        return "NONE", "No result: the Round was interrupted before the code's result came back."
    if isinstance(error, GeneratorExit):
        return "NONE", "No result: the Round was cancelled before the code's result came back."
    return "FAILURE", f"No result: running the code failed ({type(error).__name__}: {error})."
