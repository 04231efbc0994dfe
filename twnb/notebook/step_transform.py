"""Step mode's cell rewrite: a `%%taskweaver --step` cell becomes one awaited call.

Widget clicks can be handled while a cell runs only if the cell awaits (ipykernel 7.4 dispatches comm
messages while an async cell waits), so this `input_transformers_cleanup` hook turns a step cell into
`await <twnb.notebook.step_mode>.run_step_cell(flags, body)`, which IPython's autoawait runs as a
coroutine on the kernel's loop. Other cells, and `%%taskweaver` cells without step mode, are untouched.

Step mode is on for a cell with `--step` or `--step=risky` (not `--step=off`), or when the `step`
setting is on or risky (`%config TaskWeaverMagics.step = True`, TWNB_STEP, twnb.yaml). The check runs
for `%%taskweaver` cells only and imports nothing heavy.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

CELL_MAGIC = "%%taskweaver"
NOT_A_STEP_CELL = (
    "Step mode runs only in a notebook cell whose first line is %%taskweaver --step (it is rewritten "
    "into an awaited cell when it runs); nothing was run."
)


def step_rewriter(
    shell: InteractiveShell, step_default: Callable[[], str]
) -> Callable[[list[str]], list[str]]:
    """The hook; `step_default()` is the `step` setting ("off", "on", "risky") for a cell without
    `--step`."""

    def rewrite(lines: list[str]) -> list[str]:
        if not lines or not lines[0].startswith(CELL_MAGIC):
            return lines
        if getattr(shell, "kernel", None) is None:
            # No kernel, no widgets: the plain magic refuses step mode in one line, without depending on
            # how this shell runs an awaited cell.
            return lines
        head = lines[0].rstrip("\n")
        flags = head[len(CELL_MAGIC) :]
        if flags and not flags[0].isspace():
            return lines  # %%taskweaverx: some other magic
        if not wants_step(flags, step_default):
            return lines
        body = "".join(lines[1:])
        call = "__import__('twnb.notebook.step_mode', fromlist=['run_step_cell']).run_step_cell"
        return [f"await {call}({flags.strip()!r}, {body!r})\n"]

    return rewrite


def wants_step(flags: str, step_default: Callable[[], str]) -> bool:
    try:
        words = shlex.split(flags)
    except ValueError:
        return False  # the magic itself says what is wrong with the line
    if any(word in ("-h", "--help") for word in words):
        return False
    given = step_flag(words)
    if given is not None:
        return given != "off"
    try:
        return step_default() != "off"
    except Exception:  # settings that do not resolve: the plain path says why
        return False


def step_flag(words: list[str]) -> str | None:
    """The mode `--step`, `--step=MODE` or `--step MODE` names ("on" for a bare `--step`), else None."""
    for index, word in enumerate(words):
        if word.startswith("--step="):
            return word.split("=", 1)[1]
        if word == "--step":
            following = words[index + 1] if index + 1 < len(words) else ""
            return following if following in ("on", "risky", "off") else "on"
    return None


def install(shell: InteractiveShell, step_default: Callable[[], str]) -> None:
    """Add the hook once (a reload replaces it)."""
    remove(shell)
    hook = step_rewriter(shell, step_default)
    hook.twnb_step_hook = True  # type: ignore[attr-defined]
    shell.input_transformers_cleanup.append(hook)


def remove(shell: InteractiveShell) -> None:
    hooks = getattr(shell, "input_transformers_cleanup", None)
    if hooks is None:
        return
    hooks[:] = [hook for hook in hooks if not getattr(hook, "twnb_step_hook", False)]
