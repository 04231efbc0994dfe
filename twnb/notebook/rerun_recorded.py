"""`%taskweaver load ... --rerun`: the recorded code run again on this kernel, to rebuild the variables
a loaded conversation made in another kernel.

Only code that succeeded when recorded runs, in the order it ran; its outputs are not shown (they are
in the Rounds). The user asked for it by name: nothing runs without `--rerun`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class RerunSummary:
    ran: int = 0
    failed: list[str] = field(default_factory=list)  # "Round 2: NameError: ..." for code that raised now


def rerun_recorded_code(shell: Any, conversation: Any) -> RerunSummary:
    from IPython.utils.capture import capture_output

    from twnb.replay.notebook_cells import code_piece

    summary = RerunSummary()
    for number, round in enumerate(conversation.rounds, start=1):
        for post in round.post_list:
            piece = code_piece(round.id, post)
            if piece is None or piece.failed:
                continue
            with capture_output(display=True):
                result = shell.run_cell(piece.code, store_history=False)
            summary.ran += 1
            error = result.error_before_exec or result.error_in_exec
            if error is not None:
                summary.failed.append(f"Round {number}: {type(error).__name__}: {error}")
    return summary
