"""The kernel layer's parts the notebook reaches through the session layer's front door: the log of the
user's own cells (started before any session exists) and the undo log (kept across sessions). Named
here so the front door can load them, and the kernel layer, only when they are first used."""

from twnb.kernel import UndoLog, UserCellLog, UserCells

__all__ = ["UndoLog", "UserCellLog", "UserCells"]
