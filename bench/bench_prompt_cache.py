"""How much of each role's prompt a provider's prompt cache can reuse: the share of a call's prompt that
is an exact prefix of the previous call of the same role, over the scripted 30-Round analysis
(scripted_analysis.py), beside the input tokens per call.

Providers (OpenAI, Azure, DeepSeek, vLLM, llama.cpp) reuse the longest prefix a request shares with an
earlier one. The prompt is taken as the server sees it: each message as its role, then its content.
Per role: mean and minimum share over Rounds 15-30 (Planner: both of its calls each Round; the first is
compared with the previous Round's second), and the mean input tokens of the role's calls there.

Beside it, the most any layout could reuse at the same prompt size: the share a call would keep if its
history were purely append-only, so that only what happened since the role's previous call is new (the
Planner's first call: its previous answer and the new request; its second: its own task reply and the
CodeInterpreter's post with code and output; the CodeInterpreter: its previous reply and the message
with the feedback on it, the new task and the request; each with the namespace changes it carries).
That new material is what the role has to read; the share it leaves is the ceiling for this prompt size.
Target: a mean gap to that ceiling of at most 0.05 for both roles. The share itself has no target: no
layout can pass the ceiling, which at this prompt size is well under 0.90.

With `--rules`, both roles carry the user's rules as a project's AGENTS.md and TWNB.md put them (read by
the session's own ProjectRules from a temporary folder, about 300 tokens): they sit in the system
message, so they should add to what is reused and leave the gap to the ceiling as it is.

    python bench/bench_prompt_cache.py [--rounds 30] [--from-round 15] [--rules]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pathlib import Path

from scripted_analysis import chat_tokens, scripted_calls, token_counter

from twnb.roles.round_digest import CondensePolicy
from twnb.session.project_rules import ProjectRules

# What a team writes in AGENTS.md (for every agent) and TWNB.md (for twnb alone).
AGENTS_MD = """# Working on the sales analyses

- Dates in every file here are day-first (31/01/2026); parse them with `dayfirst=True`.
- Revenue excludes returns: drop rows whose `status` is `returned` before summing `revenue`.
- Margins are `margin / revenue`, shown as percentages with one decimal.
- Regions are EMEA, AMER and APAC; `region` values outside these are data errors: report them, never
  drop them silently.
- Currency is EUR throughout; never convert.
- Product categories come from `categories.csv` (columns `sku`, `category`); join on `sku`.
- Keep intermediate frames: name them after what they hold (`sales_by_region`, not `df2`).
- Never write into `data/`; put results in `out/`.
"""
TWNB_MD = """# twnb

- Plot with plotly (`plotly.express`), not matplotlib; one figure per question.
- When a request names a month, it means the calendar month in Europe/Berlin.
- Tables in answers: at most 12 rows, sorted by revenue descending.
- Ask before running anything that takes longer than a minute on the full data.
"""


def rules_section() -> str:
    """The rules section as the session makes it, from real files."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "AGENTS.md").write_text(AGENTS_MD)
        (Path(folder) / "TWNB.md").write_text(TWNB_MD)
        return ProjectRules(Path(folder), home=Path(folder)).read().section


ROLES = {"planner_call_1": "Planner", "planner_call_2": "Planner", "code_call": "CodeInterpreter"}
# With the previous Round in full (CondensePolicy(block_rounds=1)), every call of the scripted analysis
# renders the posts added since the role's previous call as its last two messages: the role's previous
# reply, then one user turn with what followed it (see the module docstring).
NEW_MESSAGES = 2
FULL_PREVIOUS_ROUND = CondensePolicy(block_rounds=1)


def wire_text(messages: list[Any]) -> str:
    """The request as one text, in the order a chat template lays it out."""
    from twnb.llm.messages import to_openai_messages

    return "".join(f"<|{m['role']}|>{m['content']}<|end|>" for m in to_openai_messages(messages))


def shared_prefix(previous: str, current: str) -> str:
    # character by character is what a prompt cache compares (a text, not a path)
    return os.path.commonprefix([previous, current])  # noqa: RUF071


def append_only_share(messages: list[Any], full: list[Any], count: Callable[[str], int]) -> float:
    """The share of the call (`messages`) that is not new since the role's previous call: the ceiling.
    What is new is measured in `full`, the same call composed with the previous Round in full."""
    new = chat_tokens(full[-NEW_MESSAGES:], count) - 3  # -3: the request's own overhead, counted once
    return 1 - new / chat_tokens(messages, count)


def measure(
    rounds: int, first: int, count: Callable[[str], int], rules: str = ""
) -> dict[str, dict[str, float]]:
    previous: dict[str, str] = {}
    shares: dict[str, list[float]] = {"Planner": [], "CodeInterpreter": []}
    ceilings: dict[str, list[float]] = {"Planner": [], "CodeInterpreter": []}
    tokens: dict[str, list[int]] = {"Planner": [], "CodeInterpreter": []}
    full_previous = scripted_calls(rounds, FULL_PREVIOUS_ROUND, rules)
    calls = zip(scripted_calls(rounds, rules=rules), full_previous, strict=True)
    for (number, call, messages), (*_, full) in calls:
        role = ROLES[call]
        text = wire_text(messages)
        if number >= first and role in previous:
            shares[role].append(count(shared_prefix(previous[role], text)) / count(text))
            ceilings[role].append(append_only_share(messages, full, count))
            tokens[role].append(chat_tokens(messages, count))
        previous[role] = text
    return {
        role: {
            "mean": statistics.fmean(shares[role]),
            "min": min(shares[role]),
            "ceiling_mean": statistics.fmean(ceilings[role]),
            "ceiling_min": min(ceilings[role]),
            "tokens": statistics.fmean(tokens[role]),
            "max_tokens": max(tokens[role]),
        }
        for role in shares
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--from-round", type=int, default=15)
    parser.add_argument("--rules", action="store_true", help="both roles carry an AGENTS.md and a TWNB.md")
    args = parser.parse_args()
    count, how = token_counter()
    rules = rules_section() if args.rules else ""
    with_rules = f"; with rules in force ({count(rules):,} tokens)" if rules else ""
    print(f"tokens: {how}; Rounds {args.from_round}-{args.rounds} of the scripted analysis{with_rules}")
    for role, figures in measure(args.rounds, args.from_round, count, rules).items():
        print(
            f"{role:<16} cached-prefix share: mean {figures['mean']:.2f}, min {figures['min']:.2f} "
            f"| input tokens per call: mean {figures['tokens']:,.0f}, max {figures['max_tokens']:,}"
        )
        gap = figures["ceiling_mean"] - figures["mean"]
        print(
            f"{'':<16} append-only ceiling at this size: mean {figures['ceiling_mean']:.2f}, "
            f"min {figures['ceiling_min']:.2f} | mean gap to it {gap:.3f} (target <= 0.05)"
        )


if __name__ == "__main__":
    main()
