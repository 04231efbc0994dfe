"""Why the cells queued below a Round do not run, and the error that makes the kernel drop them.

The toolbar's Interrupt on a plain Python cell ends it with an error (KeyboardInterrupt), and the kernel
then drops the cells queued below it (Run All): measured in JupyterLab 4.6 with ipykernel 7.4
(tests/browser/test_lab_interrupt_queue.py). A Round catches the interrupt, to end interrupted with
every post kept and its final output written; the cell would then end without an error and the queued
cells would run on the state the interrupt left. So a Round that was interrupted, that the user
stopped in step mode, or whose code they skipped ends its cell with one line of error (`CellsHeldBack`)
after its final output, as an interrupted plain cell ends, and the Round says why
(`Round.extra["held_back_cells"]`, a note in every view). A Round that failed for any other reason
lets the queued cells run, as before (`--strict` raises for those).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.render import HELD_BACK_CELLS, state_label

if TYPE_CHECKING:
    from twnb.memory import Round

# Each follows the label "Cells below not run: " (the cell's error line and the Round's note).
STOPPED_CELLS = (
    "You stopped this Round; the cells queued below it may rely on what it did not do. Run them when "
    "you are ready."
)
SKIPPED_CELLS = (
    "You skipped code in this Round; the cells queued below it may rely on what that code would have "
    "made. Run them when you are ready."
)
INTERRUPTED_CELLS = (
    "This Round was interrupted; the cells queued below it may rely on what it did not finish. Run them "
    "when you are ready."
)


class CellsHeldBack(RuntimeError):
    """Ends a Round's cell as an interrupt ends a plain cell: the kernel then runs none of the cells
    queued below it. The text says why, in one line (no traceback)."""

    def _render_traceback_(self) -> list[str]:
        return [f"Cells below not run: {self}"]


def held_back_reason(round: Round, *, stopped: bool = False, skipped: bool = False) -> str | None:
    """Why the cells queued below `round` should not run, or None when they may: the user stopped it
    (step mode), skipped code in it (step mode), or it was interrupted."""
    if stopped:
        return STOPPED_CELLS
    if skipped:
        return SKIPPED_CELLS
    if state_label(str(round.state), (round.extra or {}).get("failure_reason")) == "interrupted":
        return INTERRUPTED_CELLS
    return None


def raise_if_held_back(round: Round) -> None:
    """End the cell with `CellsHeldBack` when the Round says the queued cells must not run."""
    reason = (round.extra or {}).get(HELD_BACK_CELLS)
    if reason:
        raise CellsHeldBack(reason)
