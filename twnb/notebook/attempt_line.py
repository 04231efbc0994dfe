"""One quiet line in the Round's cell for code that raised, instead of a red traceback.

The traceback of a failed attempt is kept in its Post and shown inside the Round's display; the cell
itself gets at most this one line ("attempt 1 raised KeyError: 'sales'; revised", or "attempt 2 was
refused by the runtime guard: starting a process (os.system: ls) is not allowed ...; revised"), a
plain-text display updated in place as attempts fail. A Round that ends failed or interrupted ends the
line with its reason, so the cell says clearly how it ended without an `error` output that reads as a
crash.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from IPython.display import display

from twnb.memory import AttachmentType, Event, Post, PostCommitted
from twnb.render import replay_summary, state_label

if TYPE_CHECKING:
    from IPython.display import DisplayHandle

    from twnb.memory import Round

_VALUE_CHARS = 120


def attempt_failure(post: Post) -> str | None:
    """ "raised KeyError: 'sales'" when the code of `post` ran and raised (or hit its time limit), "was
    refused by the runtime guard: ..." when the guard refused what it did, else None."""
    for attachment in post.get_attachment(AttachmentType.execution_result):
        extra = attachment.extra if isinstance(attachment.extra, dict) else {}
        if extra.get("status") == "refused":
            refusals = extra.get("refusals") or []
            messages = [str(r.get("message", "")) for r in refusals if isinstance(r, dict)]
            return "was refused by the runtime guard: " + (
                "; ".join(messages) or str(extra.get("error") or "")
            )
        if extra.get("status") in ("error", "timeout") and extra.get("error"):
            return "raised " + str(extra["error"])
    return None


def ending_line(round: Round) -> str | None:
    """The line a Round that did not finish ends with; None for a finished Round."""
    if round.state == "finished":
        return None
    reason = str((round.extra or {}).get("failure_reason") or f"the Round ended {round.state}")
    if state_label(round.state, reason) == "interrupted":
        return reason
    return f"Round failed: {reason}"


def replay_line(round: Round) -> str | None:
    """The quiet line's part for a replayed Round: started over, or drifted from its recording."""
    return replay_summary(round.to_dict())


class AttemptLine:
    """Observer of a Round in a notebook cell: keeps the one line describing attempts that raised."""

    def __init__(self, coder: str = "CodeInterpreter") -> None:
        self.coder = coder
        self.parts: list[str] = []
        self._attempt = 0
        self._handle: DisplayHandle | None = None

    @property
    def text(self) -> str:
        return "; ".join(self.parts)

    def on_event(self, event: Event) -> None:
        if not isinstance(event, PostCommitted):
            return
        post = event.post
        if post.send_from != self.coder:
            self._attempt = 0  # the next code is a new step: its attempts count from 1
            return
        self._attempt += 1
        error = attempt_failure(post)
        if error is None:
            return
        first_line = " ".join(error.split())
        if len(first_line) > _VALUE_CHARS:
            first_line = first_line[: _VALUE_CHARS - 1] + "…"
        outcome = "revised" if post.send_to == self.coder else f"handed back to {post.send_to}"
        self.parts.append(f"attempt {self._attempt} {first_line}; {outcome}")
        self._show()

    def finish(self, round: Round) -> None:
        """End the line with how the Round ended, when it did not finish, and how a replay differed
        from its recording (no warning box: the Round's record lists the drift)."""
        ending = ending_line(round)
        replayed = replay_line(round)
        if ending is None and replayed is None:
            return
        self.parts = ([ending] if ending is not None else self.parts) + ([replayed] if replayed else [])
        self._show()

    def _show(self) -> None:
        bundle = {"text/plain": self.text}
        if self._handle is None:
            self._handle = display(bundle, raw=True, display_id=True)
        else:
            self._handle.update(bundle, raw=True)
