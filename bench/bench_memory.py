"""Benchmark: per-role views and YAML save/load of conversations of 50, 100 and 200 rounds.

Each Round is User -> Planner -> CodeInterpreter -> Planner -> User, the CodeInterpreter post carrying
a 10 KB execution_result. Prints one line per figure (best of several runs, milliseconds) and the
200/50 growth ratio of each (about 4 means linear).

    python bench/bench_memory.py
"""

from __future__ import annotations

import gc
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from twnb.memory import (
    Attachment,
    AttachmentType,
    Memory,
    Post,
    load_conversation,
    save_conversation,
)

SIZES = (50, 100, 200)
REPEATS = 5
# The views take a few ms: more runs so the best one is not a run the scheduler interrupted.
VIEW_REPEATS = 40
RESULT_BYTES = 10 * 1024


def _execution_result(index: int) -> str:
    row = "   {:>5}  {:>12.4f}  {:>12.4f}  category_{:<3}  note: ünïcode ✓"
    lines = ["      id         value         score  category       note"]
    while sum(len(line) + 1 for line in lines) < RESULT_BYTES:
        n = len(lines)
        lines.append(row.format(n, n * 1.5 + index, n / 7, n % 13))
    return "\n".join(lines)[:RESULT_BYTES]


def _planner_post(query: str, send_to: str, step: int) -> Post:
    post = Post.create(f"Step {step} for: {query}", "Planner", send_to)
    plan = "1. Load the data\n2. Compute the statistics <sequentially depends on 1>\n3. Report to the user"
    for kind, content in (
        (AttachmentType.plan_reasoning, "The user wants statistics; load then compute."),
        (AttachmentType.init_plan, plan),
        (AttachmentType.plan, plan),
        (AttachmentType.current_plan_step, f"{step}. Compute the statistics"),
        (AttachmentType.stop, "InProcess" if send_to != "User" else "Completed"),
    ):
        post.add_attachment(Attachment.create(kind, content))
    return post


def build_memory(rounds: int) -> Memory:
    memory = Memory("bench")
    for index in range(rounds):
        query = f"compute the statistics of table {index}"
        round = memory.create_round(query)
        round.add_post(Post.create(query, "User", "Planner"))
        round.add_post(_planner_post(query, "CodeInterpreter", 1))
        reply = Post.create(f"Computed the statistics of table {index}.", "CodeInterpreter", "Planner")
        for kind, content in (
            (AttachmentType.thought, "ProgramApe will load the table and describe it."),
            (AttachmentType.reply_type, "python"),
            (AttachmentType.reply_content, f"import pandas as pd\ndf = pd.read_csv('t{index}.csv')\ndf"),
            (AttachmentType.verification, "CORRECT"),
            (AttachmentType.code_error, "No code error."),
            (AttachmentType.execution_status, "SUCCESS"),
            (AttachmentType.execution_result, _execution_result(index)),
            (AttachmentType.artifact_paths, [f"artifacts/t{index}.png"]),
        ):
            reply.add_attachment(Attachment.create(kind, content))
        round.add_post(reply)
        round.add_post(_planner_post(query, "User", 2))
        round.change_round_state("finished")
    return memory


def best_ms(action: Callable[[], object], repeats: int = REPEATS) -> tuple[float, float]:
    """Best wall time and best CPU time of this process, in ms. CPU time is the steadier figure on a
    shared machine (other processes stretch wall time, not CPU time)."""
    walls, cpus = [], []
    for _ in range(repeats):
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls) * 1000, min(cpus) * 1000


def main() -> None:
    figures: dict[str, dict[int, tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for size in SIZES:
            memory = build_memory(size)
            path = Path(folder) / f"conv-{size}.yaml"
            save_conversation(memory.conversation, path)
            checks: dict[str, Callable[[], object]] = {
                "get_role_rounds(Planner)": lambda m=memory: m.get_role_rounds("Planner"),
                "get_role_rounds(CodeInterpreter)": lambda m=memory: m.get_role_rounds("CodeInterpreter"),
                "YAML save": lambda m=memory, p=path: save_conversation(m.conversation, p),
                "YAML load": lambda p=path: load_conversation(p),
            }
            loaded = load_conversation(path)
            assert loaded.to_dict() == memory.conversation.to_dict(), "save/load must be lossless"
            for name, action in checks.items():
                repeats = VIEW_REPEATS if name.startswith("get_role_rounds") else REPEATS
                figures.setdefault(name, {})[size] = best_ms(action, repeats)
            size_mb = path.stat().st_size / 1e6
            print(f"{size:>4} rounds: YAML file {size_mb:.2f} MB")
    for name, by_size in figures.items():
        for size, (wall, cpu) in by_size.items():
            print(f"{name:<34} {size:>4} rounds: {wall:9.2f} ms wall {cpu:9.2f} ms cpu")
    for name, by_size in figures.items():
        (wall_small, cpu_small), (wall_big, cpu_big) = by_size[SIZES[0]], by_size[SIZES[-1]]
        print(
            f"{name:<34} growth {SIZES[-1]}/{SIZES[0]} rounds: {wall_big / wall_small:5.2f}x wall "
            f"{cpu_big / cpu_small:5.2f}x cpu (4.00 = linear)"
        )


if __name__ == "__main__":
    main()
