"""What a `%taskweaver SUBCOMMAND` uses of the magics: the notebook's session, the shell, the settings set
with %config, and one way to speak (subcommand_table.py registers the subcommands)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from twnb.config import ResolvedSettings
    from twnb.notebook.notebook_session import NotebookSession
    from twnb.notebook.recorded_round import RecordedRounds


@dataclass
class SubcommandContext:
    """The magics' parts a subcommand reads or changes (`traitlet_values`: the settings set here)."""

    notebook: NotebookSession
    shell: InteractiveShell
    traitlet_values: Callable[[], dict[str, Any]]
    recorded_rounds: RecordedRounds | None = None  # `show` of a Round only a notebook holds (made once)

    def say(self, message: str, *, error: bool = False) -> None:
        print(message, file=sys.stderr if error else sys.stdout)

    def resolve(self) -> ResolvedSettings:
        """The effective settings (flags aside); raises ValueError with what is wrong."""
        return self.notebook.resolve({}, self.traitlet_values())

    def settings_or_none(self) -> ResolvedSettings | None:
        """The effective settings, or None when they do not resolve (save and load work without)."""
        try:
            return self.resolve()
        except ValueError:
            return None

    def path(self, text: str) -> Path:
        return Path(text).expanduser()  # relative to the kernel's current directory, as `open` would be


def round_running_message(what: str) -> str:
    return (
        f"A Round is running: {what} would change what it relies on, so nothing was done. "
        "Run it in a cell of its own after the Round ends."
    )


def one_line(error: BaseException) -> str:
    """An error's text on one line (YAML parser messages span several)."""
    return " ".join(str(error).split())
