"""What the one redaction pass costs on a prompt, and whether it stays linear in the prompt's size.

Redacts a 40 KB, 400 KB and 4 MB prompt-like text (code, tables, a few secrets) with a realistic
environment (80 variables, 6 with secret names), as `Redactor.redact` and as `redact_data` over the
chat messages (4 KB each); prints MB/s per size and the 4 MB / 400 KB time ratio (~10 means linear;
40 KB runs from CPU caches, so it is faster), side by side with a plain `str.replace` of the same
literal secrets as the floor. Each pass runs on a fresh Redactor: one remembers the texts it redacted,
so the same text again is a lookup (the last line: every prompt repeats most of the previous one).

    /tmp/venv0/bin/python bench/bench_redaction.py
"""

from __future__ import annotations

import time
from collections.abc import Callable

from twnb.config.redaction import Redactor

REPEATS = 9
SIZES = (40_000, 400_000, 4_000_000)
SECRETS = {f"SERVICE_{i}_TOKEN": f"tok-{i:02d}-abcdefghijklmnop" for i in range(6)}
ENVIRON = {f"VAR_{i}": f"/usr/local/value/{i}" for i in range(74)} | SECRETS


def prompt_text(size: int) -> str:
    block = (
        "df = pd.read_csv('sales.csv')\nprint(df.describe())\n"
        "   region  amount\n0  north   12.5\n1  south   99.0\n"
        "The API answered 200 OK for request 7f3e; tok-03-abcdefghijklmnop leaked here.\n"
    )
    return (block * (size // len(block) + 1))[:size]


def best_of(run: Callable[[Redactor], object], fresh: bool = True) -> float:
    """Best time of `run(redactor)`, on a new Redactor (made and warmed outside the timing) each time
    unless not `fresh`."""
    times = []
    redactor = make_redactor()
    for _ in range(REPEATS):
        if fresh:
            redactor = make_redactor()
        start = time.perf_counter()
        run(redactor)
        times.append(time.perf_counter() - start)
    return min(times)


def make_redactor() -> Redactor:
    redactor = Redactor(["sk-configured-key-0123456789abcdef"], environ=ENVIRON)
    redactor.redact("warm: read the environment, build the pattern")
    return redactor


def plain_replace(text: str) -> str:
    for value in SECRETS.values():
        text = text.replace(value, "[redacted]")
    return text


def main() -> None:
    results: dict[str, dict[int, float]] = {"redact": {}, "redact_data": {}, "str.replace floor": {}}
    remembered: dict[int, float] = {}
    for size in SIZES:
        text = prompt_text(size)
        messages = [{"role": "system", "content": "You are the Planner."}] + [
            # Numbered: the text repeats, and a remembered 4 KB piece would not be redacted again.
            {"role": "user", "content": f"{i}: {text[i : i + 4000]}"}
            for i in range(0, size, 4000)
        ]
        assert "tok-03" not in make_redactor().redact(text)
        results["redact"][size] = best_of(lambda r, text=text: r.redact(text))
        results["redact_data"][size] = best_of(lambda r, messages=messages: r.redact_data(messages))
        results["str.replace floor"][size] = best_of(lambda r, text=text: plain_replace(text))
        remembered[size] = best_of(lambda r, messages=messages: r.redact_data(messages), fresh=False)
    for name, by_size in results.items():
        speeds = " | ".join(f"{size // 1000:>5} KB {size / 1e6 / by_size[size]:7.1f} MB/s" for size in SIZES)
        print(f"{name:<18} {speeds} | 4MB/400KB time ratio {by_size[4_000_000] / by_size[400_000]:5.1f}")
    at_400 = results["redact"][400_000]
    floor = results["str.replace floor"][400_000]
    print(f"redact at 400 KB: {at_400 * 1000:.1f} ms, {at_400 / floor:.0f}x the floor")
    again = " | ".join(f"{size // 1000:>5} KB {remembered[size] * 1000:7.2f} ms" for size in SIZES)
    print(f"redact_data of the same messages again (remembered): {again}")


if __name__ == "__main__":
    main()
