"""The Round widget draws the Round's ledger as a waterfall when the Round ends."""

from __future__ import annotations

from nb_fake_clock import FakeClock
from support.nb_rounds import analysis_round

from twnb.memory.ledger import Ledger, LedgerEntry
from twnb.notebook.round_view import RoundView

LEDGER = Ledger(
    10.0,
    [
        LedgerEntry("llm", "Planner", 0.0, 2.0, "stop", "m", input_tokens=1000, output_tokens=100, cost=0.01),
        LedgerEntry("code", "CodeInterpreter", 5.0, 4.0, "success"),
    ],
)


def test_the_widget_shows_the_rounds_waterfall_when_it_ends():
    round = analysis_round()
    round.extra["ledger"] = LEDGER.to_dict()
    view = RoundView(round.user_query, clock=FakeClock())
    assert view.summary.value == ""
    view.finish(round)
    assert view.summary.value.count('class="twnb-bar"') == 2
    assert "cost 0.0100" in view.summary.value
