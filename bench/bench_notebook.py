"""Notebook-layer figures: extension load cost and widget traffic while a reply streams.

    /tmp/venv0/bin/python bench/bench_notebook.py [--repeat 7]
    python bench/bench_notebook.py --against /tmp/before [--repeat 15]   # only the load, two checkouts
    python bench/bench_notebook.py --saved-size   # only figure 4: what a plot Round adds to a notebook

`--against DIR` times figure 1 (from bytecode caches, as an installed twnb loads) for the twnb of
another checkout (DIR holds its `twnb/` folder: a `git worktree add` or `git archive REV twnb | tar -x
-C DIR` of an older commit) against this one, both in this interpreter, interleaved, and prints the
ratio: whether a change made `%load_ext twnb` slower.

1. `import twnb` + `%load_ext twnb` versus `import ipywidgets` alone, each timed inside a fresh
   subprocess that already has an InteractiveShell (as a kernel does), median of N runs, and the ratio.
2. A 40 KB reply streamed as 4-character tokens through the real RoundView (real ipywidgets, no
   frontend), with every comm message counted at `Widget._send`: messages per second of stream at
   100 tokens/s (a fake clock, so the figure does not depend on this machine's speed), the same
   without the throttle, and the real time from the first token to its first widget message.
3. Widget CPU per streamed update once a 4 KB and a 400 KB message have streamed in, measured inside a
   real kernel (so the messages go out through ipykernel's comm: building and serialising them
   counts), and the size of the widget messages each update sends; ratio ~1 means an update costs
   the same whatever the message's length.
4. What one finished Round with one matplotlib figure adds to a saved notebook: the widget state (every
   model the RoundView made) and the static bundle, in KB, and how many copies of the figure's base64
   each holds; for a figure the code displayed (the cell's own display_data holds it, so the Round
   refers to it: render/cell_images.py) beside one only saved to a file (the Round has to carry it).
   Then `twnb demo`'s plot Round as nbclient saved it: a real Round's record (three LLM calls, the
   plan, the ledger, four views) beside its one PNG, against the target of the PNG + 15 KB, and where
   its bundle's bytes go (each view; the payload's keys, its `extra`'s (the record) and its `twnb`
   object's).
5. Widget state a saved notebook keeps, in KB per Round: `twnb demo`'s quickstart as nbclient saves it
   (a client that draws no widgets: the Rounds make none), and a Round's RoundView after it ended, as a
   frontend that drops closed models (JupyterLab's widget manager) would save it (its open models).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_SHELL = "from IPython.core.interactiveshell import InteractiveShell\nip = InteractiveShell.instance()\n"
_LOAD_TWNB = _SHELL + (
    "import time\nt0 = time.perf_counter()\nimport twnb\nip.run_line_magic('load_ext', 'twnb')\n"
    "t1 = time.perf_counter()\nimport sys\n"
    "print(t1 - t0, int('openai' in sys.modules), int('ipywidgets' in sys.modules),\n"
    "      int('opentelemetry' in sys.modules))\n"
)
_IMPORT_WIDGETS = _SHELL + (
    "import time\nt0 = time.perf_counter()\nimport ipywidgets\n"
    "t1 = time.perf_counter()\nprint(t1 - t0, 0, 1, 0)\n"
)

STREAM_BYTES = 40_000
TOKEN_CHARS = 4
TOKENS_PER_SECOND = 100.0


def _timed(code: str, root: Path = ROOT) -> tuple[float, list[int]]:
    # `python -c` puts its working directory first on sys.path: `import twnb` loads root's twnb/.
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root)
    seconds, *flags = out.stdout.split()
    return float(seconds), [int(f) for f in flags]


def bench_load(repeat: int) -> None:
    twnb_times, widget_times, flags = [], [], [0, 0, 0]
    for _ in range(repeat):  # interleaved so machine noise hits both alike
        seconds, flags = _timed(_LOAD_TWNB)
        twnb_times.append(seconds)
        widget_times.append(_timed(_IMPORT_WIDGETS)[0])
    t, w = statistics.median(twnb_times), statistics.median(widget_times)
    print(f"import twnb + %load_ext twnb: {t * 1000:.1f} ms (median of {repeat})")
    print(f"import ipywidgets alone:       {w * 1000:.1f} ms (median of {repeat})")
    print(f"ratio twnb load / ipywidgets import: {t / w:.2f}")
    print(
        f"after %load_ext twnb: openai imported={bool(flags[0])}, ipywidgets imported={bool(flags[1])}, "
        f"opentelemetry imported={bool(flags[2])}"
    )


# The same load, timed in CPU seconds as well: on a shared machine the wall time of a 40 ms import
# swings by more than a small change costs, while the CPU it takes barely moves.
_LOAD_TWNB_CPU = _SHELL + (
    "import time\nt0, c0 = time.perf_counter(), time.process_time()\nimport twnb\n"
    "ip.run_line_magic('load_ext', 'twnb')\nprint(time.perf_counter() - t0, time.process_time() - c0)\n"
)


# As installed, twnb's modules load from their bytecode caches: with PYTHONDONTWRITEBYTECODE set (as
# in some shells and containers) every run would compile every module again, and a longer file
# would look slower to load than it is.
_WITH_BYTECODE = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _load_seconds(root: Path) -> tuple[float, float]:
    out = subprocess.run(
        [sys.executable, "-c", _LOAD_TWNB_CPU],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
        env=_WITH_BYTECODE,
    )
    wall, cpu = out.stdout.split()
    return float(wall), float(cpu)


def bench_load_against(other: Path, repeat: int) -> None:
    """`import twnb` + `%load_ext twnb` of this checkout and of `other`'s, interleaved (the order
    alternating), medians of wall and CPU time."""
    if not (other / "twnb" / "__init__.py").is_file():
        raise SystemExit(f"{other} holds no twnb/ folder to import")
    times: dict[Path, list[tuple[float, float]]] = {ROOT: [], other: []}
    for root in times:
        _load_seconds(root)  # writes the bytecode caches
    for i in range(repeat):
        for root in (ROOT, other) if i % 2 == 0 else (other, ROOT):
            times[root].append(_load_seconds(root))
    medians = {
        root: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
        for root, runs in times.items()
    }
    for root, label in ((ROOT, "this checkout"), (other, str(other))):
        wall, cpu = medians[root]
        print(f"import twnb + %load_ext twnb, {label}: {wall * 1000:.1f} ms wall, {cpu * 1000:.1f} ms CPU")
    (wall_here, cpu_here), (wall_there, cpu_there) = medians[ROOT], medians[other]
    print(
        f"ratio this / {other.name} (medians of {repeat}): wall {wall_here / wall_there:.2f}, "
        f"CPU {cpu_here / cpu_there:.2f}"
    )


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


# Run inside a real kernel: each widget update goes through ipykernel's comm, so the figure includes
# building the state ipywidgets sends and serialising the message, as in a notebook.
_UPDATE_COST_SETUP = """
import time
from twnb.memory import MessageDelta, PostStarted, RoundStarted
from twnb.notebook.round_view import RoundView

def _started_view(size):
    line = ("The margin in the West region rose while discounts fell; see [table](t.csv) " * 2)[:79]
    prose = "".join(line + ("\\n\\n" if i % 5 == 4 else "\\n") for i in range(size // 80 + 1))[:size]
    view = RoundView("update cost", clock=lambda: 0.0, rate_hz=1e9)
    view.on_event(RoundStarted("round-1", "update cost"))
    view.on_event(PostStarted("post-1", "Planner", "User"))
    view.on_event(MessageDelta("post-1", prose, False))
    return view

def _update_cpu_ms(view, first, updates):
    started = time.thread_time()
    for i in range(first, first + updates):
        delta = "\\n\\n" if i % 100 == 99 else "\\n" if i % 20 == 19 else "word "
        view.on_event(MessageDelta("post-1", delta, False))
    return (time.thread_time() - started) * 1000
"""


_BATCH = 100  # updates per cell: a burst of them above IOPub's high-water mark would be dropped


def _kernel_run(client: object, code: str, expression: str = "None") -> tuple[str, list[int]]:
    """Run `code`; the value of `expression` afterwards (as text), and the size (JSON bytes) of every
    widget message the run sent."""
    import json

    msg_id = client.execute(code, user_expressions={"value": expression})  # type: ignore[attr-defined]
    sizes = []
    while True:
        msg = client.get_iopub_msg(timeout=600)  # type: ignore[attr-defined]
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "comm_msg":
            sizes.append(len(json.dumps(content)))
        elif kind == "error":
            raise RuntimeError("\n".join(content["traceback"]))
        elif kind == "status" and content["execution_state"] == "idle":
            break
    reply = client.get_shell_msg(timeout=600)  # type: ignore[attr-defined]
    value = reply["content"]["user_expressions"]["value"]
    if value["status"] != "ok":
        raise RuntimeError(f"{expression}: {value}")
    return value["data"]["text/plain"], sizes


def _update_cost(
    sizes: tuple[int, ...], repeat: int, updates: int = 1000
) -> dict[int, tuple[float, list[int]]]:
    """Per message size: CPU ms per widget update once a message of that many characters has streamed
    in (every delta flushed: no throttle; median of `repeat` runs), and each update's message sizes.
    Prose lines of 80 characters with a blank line every five; then words, with a line break every 20
    updates and a paragraph break every 100."""
    import os

    from jupyter_client.manager import KernelManager

    from twnb.kernel.separate.this_python import KERNEL_NAME, ThisPythonKernelSpecs

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    km = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=ThisPythonKernelSpecs(), transport="ipc")
    km.start_kernel(env=env, cwd=str(ROOT))
    client = km.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        _kernel_run(client, _UPDATE_COST_SETUP)
        cpu: dict[int, list[float]] = {size: [] for size in sizes}
        sent: dict[int, list[int]] = {}
        for _ in range(repeat):  # interleaved so machine noise hits both alike
            for size in sizes:
                _kernel_run(client, f"view = _started_view({size})")
                total, sent[size] = 0.0, []
                for first in range(0, updates, _BATCH):
                    run = f"cpu = _update_cpu_ms(view, {first}, {_BATCH})"
                    text, batch = _kernel_run(client, run, "cpu")
                    if len(batch) < _BATCH:  # IOPub dropped messages: the sizes would lie
                        raise RuntimeError(f"{_BATCH} updates but {len(batch)} widget messages arrived")
                    total += float(text)
                    sent[size] += batch
                cpu[size].append(total / updates)
                _kernel_run(client, "view.close()")
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)
    return {size: (statistics.median(cpu[size]), sent[size]) for size in sizes}


def bench_update_cost(repeat: int) -> None:
    cost = _update_cost((4_000, 400_000), repeat)
    (small, small_sent), (large, large_sent) = cost[4_000], cost[400_000]
    print(
        f"widget CPU per streamed update: 4 KB message {small:.3f} ms, 400 KB message {large:.3f} ms "
        f"(ratio {large / small:.2f}; ~1 = independent of the message's length)"
    )
    print(
        "widget messages per streamed update (through a kernel's comm): "
        + ", ".join(
            f"{label} message {sum(sent) / len(sent) / 1024:.1f} KB on average, "
            f"{max(sent) / 1024:.1f} KB at most"
            for label, sent in (("4 KB", small_sent), ("400 KB", large_sent))
        )
    )


def _figure_round(folder: Path, displayed: bool) -> tuple[object, str]:
    """A finished Round whose code made a matplotlib figure artifact, displayed (captured) or not."""
    import base64
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from twnb.memory import Attachment, AttachmentType, Post, Round

    figure, axes = plt.subplots(figsize=(6, 4))
    axes.plot(range(100), [i * i % 37 for i in range(100)])
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    png = buffer.getvalue()
    (folder / "fig.png").write_bytes(png)
    data = base64.b64encode(png).decode("ascii")
    round = Round.create("Plot it.")
    round.add_post(Post.create("Plot it.", "User", "Planner"))
    post = Post.create("Plotted.", "CodeInterpreter", "Planner")
    post.add_attachment(Attachment.create(AttachmentType.reply_content, "plt.plot(...)\nplt.show()"))
    result = Attachment.create(AttachmentType.execution_result, "The execution succeeded.")
    output = {"output_type": "display_data", "data": {"image/png": data}, "metadata": {}}
    result.extra = {"outputs": [output] if displayed else []}
    post.add_attachment(result)
    post.add_attachment(Attachment.create(AttachmentType.artifact_paths, [str(folder / "fig.png")]))
    round.add_post(post)
    round.change_round_state("finished")
    return round, data


def bench_saved_size(displayed: bool) -> None:
    import base64
    import json
    import tempfile

    import ipywidgets
    from ipywidgets.widgets.widget import _instances

    from twnb.memory import PostCommitted
    from twnb.notebook.round_view import RoundView
    from twnb.render import MIME_TYPE, artifact_previews, round_bundle

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        round, data = _figure_round(folder, displayed)
        before = set(_instances)
        view = RoundView(round.user_query, base_dir=folder)
        for post in round.post_list:
            view.on_event(PostCommitted(post))
        # As the Round's own cell saves it: a displayed figure is the cell's own output (in_cell).
        previews = artifact_previews(round, folder)
        bundle = round_bundle(round, session_id="s", previews=previews, in_cell=displayed)
        view.finish(round, bundle[MIME_TYPE])
        made = [_instances[key] for key in set(_instances) - before]
        state = json.dumps(ipywidgets.Widget.get_manager_state(widgets=made)["state"])
    copies = {name: text.count(data[:100]) for name, text in (("widget state", state),)}
    for mime, value in bundle.items():
        copies[mime] = json.dumps(value).count(data[:100])
    how = "displayed" if displayed else "file-only"
    sizes = ", ".join(f"{mime} {len(json.dumps(value)) / 1024:.1f} KB" for mime, value in bundle.items())
    print(
        f"Round with a {how} {len(data) / 1024:.0f} KB (base64) figure: widget state "
        f"{len(state) / 1024:.1f} KB in {len(made)} models; bundle {sizes}"
    )
    print(f"  copies of the {how} figure: " + ", ".join(f"{name} {n}" for name, n in copies.items()))
    if displayed:
        # What the saved notebook keeps for this Round: its bundle, and the figure the inline backend
        # showed in the cell as the cell's own image/png (base64 in the .ipynb JSON either way).
        # A notebook stores a PNG as base64 (4/3 of its bytes): one copy of it is `data`.
        png_kb, stored_kb = len(base64.b64decode(data)) / 1024, len(data) / 1024
        saved_kb = (len(json.dumps(bundle)) + len(data)) / 1024
        print(
            f"  plot Round saved (a minimal record: the figure's own cost): {saved_kb:.1f} KB for a "
            f"{png_kb:.1f} KB PNG ({stored_kb:.1f} KB as the base64 any .ipynb stores): "
            f"{saved_kb - stored_kb:.1f} KB over the stored PNG (target <= 15 KB), "
            f"{saved_kb - png_kb:.1f} KB over its bytes"
        )


def _demo_notebook() -> dict[str, Any]:
    """`twnb demo`'s quickstart notebook as nbclient saved it (offline, from its cassette)."""
    import json
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "demo"
        subprocess.run(
            [sys.executable, "-m", "twnb.cli", "demo", "-o", str(out)],
            capture_output=True,
            check=True,
            cwd=tmp,
        )
        notebook: dict[str, Any] = json.loads((out / "quickstart.ipynb").read_text())
        return notebook


def bench_demo_plot_round(notebook: dict[str, Any]) -> None:
    import json

    from twnb.render import MIME_TYPE

    def stored_png(output: dict[str, Any]) -> str:
        png = output.get("data", {}).get("image/png", "")
        return "".join(png) if isinstance(png, list) else str(png)

    for cell in notebook["cells"]:
        outputs = cell.get("outputs", [])
        pngs = [stored_png(output) for output in outputs if stored_png(output)]
        if not pngs or not any(MIME_TYPE in output.get("data", {}) for output in outputs):
            continue
        # The cell's outputs as saved: the Round's bundle, the figure its code displayed, the rest.
        saved_kb = len(json.dumps(outputs)) / 1024
        stored_kb = sum(len(png) for png in pngs) / 1024
        bundle_kb = sum(len(json.dumps(o["data"])) for o in outputs if MIME_TYPE in o.get("data", {})) / 1024
        copies = json.dumps(outputs).count(pngs[0][:200])
        print(
            f"twnb demo's plot Round saved: {saved_kb:.1f} KB for {len(pngs)} figure(s) of "
            f"{stored_kb:.1f} KB as stored ({copies} copy): {saved_kb - stored_kb:.1f} KB over the "
            f"stored PNG (target <= 15 KB), {bundle_kb:.1f} KB of it the Round's bundle"
        )
        # Where the Round's bundle goes: each view, the payload's top-level keys and its twnb object's.
        (bundle,) = [o["data"] for o in outputs if MIME_TYPE in o.get("data", {})]
        payload = bundle[MIME_TYPE]

        def kb(value: object) -> str:
            return f"{len(json.dumps(value)) / 1024:.1f}"

        print("  bundle: " + ", ".join(f"{mime} {kb(value)}" for mime, value in bundle.items()) + " KB")
        print("  payload: " + ", ".join(f"{key} {kb(value)}" for key, value in payload.items()) + " KB")
        extra = payload.get("extra") or {}
        print("  payload's extra: " + ", ".join(f"{key} {kb(value)}" for key, value in extra.items()) + " KB")
        twnb = payload.get("twnb") or {}
        print("  payload's twnb: " + ", ".join(f"{key} {kb(value)}" for key, value in twnb.items()) + " KB")


def bench_widget_state_per_round(notebook: dict[str, Any]) -> None:
    import json
    import tempfile

    from ipywidgets.widgets.widget import _instances

    from twnb.memory import PostCommitted
    from twnb.notebook.round_view import RoundView
    from twnb.render import MIME_TYPE, artifact_previews, round_bundle

    with tempfile.TemporaryDirectory() as tmp:
        rounds = sum(
            MIME_TYPE in output.get("data", {})
            for cell in notebook["cells"]
            for output in cell.get("outputs", [])
        )
        widgets = json.dumps(notebook["metadata"].get("widgets", {}))
        kb = (len(widgets) if notebook["metadata"].get("widgets") else 0) / 1024
        print(
            f"twnb demo (nbclient), {rounds} Rounds: widget state {kb:.1f} KB, "
            f"{kb / max(rounds, 1):.2f} KB per Round"
        )

        folder = Path(tmp)
        round, _ = _figure_round(folder, displayed=True)
        before = set(_instances)
        view = RoundView(round.user_query, base_dir=folder)
        for post in round.post_list:
            view.on_event(PostCommitted(post))
        view.finish(
            round, round_bundle(round, session_id="s", previews=artifact_previews(round, folder))[MIME_TYPE]
        )
        made = set(_instances) - before
        view.close()
        left = [_instances[key] for key in set(_instances) & made]
        state = json.dumps([w.get_state() for w in left]) if left else ""
        print(
            f"a finished Round's RoundView: {len(made)} models made, {len(left)} left open after it ended: "
            f"{len(state) / 1024:.1f} KB of widget state per Round for JupyterLab to save"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--against", type=Path, help="another checkout: compare the load time only")
    parser.add_argument("--saved-size", action="store_true", help="only what a plot Round adds to a notebook")
    args = parser.parse_args()
    if args.against is not None:
        bench_load_against(args.against.resolve(), args.repeat)
        return
    if args.saved_size:
        bench_saved_size(displayed=True)
        bench_demo_plot_round(_demo_notebook())
        return
    bench_load(args.repeat)
    bench_stream()
    bench_update_cost(args.repeat)
    bench_saved_size(displayed=True)
    bench_saved_size(displayed=False)
    notebook = _demo_notebook()
    bench_demo_plot_round(notebook)
    bench_widget_state_per_round(notebook)


if __name__ == "__main__":
    main()
