"""What the one redaction pass costs on a prompt, and whether it stays linear in the prompt's size.

Redacts a 40 KB, 400 KB and 4 MB prompt-like text (code, tables, reprs, HTML) with an environment of
160 variables, 80 of them secret-named, whose values hold characters every encoding changes; the text
carries each secret in five spellings (repr, JSON, HTML, percent-encoded, and cut by a display: a
prefix and "..."), one secret every ~200 characters. As `Redactor.redact` and as `redact_data` over the
chat messages (4 KB each); prints MB/s per size and the 4 MB / 400 KB time ratio (~10 means linear;
40 KB runs from CPU caches, so it is faster), side by side with a plain `str.replace` of the five
spellings of each secret as the floor. Target: redact >= 50 MB/s at 4 MB, ratio ~10. Each pass runs
on a fresh Redactor: one remembers the texts it redacted, so the same text again is a lookup (the last
line: every prompt repeats most of the previous one).

    python bench/bench_redaction.py
"""

from __future__ import annotations

import html
import json
import time
from collections.abc import Callable
from urllib.parse import quote

from twnb.config.redaction import Redactor

REPEATS = 9
SIZES = (40_000, 400_000, 4_000_000)
SECRETS = {f"SERVICE_{i}_TOKEN": f'tok-{i:02d}-pa\\ss"w&rd<{i * 7919 % 1000:03d}>-q' for i in range(80)}
ENVIRON = {f"VAR_{i}": f"/usr/local/value/{i}" for i in range(80)} | SECRETS


def five_spellings(secret: str) -> list[str]:
    cut = f"{secret[:14]}..."  # a display's truncation
    return [repr(secret)[1:-1], json.dumps(secret)[1:-1], html.escape(secret), quote(secret, safe=""), cut]


def prompt_text(size: int) -> str:
    blocks = [
        "df = pd.read_csv('sales.csv')\nprint(df.describe())\n"
        "   region  amount\n0  north   12.5\n1  south   99.0\n"
        f"The API answered 200 OK for request 7f3e; <td>{spelling}</td> leaked here.\n"
        for number in range(5)
        for secret in SECRETS.values()
        for spelling in five_spellings(secret)[number : number + 1]
    ]
    block = "".join(blocks)
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
        for spelling in five_spellings(value):
            text = text.replace(spelling, "[redacted]")
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
        redacted = make_redactor().redact(text)
        assert "tok-" not in redacted[:-100] and redacted.count("[redacted]") >= size // 250
        results["redact"][size] = best_of(lambda r, text=text: r.redact(text))
        results["redact_data"][size] = best_of(lambda r, messages=messages: r.redact_data(messages))
        results["str.replace floor"][size] = best_of(lambda r, text=text: plain_replace(text))
        remembered[size] = best_of(lambda r, messages=messages: r.redact_data(messages), fresh=False)
    for name, by_size in results.items():
        speeds = " | ".join(f"{size // 1000:>5} KB {size / 1e6 / by_size[size]:7.1f} MB/s" for size in SIZES)
        print(f"{name:<18} {speeds} | 4MB/400KB time ratio {by_size[4_000_000] / by_size[400_000]:5.1f}")
    at_400 = results["redact"][400_000]
    floor = results["str.replace floor"][400_000]
    print(f"redact at 400 KB: {at_400 * 1000:.1f} ms, {at_400 / floor:.2f}x the floor")
    again = " | ".join(f"{size // 1000:>5} KB {remembered[size] * 1000:7.2f} ms" for size in SIZES)
    print(f"redact_data of the same messages again (remembered): {again}")


if __name__ == "__main__":
    main()
