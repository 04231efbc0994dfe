"""`%load_ext twnb` / `%unload_ext twnb`: register and remove the TaskWeaverMagics.

The notebook's conversation belongs to the kernel, not to one load of the extension: unloading keeps
it on the shell, so `%reload_ext twnb` (after upgrading twnb, say) carries on with the same
conversation and session folder. `%taskweaver reset` is how to start afresh.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.notebook import mention_completer, step_transform
from twnb.notebook.magics import TaskWeaverMagics

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

MAGIC_NAME = "taskweaver"
_KEPT = "_twnb_notebook_session"  # attribute on the shell holding the NotebookSession between loads


def load(shell: InteractiveShell) -> TaskWeaverMagics:
    kept = getattr(shell, _KEPT, None)
    magics = TaskWeaverMagics(shell, notebook=kept)
    shell.register_magics(magics)
    magics.notebook.user_cells.start()  # each Round records the user's own cells that ran before it
    if hasattr(shell, "input_transformers_cleanup"):
        step_transform.install(shell, magics.step_default)
    mention_completer.install(shell, lambda: len(magics.notebook.conversation.rounds))
    if kept is not None:
        delattr(shell, _KEPT)
        rounds = len(kept.conversation.rounds)
        if rounds:
            plural = "s" if rounds != 1 else ""
            print(
                f"twnb: carrying on with this kernel's conversation ({rounds} Round{plural}); "
                "%taskweaver reset starts a new one."
            )
    return magics


def unload(shell: InteractiveShell) -> None:
    step_transform.remove(shell)
    mention_completer.remove(shell)
    manager = shell.magics_manager
    magics = manager.registry.pop(TaskWeaverMagics.__name__, None)
    for kind in ("line", "cell"):
        manager.magics[kind].pop(MAGIC_NAME, None)
    if magics is not None:
        magics.notebook.user_cells.stop()
        setattr(shell, _KEPT, magics.notebook)
        if magics in shell.configurables:
            shell.configurables.remove(magics)


def forget_kept_conversation(shell: InteractiveShell) -> None:
    """Drop what `unload` kept (tests reuse one shell for unrelated notebooks)."""
    if hasattr(shell, _KEPT):
        delattr(shell, _KEPT)
