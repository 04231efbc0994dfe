"""Conversation -> notebook export time against conversation size, beside nbformat alone.

    python bench/bench_export.py [--repeat 3]

Conversations of 50 and 500 Rounds (one of the user's own cells recorded before each Round, then User
-> Planner -> CodeInterpreter with code that printed 1 KB and returned a value, both kept as nbformat
outputs -> Planner -> User, a plan in every Planner post) are exported with
`twnb.replay.export_notebook` (redaction pass, the `show` cell's four-view bundle per Round, the user's
cells, Markdown and code cells, what the code reads from outside, metadata, validation, atomic write).
Figures: best wall ms of N runs, ms per Round, the 500/50 time ratio (~10 = linear), and the time
nbformat alone takes to validate and write the very notebook the export produced (the floor any
exporter pays). The export and nbformat alone run in turns, N times each, so a busy machine slows both
alike; the ratio and the growth are also given in CPU time (best of each), which other processes disturb
less.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SIZES = (50, 500)


def conversation(rounds: int):
    from twnb.memory import Attachment, AttachmentType, Conversation, Post, Round

    plan = "1. load the data\n2. compute the figure\n3. report it"
    conv = Conversation.init()
    for index in range(rounds):
        query = f"Compute figure {index} of the sales data"
        round = Round.create(query)
        round.extra["user_cells"] = [
            {
                "source": f"data_{index} = load_figures({index})\ndata_{index}.head()",
                "execution_count": 2 * index + 1,
                "error": None,
                "variables": [{"name": f"data_{index}", "kind": "created", "type": "DataFrame"}],
            }
        ]
        round.add_post(Post.create(query, "User", "Planner"))
        planner = Post.create(f"Compute figure {index}.", "Planner", "CodeInterpreter")
        for kind, content in [
            ("init_plan", plan),
            ("plan", plan),
            ("current_plan_step", "2. compute the figure"),
        ]:
            planner.add_attachment(Attachment.create(AttachmentType(kind), content))
        round.add_post(planner)
        coder = Post.create("The code ran successfully.", "CodeInterpreter", "Planner")
        code = f"total_{index} = sum(range({index}))\nprint('row ' * 250)\ntotal_{index}"
        outputs = [
            {"output_type": "stream", "name": "stdout", "text": "row " * 250 + "\n"},
            {"output_type": "execute_result", "data": {"text/plain": str(sum(range(index)))}, "metadata": {}},
        ]
        for kind, content in [
            ("thought", "Sum the range."),
            ("reply_type", "python"),
            ("reply_content", code),
            ("verification", "CORRECT"),
            ("code_error", "No error is found."),
            ("execution_status", "SUCCESS"),
        ]:
            coder.add_attachment(Attachment.create(AttachmentType(kind), content))
        coder.add_attachment(
            Attachment.create(AttachmentType.execution_result, "row " * 250, extra={"outputs": outputs})
        )
        round.add_post(coder)
        answer = Post.create(f"Figure {index} is {sum(range(index))}.", "Planner", "User")
        answer.add_attachment(Attachment.create(AttachmentType.plan, plan))
        answer.add_attachment(Attachment.create(AttachmentType.stop, "Completed"))
        round.add_post(answer)
        round.change_round_state("finished")
        conv.add_round(round)
    return conv


def best_in_turns(actions, repeat: int) -> list[tuple[float, float]]:
    """Best wall ms and best CPU ms of each action, the actions run in turns `repeat` times."""
    walls: list[list[float]] = [[] for _ in actions]
    cpus: list[list[float]] = [[] for _ in actions]
    for _ in range(repeat):
        for index, action in enumerate(actions):
            wall, cpu = time.perf_counter(), time.process_time()
            action()
            walls[index].append((time.perf_counter() - wall) * 1000)
            cpus[index].append((time.process_time() - cpu) * 1000)
    return [(min(w), min(c)) for w, c in zip(walls, cpus, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import nbformat

    from twnb.replay import export_notebook
    from twnb.session.factory import redactor_for

    redact = redactor_for(None).redact_data
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for size in SIZES:
            conv = conversation(size)
            path = Path(folder) / f"export-{size}.ipynb"
            exported = export_notebook(
                conv, path, source_dir=folder, redact=redact
            )  # warm-up, and the notebook

            def export(c=conv, p=path):
                export_notebook(c, p, source_dir=folder, redact=redact)

            def nbformat_alone(nb=exported.notebook, p=Path(folder) / f"plain-{size}.ipynb"):
                nbformat.validate(nb)
                nbformat.write(nb, p)

            timed = best_in_turns([export, nbformat_alone], args.repeat)
            (export_ms, export_cpu), (plain_ms, plain_cpu) = timed
            results[size] = (export_ms, export_cpu)
            kb = path.stat().st_size / 1024
            print(
                f"{size:4d} Rounds: export {export_ms:8.1f} ms ({export_ms / size:.2f} ms/Round), "
                f"nbformat alone {plain_ms:8.1f} ms (export/nbformat {export_ms / plain_ms:.1f}x, "
                f"CPU {export_cpu / plain_cpu:.1f}x), notebook {kb:,.0f} KB, "
                f"{len(exported.notebook.cells)} cells"
            )
    (wall_500, cpu_500), (wall_50, cpu_50) = results[500], results[50]
    print(f"growth 500/50: {wall_500 / wall_50:.1f} (CPU {cpu_500 / cpu_50:.1f}; ~10 = linear)")


if __name__ == "__main__":
    main()
