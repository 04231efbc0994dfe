"""session layer: the Round driver, autosave, limits, cancellation, and the factory that builds a
session from settings. See docs/architecture.md, "A Round's data flow". `__all__` is the layer's
public API (with the kernel layer's `UserCellLog`, which the notebook starts before any session exists:
each Round records the user's own cells it saw, and `UndoLog`, which the notebook keeps across sessions)."""

from twnb.kernel import UndoLog, UserCellLog, UserCells
from twnb.session.autosave import is_autosave_file, load_autosaved_conversation, rounds_folder, save_round
from twnb.session.code_request import (
    ApprovedRun,
    CodeDecision,
    CodeRequest,
    EditedRun,
    NeedsApproval,
    PlanDecision,
    PlanRequest,
    RefusedEdit,
    Skipped,
    UndoneRun,
    UserStopped,
)
from twnb.session.conversation_store import (
    absolute_artifact_paths,
    checked_conversation,
    checked_session_id,
    load_conversation_and_session,
    load_conversation_file,
    save_conversation_file,
    saved_round_count,
)
from twnb.session.factory import (
    artifacts_folder,
    build_live_session,
    build_session,
    plugin_catalog,
    plugin_folders,
    redactor_for,
    undo_log_for,
)
from twnb.session.plan_notebook import PlanNotebook, recorded_plan
from twnb.session.recorded_code import recorded_code_check, run_recorded_cell
from twnb.session.rerun_plugins import bind_rerun_plugins, missing_plugin_line, missing_plugin_lines
from twnb.session.round_undo import KEPT_ROUNDS, UndoOutcome, find_round
from twnb.session.session import RoundLimitReached, Session

__all__ = [
    "KEPT_ROUNDS",
    "ApprovedRun",
    "CodeDecision",
    "CodeRequest",
    "EditedRun",
    "NeedsApproval",
    "PlanDecision",
    "PlanNotebook",
    "PlanRequest",
    "RefusedEdit",
    "RoundLimitReached",
    "Session",
    "Skipped",
    "UndoLog",
    "UndoOutcome",
    "UndoneRun",
    "UserCellLog",
    "UserCells",
    "UserStopped",
    "absolute_artifact_paths",
    "artifacts_folder",
    "bind_rerun_plugins",
    "build_live_session",
    "build_session",
    "checked_conversation",
    "checked_session_id",
    "find_round",
    "is_autosave_file",
    "load_autosaved_conversation",
    "load_conversation_and_session",
    "load_conversation_file",
    "missing_plugin_line",
    "missing_plugin_lines",
    "plugin_catalog",
    "plugin_folders",
    "recorded_code_check",
    "recorded_plan",
    "redactor_for",
    "rounds_folder",
    "run_recorded_cell",
    "save_conversation_file",
    "save_round",
    "saved_round_count",
    "undo_log_for",
]
