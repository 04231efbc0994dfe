"""What OpenTelemetry tracing adds to a Round: off, on with spans kept in memory, and on with spans
sent over OTLP/HTTP to a loopback receiver that decodes them.

The Rounds are bench_session.py's (an instant in-process scripted LLM, trivial code on a real
InteractiveShell), so what is timed is twnb's own work, where tracing's share is largest; a real
model's seconds would hide it. The three modes take turns Round by Round so machine noise hits all
alike; the figure is the median ms per Round and its ratio to tracing off. The OTLP receiver's count
of decoded spans checks that the spans really went over the wire (export runs on a background thread).

    python bench/bench_tracing.py [--rounds 60]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "telemetry"))  # the loopback OTLP receiver the tests use
sys.path.insert(0, str(ROOT / "bench"))


def tracers(receiver_url: str) -> dict[str, tuple[Any, Any]]:
    """mode -> (tracer or None, provider or None)."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from twnb.telemetry.provider import OneWarningExporter, _otlp_exporter

    memory = TracerProvider()
    memory.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
    otlp = TracerProvider()
    otlp.add_span_processor(BatchSpanProcessor(OneWarningExporter(_otlp_exporter(receiver_url))))
    return {
        "off": (None, None),
        "in-memory": (memory.get_tracer("twnb"), memory),
        "OTLP loopback": (otlp.get_tracer("twnb"), otlp),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=60, help="Rounds per mode")
    args = parser.parse_args()

    from bench_session import InstantClient
    from IPython.core.interactiveshell import InteractiveShell
    from otlp_receiver import OTLPReceiver

    from twnb.config import ResolvedSettings, Settings
    from twnb.kernel import LiveShellExecutor
    from twnb.session import build_session
    from twnb.telemetry import switch

    shell = InteractiveShell.instance()
    with tempfile.TemporaryDirectory() as folder, OTLPReceiver() as receiver:
        workdir = Path(folder)
        modes = tracers(receiver.url)
        sessions = {}
        for mode in modes:
            session_dir = workdir / f".twnb-{len(sessions)}"
            executor = LiveShellExecutor(shell, workdir, session_dir / "artifacts", session_dir=session_dir)
            sessions[mode] = build_session(
                ResolvedSettings(Settings(model="instant"), {}, workdir),
                executor,
                client=InstantClient(),
                session_dir=session_dir,
            )
            sessions[mode].autosave = False  # autosave is bench_session.py's figure, not this one's
        times: dict[str, list[float]] = {mode: [] for mode in modes}
        for n in range(args.rounds + 5):
            for mode, (tracer, _) in modes.items():
                switch.tracing.tracer = tracer
                started = time.perf_counter()
                with contextlib.redirect_stdout(io.StringIO()):
                    round = sessions[mode].run_round(f"Set variable number {n}")
                if n >= 5:  # the first Rounds warm imports and caches
                    times[mode].append((time.perf_counter() - started) * 1000)
                assert round.state == "finished", round.extra
        switch.tracing.tracer = None
        modes["OTLP loopback"][1].force_flush(30_000)
        received = len(receiver.spans())
        for _, provider in modes.values():
            if provider is not None:
                provider.shutdown()

    base = statistics.median(times["off"])
    print(f"Round, median of {args.rounds} (instant scripted LLM, trivial code, autosave off):")
    for mode, values in times.items():
        median = statistics.median(values)
        print(f"  tracing {mode:<14} {median:7.2f} ms   ratio to off {median / base:5.2f}")
    print(f"  spans the OTLP receiver decoded: {received} ({received / (args.rounds + 5):.0f} per Round)")


if __name__ == "__main__":
    main()
