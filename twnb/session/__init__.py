"""session layer: the Round driver, autosave, limits, cancellation, and the factory that builds a
session from settings. See docs/architecture.md, "A Round's data flow". `__all__` is the layer's
public API (with the kernel layer's `UserCellLog`, which the notebook starts before any session exists:
each Round records the user's own cells it saw)."""

from twnb.kernel.user_cells import UserCellLog, UserCells
from twnb.session.autosave import is_autosave_file, load_autosaved_conversation
from twnb.session.code_request import CodeRequest
from twnb.session.factory import build_live_session, build_session, redactor_for
from twnb.session.session import RoundLimitReached, Session

__all__ = [
    "CodeRequest",
    "RoundLimitReached",
    "Session",
    "UserCellLog",
    "UserCells",
    "build_live_session",
    "build_session",
    "is_autosave_file",
    "load_autosaved_conversation",
    "redactor_for",
]
