"""What the streaming client costs on top of the openai SDK, over real loopback HTTP.

Streams a reply through the fake server (tests/fakellm) and reads it three ways: raw SDK chunks,
`ChatStream` (usage, reasoning, drop detection) and `OpenAIChatClient.complete`. Prints one line per
figure, with the ChatStream/raw-SDK time ratio (~1.0: the client adds nothing measurable) and the
400 KB / 40 KB time ratio (~10: linear in the reply's length). Best of 3 runs each.

    /tmp/venv0/bin/python bench/bench_llm_stream.py
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Callable
from pathlib import Path

from twnb.llm.client import OpenAIChatClient

MESSAGES = [{"role": "user", "content": "go"}]
REPEATS = 3


def best_of(run: Callable[[], int]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(server_cls: type, size_kb: int, chunk: int) -> dict[str, float]:
    content = ("x" * 63 + "\n") * (size_kb * 1024 // 64)
    reply = {"*": [{"content": content, "chunk_size": chunk}]}
    with server_cls() as server:
        client = OpenAIChatClient("bench-key", server.base_url)
        sdk = client._sdk  # the same SDK client, read without twnb's layer

        def raw() -> int:
            server.load(reply)
            stream = sdk.chat.completions.create(
                model="m", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
            )
            return sum(len(c.choices[0].delta.content or "") for c in stream if c.choices)

        def chat_stream() -> int:
            server.load(reply)
            return sum(len(piece) for piece in client.stream(MESSAGES, model="m"))

        def complete() -> int:
            server.load(reply)
            return len(client.complete(MESSAGES, model="m").text)

        assert raw() == chat_stream() == complete() == len(content)
        return {"raw SDK": best_of(raw), "ChatStream": best_of(chat_stream), "complete()": best_of(complete)}


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    server_cls = importlib.import_module("fakellm.server").FakeLLMServer
    results = {}
    for size_kb in (40, 400):
        label = f"{size_kb} KB reply, 4-char chunks"
        times = results[size_kb] = measure(server_cls, size_kb, 4)
        for name, seconds in times.items():
            print(f"{label}: {name} {size_kb * 1024 / seconds / 1e6:.3f} MB/s ({seconds * 1e3:.0f} ms)")
        print(f"{label}: ChatStream/raw SDK time ratio {times['ChatStream'] / times['raw SDK']:.2f}")
    ratio = results[400]["ChatStream"] / results[40]["ChatStream"]
    print(f"ChatStream 400 KB / 40 KB time ratio {ratio:.1f} (~10 = linear)")


if __name__ == "__main__":
    main()
