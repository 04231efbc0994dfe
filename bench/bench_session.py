"""Framework overhead of one Round, at Round 10 and Round 100: should be flat.

An in-process ChatClient answers instantly with canned replies (bench only: no HTTP, no model), and
the code is trivial (`x_N = N`) on a real InteractiveShell through LiveShellExecutor, so what is timed
(wall and process CPU time) is twnb itself: prompt composition over a growing conversation,
translation, verification, the executor's capture and scans, events, redaction at commit, plan
derivation. Autosave (one Round file rewritten atomically after every post) is timed separately: the
same Rounds with autosave off and on.

    python bench/bench_session.py [--rounds 100] [--window 10] [--repeat 9]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any


class InstantStream:
    """What roles read from a stream: content deltas, then `raw_text`, `reasoning`, `usage`."""

    def __init__(self, text: str, model: str) -> None:
        from twnb.llm.usage import Usage

        self.raw_text = text
        self.reasoning = ""
        self.finish_reason = "stop"
        self.usage = Usage(prompt_tokens=1, completion_tokens=1, model=model)
        self._chunks = iter([text[i : i + 64] for i in range(0, len(text), 64)])

    def __iter__(self) -> Any:
        return self

    def __next__(self) -> str:
        return next(self._chunks)


class InstantClient:
    """Canned replies per role, cycling: the Planner delegates then answers; the code is trivial: it
    makes a new variable each Round (`x_N = N`), or with `one_variable` rebinds the same one."""

    def __init__(self, one_variable: bool = False) -> None:
        self.calls = {"Planner": 0, "CodeInterpreter": 0}
        self.one_variable = one_variable

    def stream(self, messages: list[dict], *, model: str, role: str = "", response_format: Any = None) -> Any:
        n = self.calls[role] = self.calls[role] + 1
        if role == "CodeInterpreter":
            reply = {
                "thought": "Set a variable.",
                "reply_type": "python",
                "reply_content": f"x = {n}\nx" if self.one_variable else f"x_{n} = {n}\nx_{n}",
            }
        elif n % 2:
            reply = _planner("CodeInterpreter", "Set the next variable.", "InProcess")
        else:
            reply = _planner("User", f"The variable is set ({n // 2}).", "Completed")
        return InstantStream(json.dumps({"response": reply}), model)


def _planner(send_to: str, message: str, stop: str) -> dict[str, str]:
    return {
        "plan_reasoning": "One step.",
        "init_plan": "1. Set it\n2. Report <interactively depends on 1>",
        "plan": "1. Set it\n2. Report",
        "current_plan_step": "1. Set it" if stop == "InProcess" else "2. Report",
        "stop": stop,
        "send_to": send_to,
        "message": message,
    }


def run(
    rounds: int, autosave: bool, shell: Any, workdir: Path, one_variable: bool = False
) -> tuple[list[float], list[float], list[float], Any]:
    from twnb.config import ResolvedSettings, Settings
    from twnb.kernel import LiveShellExecutor
    from twnb.session import build_session

    shell.reset(new_session=False)
    session_dir = workdir / f".twnb-{int(autosave)}"
    executor = LiveShellExecutor(shell, workdir, session_dir / "artifacts", session_dir=session_dir)
    session = build_session(
        ResolvedSettings(Settings(model="instant"), {}, workdir),
        executor,
        client=InstantClient(one_variable),
        session_dir=session_dir,
    )
    session.autosave = autosave
    spent = [0.0]
    summarize = executor.namespace_summary

    def timed_summary(**options: Any) -> str:
        started = time.perf_counter()
        try:
            return summarize(**options)
        finally:
            spent[0] += time.perf_counter() - started

    # The roles call the executor's summary through the hook they were built with: time it there.
    session.planner.namespace_summary = session.code_interpreter.namespace_summary = timed_summary
    times, cpu_times, summary_times = [], [], []
    for n in range(rounds):
        spent[0] = 0.0
        started, cpu_started = time.perf_counter(), time.process_time()
        round = session.run_round(f"Set variable number {n}")
        times.append((time.perf_counter() - started) * 1000)
        cpu_times.append((time.process_time() - cpu_started) * 1000)
        summary_times.append(spent[0] * 1000)
        assert round.state == "finished", round.extra
    return times, cpu_times, summary_times, session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--window", type=int, default=10, help="Rounds averaged around each figure")
    parser.add_argument(
        "--repeat", type=int, default=9, help="runs without autosave pooled per figure (steadier median)"
    )
    args = parser.parse_args()
    import os

    from IPython.core.interactiveshell import InteractiveShell

    workdir = Path(tempfile.mkdtemp(prefix="twnb-bench-"))
    os.chdir(workdir)
    shell = InteractiveShell.instance()
    # The shell echoes each Round's last expression (Out[...]): keep it out of the figures' output.
    with contextlib.redirect_stdout(io.StringIO()):
        run(3, False, shell, workdir)  # warm-up: imports, first prompt loads
        run(3, True, shell, workdir)  # and the first autosave's folders and files
        runs = [run(args.rounds, False, shell, workdir) for _ in range(args.repeat)]
        one = [run(args.rounds, False, shell, workdir, one_variable=True)[1] for _ in range(args.repeat)]
        on, on_cpu, _, saved = run(args.rounds, True, shell, workdir)
    off, off_cpu, off_summary = ([r[i] for r in runs] for i in range(3))
    w = args.window

    def at(times: list[float] | list[list[float]], end: int) -> float:
        """The median over the `w` Rounds before `end`, of every run given."""
        pooled = times if isinstance(times[0], list) else [times]
        return statistics.median(t for run_times in pooled for t in run_times[max(end - w, 0) : end])

    # CPU time too: on a shared machine the wall time of a few ms swings with the load.
    for label, times in (("autosave off", off), ("autosave off, CPU", off_cpu), ("autosave on ", on)):
        r10, r100 = at(times, 10), at(times, args.rounds)
        print(
            f"per-Round overhead, {label}: Round 10 {r10:6.2f} ms | Round {args.rounds} {r100:6.2f} ms "
            f"| ratio {r100 / r10:.2f}"
        )
    r10, r100 = at(one, 10), at(one, args.rounds)
    print(
        f"  the same, CPU, with the code rebinding one variable (the namespace stays small): Round 10 "
        f"{r10:6.2f} ms | Round {args.rounds} {r100:6.2f} ms | ratio {r100 / r10:.2f}"
    )
    for end in (10, args.rounds):
        ns = at(off_summary, end)
        print(
            f"  of which the namespace summary (kernel layer, 3 calls) at Round {end}: {ns:6.2f} ms; "
            f"twnb without it: {at(off, end) - ns:6.2f} ms"
        )
    for end in (10, args.rounds):
        cost, cpu = at(on, end) - at(off, end), at(on_cpu, end) - at(off_cpu, end)
        print(
            f"autosave cost per Round (4 posts, one file rewritten each) at Round {end}: {cost:6.2f} ms "
            f"(CPU {cpu:5.2f} ms; the rest is waiting for the disk: each file is fsynced)"
        )
    files = sorted(saved.autosave_dir.glob("*.yaml"), key=lambda p: p.stat().st_mtime)
    print(
        f"autosave files: {len(files)}, last file {files[-1].stat().st_size} bytes (same size at every Round)"
    )


if __name__ == "__main__":
    main()
