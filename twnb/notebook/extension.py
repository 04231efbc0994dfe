"""`%load_ext twnb` / `%unload_ext twnb`: register and remove the TaskWeaverMagics."""

from __future__ import annotations

from typing import Any

from twnb.notebook.magics import TaskWeaverMagics

MAGIC_NAME = "taskweaver"


def load(shell: Any) -> TaskWeaverMagics:
    magics = TaskWeaverMagics(shell)
    shell.register_magics(magics)
    return magics


def unload(shell: Any) -> None:
    manager = shell.magics_manager
    magics = manager.registry.pop(TaskWeaverMagics.__name__, None)
    for kind in ("line", "cell"):
        manager.magics[kind].pop(MAGIC_NAME, None)
    if magics is not None and magics in shell.configurables:
        shell.configurables.remove(magics)
