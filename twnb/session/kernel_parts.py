"""The kernel layer's parts the notebook reaches through the session layer's front door: the log of the
user's own cells (started before any session exists), the undo log (kept across sessions), and the
runtime guard's answers the notebook's settings ask (a change refused, a file generated code wrote). Named
here so the front door can load them, and the kernel layer, only when they are first used."""

from twnb.kernel import UndoLog, UserCellLog, UserCells, refuse_setting_change, written_by_generated_code

__all__ = ["UndoLog", "UserCellLog", "UserCells", "refuse_setting_change", "written_by_generated_code"]
