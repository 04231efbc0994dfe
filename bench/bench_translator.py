"""Translator throughput: is streaming a reply into a Post linear in its length, and fast enough?

A CodeInterpreter-style reply (a thought, then Python code with quotes, escapes and some non-ASCII
text, as models write it) of 40 KB and 400 KB is fed in 4-char and 1-char chunks to:

- ``raw_text_to_post`` (no observer): the Post, no events;
- ``raw_text_to_post`` with a counting observer: also one delta event per piece (the widget's case);
- ``parse_llm_output_stream``: the (key, delta, is_end) tuples only;
- a naive baseline that re-parses the whole buffer on every chunk with jiter's partial mode
  (``jiter.from_json(buf, partial_mode="trailing-strings")``), the quadratic re-parse docs/architecture.md
  warns against. It is quadratic, so each baseline run stops after BASELINE_BUDGET_S seconds and reports its
  rate over the part it got through (marked "capped"); that rate flatters it, since the rest would be slower
  still.

Times are the process's CPU time (``time.process_time``), so other load on the machine does not
distort them. Prints one line per figure: MB/s (1 MB = 10^6 bytes of reply text) per size, and the
400 KB / 40 KB time ratio (~10 means linear, ~100 quadratic). Target: >= 5 MB/s for
raw_text_to_post at both sizes with 4-char chunks.

    /tmp/venv0/bin/python bench/bench_translator.py
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import jiter

from twnb.roles.translator import PostTranslator

SIZES_KB = (40, 400)
CHUNK_SIZES = (4, 1)
REPEATS = 3
BASELINE_BUDGET_S = 5.0

translator = PostTranslator()


def make_reply(size: int) -> str:
    lines, length, i = [], 0, 0
    while length < size:
        lines.append(f'    df["col_{i}"] = df["price"].apply(lambda v: round(v * 1.2, 2))  # en €, naïve\n')
        lines.append(f'    print(f"row {{i}}:\\t{{df.iloc[{i}]}}")\n')
        length += len(lines[-1]) + len(lines[-2])
        i += 1
    code = "import pandas as pd\n\ndef build(df):\n" + "".join(lines)
    reply = {"thought": "Compute the derived columns, then print a few rows.", "reply_type": "python"}
    reply["reply_content"] = code
    return json.dumps({"response": reply}, ensure_ascii=False)


class Counter:
    def __init__(self) -> None:
        self.count = 0

    def on_event(self, event: object) -> None:
        self.count += 1


def run_post(chunks: list[str]) -> None:
    translator.raw_text_to_post(chunks, "CodeInterpreter")


def run_post_observed(chunks: list[str]) -> None:
    translator.raw_text_to_post(chunks, "CodeInterpreter", Counter())


def run_parse(chunks: list[str]) -> None:
    for _ in translator.parse_llm_output_stream(chunks):
        pass


def best_time(run: Callable[[list[str]], None], chunks: list[str]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.process_time()
        run(chunks)
        times.append(time.process_time() - start)
    return min(times)


def baseline(chunks: list[str]) -> tuple[float, int, bool]:
    """(seconds, bytes of reply processed, capped?) for the re-parse-everything baseline."""
    buf = bytearray()
    start = time.process_time()
    deadline = start + BASELINE_BUDGET_S
    for n, chunk in enumerate(chunks, 1):
        buf += chunk.encode()
        jiter.from_json(bytes(buf), partial_mode="trailing-strings")
        if n % 64 == 0 and time.process_time() > deadline:
            return time.process_time() - start, len(buf), True
    return time.process_time() - start, len(buf), False


def main() -> None:
    methods: dict[str, Callable[[list[str]], None]] = {
        "raw_text_to_post": run_post,
        "raw_text_to_post+observer": run_post_observed,
        "parse_llm_output_stream": run_parse,
    }
    print(
        f"translator benchmark: CPU time, best of {REPEATS}; "
        f"baseline capped at {BASELINE_BUDGET_S:.0f} s CPU per run"
    )
    for chunk_size in CHUNK_SIZES:
        seconds: dict[tuple[str, int], float] = {}
        for size_kb in SIZES_KB:
            reply = make_reply(size_kb * 1000)
            nbytes = len(reply.encode())
            chunks = [reply[i : i + chunk_size] for i in range(0, len(reply), chunk_size)]
            figures = []
            for name, run in methods.items():
                t = best_time(run, chunks)
                seconds[(name, size_kb)] = t
                figures.append(f"{name} {nbytes / t / 1e6:.2f} MB/s")
            t, done, capped = baseline(chunks)
            # A capped run's whole time is extrapolated as quadratic (time ~ length^2): an estimate.
            seconds[("baseline", size_kb)] = t * (nbytes / done) ** 2 if capped else t
            note = f" (capped: {done / nbytes:.0%} of the reply in {t:.1f} s)" if capped else ""
            figures.append(f"jiter re-parse baseline {done / t / 1e6:.3f} MB/s{note}")
            print(f"{size_kb} KB reply, {chunk_size}-char chunks: " + " | ".join(figures))
        ratios = []
        for name in [*methods, "baseline"]:
            ratio = seconds[(name, SIZES_KB[1])] / seconds[(name, SIZES_KB[0])]
            ratios.append(f"{name} {ratio:.1f}")
        ratios[-1] += " (estimated: the 400 KB run was capped and extrapolated as quadratic)"
        print(f"400 KB / 40 KB time ratio, {chunk_size}-char chunks (~10 = linear): " + " | ".join(ratios))


if __name__ == "__main__":
    main()
