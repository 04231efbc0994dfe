"""Notebook-layer figures: extension load cost and widget traffic while a reply streams.

    /tmp/venv0/bin/python bench/bench_notebook.py [--repeat 7]

1. `import twnb` + `%load_ext twnb` versus `import ipywidgets` alone, each timed inside a fresh
   subprocess that already has an InteractiveShell (as a kernel does), median of N runs, and the ratio.
2. A 40 KB reply streamed as 4-character tokens through the real RoundView (real ipywidgets, no
   frontend), with every comm message counted at `Widget._send`: messages per second of stream at
   100 tokens/s (a fake clock, so the figure does not depend on this machine's speed), the same
   without the throttle, and the real time from the first token to its first widget message.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_SHELL = "from IPython.core.interactiveshell import InteractiveShell\nip = InteractiveShell.instance()\n"
_LOAD_TWNB = _SHELL + (
    "import time\nt0 = time.perf_counter()\nimport twnb\nip.run_line_magic('load_ext', 'twnb')\n"
    "t1 = time.perf_counter()\nimport sys\n"
    "print(t1 - t0, int('openai' in sys.modules), int('ipywidgets' in sys.modules))\n"
)
_IMPORT_WIDGETS = _SHELL + (
    "import time\nt0 = time.perf_counter()\nimport ipywidgets\n"
    "t1 = time.perf_counter()\nprint(t1 - t0, 0, 1)\n"
)

STREAM_BYTES = 40_000
TOKEN_CHARS = 4
TOKENS_PER_SECOND = 100.0


def _timed(code: str) -> tuple[float, list[int]]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    seconds, *flags = out.stdout.split()
    return float(seconds), [int(f) for f in flags]


def bench_load(repeat: int) -> None:
    twnb_times, widget_times, flags = [], [], [0, 0]
    for _ in range(repeat):  # interleaved so machine noise hits both alike
        seconds, flags = _timed(_LOAD_TWNB)
        twnb_times.append(seconds)
        widget_times.append(_timed(_IMPORT_WIDGETS)[0])
    t, w = statistics.median(twnb_times), statistics.median(widget_times)
    print(f"import twnb + %load_ext twnb: {t * 1000:.1f} ms (median of {repeat})")
    print(f"import ipywidgets alone:       {w * 1000:.1f} ms (median of {repeat})")
    print(f"ratio twnb load / ipywidgets import: {t / w:.2f}")
    print(f"after %load_ext twnb: openai imported={bool(flags[0])}, ipywidgets imported={bool(flags[1])}")


class _FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _stream(rate_hz: float) -> dict[str, float]:
    import ipywidgets

    from twnb.memory import MessageDelta, PostStarted, RoundStarted
    from twnb.notebook.round_view import RoundView

    sent: list[float] = []
    original = ipywidgets.Widget._send

    def counting_send(self, msg, buffers=None):  # every comm message a widget sends
        sent.append(time.perf_counter())
        return original(self, msg, buffers)

    clock = _FakeClock()
    view = RoundView("stream 40 KB", clock=clock, rate_hz=rate_hz)
    view.on_event(RoundStarted("round-1", "stream 40 KB"))
    view.on_event(PostStarted("post-1", "Planner", "User"))
    tokens = STREAM_BYTES // TOKEN_CHARS
    ipywidgets.Widget._send = counting_send
    try:
        started = time.perf_counter()
        for i in range(tokens):
            view.on_event(MessageDelta("post-1", "x" * TOKEN_CHARS, i == tokens - 1))
            clock.now += 1.0 / TOKENS_PER_SECOND
        cpu = time.perf_counter() - started
    finally:
        ipywidgets.Widget._send = original
    stream_seconds = tokens / TOKENS_PER_SECOND
    return {
        "tokens": tokens,
        "messages": len(sent),
        "updates": view.throttle.updates,
        "per_second": len(sent) / stream_seconds,
        "first_ms": (sent[0] - started) * 1000 if sent else float("nan"),
        "cpu_ms": cpu * 1000,
    }


def bench_stream() -> None:
    throttled = _stream(10.0)
    unthrottled = _stream(1e9)
    print(
        f"40 KB stream, {throttled['tokens']} tokens at {TOKENS_PER_SECOND:.0f}/s: "
        f"{throttled['messages']} widget messages ({throttled['updates']} throttled updates), "
        f"{throttled['per_second']:.1f} messages/s"
    )
    ratio = unthrottled["messages"] / throttled["messages"]
    print(
        f"same stream without the throttle: {unthrottled['messages']} widget messages, "
        f"{unthrottled['per_second']:.1f} messages/s (ratio {ratio:.0f}x)"
    )
    print(f"first token to first widget message: {throttled['first_ms']:.2f} ms (real time)")
    print(
        f"view CPU for the whole stream: {throttled['cpu_ms']:.0f} ms throttled, "
        f"{unthrottled['cpu_ms']:.0f} ms unthrottled"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    bench_load(args.repeat)
    bench_stream()


if __name__ == "__main__":
    main()
