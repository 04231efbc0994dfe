"""A case's `code_interpreter.code_prefix`, honoured as TaskWeaver's harness expects.

TaskWeaver runs each piece of generated code as one cell, `f"{code_prefix}\\n## CODE START ##\\n{code}"`.
Its DS-1000 harness (`auto_eval/ds1000_scripts/case.yaml`) sets the prefix to the cell magic
`%%_taskweaver_write_and_run solution.py`, which TaskWeaver's kernel defines: it writes the cell's body
(`## CODE START ##` and the code) to that file, then runs it; the case's `eval_code` then tests the
solution it reads from `solution.py`. A prefix of plain Python runs before each piece of code.

twnb runs generated code itself (the live shell's `run_cell(code, store_history=False)`), so the
case's kernel is given, before `%load_ext twnb`, a `pre_run_cell` hook that does the prefix's part
for each piece of generated code: it writes the file, or runs the Python, then the code runs as
twnb runs it. Cells of the notebook itself (stored in its history) are left alone. Any other magic as
a prefix cannot be honoured, and the case is skipped saying so (`prefix_problem`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

__all__ = ["CODE_START", "apply_code_prefix", "prefix_problem", "prefix_setup_lines"]

CODE_START = "## CODE START ##"
_WRITE_AND_RUN = re.compile(r"^\s*%%_taskweaver_write_and_run[ \t]+(\S+)\s*$")


def prefix_problem(prefix: str) -> str | None:
    """Why twnb cannot honour `prefix` (None: it can)."""
    if not prefix.strip() or _WRITE_AND_RUN.match(prefix):
        return None
    try:
        ast.parse(prefix)
    except SyntaxError:
        first = prefix.strip().splitlines()[0]
        return (
            f"its code_prefix {first!r} is neither Python nor TaskWeaver's %%_taskweaver_write_and_run "
            "FILE, which twnb's kernel cannot run before each piece of code"
        )
    return None


def prefix_setup_lines(prefix: str) -> list[str]:
    """Lines of the case's set-up cell that install the prefix in its kernel (before %load_ext twnb)."""
    return [
        "from twnb.evaluation.code_prefix import apply_code_prefix as _twnb_code_prefix",
        f"_twnb_code_prefix(get_ipython(), {prefix!r})",
        "del _twnb_code_prefix",
    ]


def apply_code_prefix(shell: Any, prefix: str) -> None:
    """Do `prefix`'s part before each piece of generated code `shell` runs (in the case's kernel)."""
    match = _WRITE_AND_RUN.match(prefix)

    def before(info: Any) -> None:
        if info.store_history or not info.raw_cell:  # a cell of the notebook, not generated code
            return
        if match is not None:
            # TaskWeaver's magic writes the cell's body: the marker line, then the code.
            path = Path(match.group(1))
            path.write_text(f"{CODE_START}\n{info.raw_cell}", encoding="utf-8")
        else:
            exec(compile(prefix, "<code_prefix>", "exec"), shell.user_ns)  # the case's own Python

    shell.events.register("pre_run_cell", before)
