"""session layer: the Round driver, autosave, limits, cancellation, and the factory that builds a
session from settings. See docs/architecture.md, "A Round's data flow". `__all__` is the layer's
public API (with the kernel layer's `UserCellLog`, which the notebook starts before any session exists:
each Round records the user's own cells it saw, and `UndoLog`, which the notebook keeps across sessions).

The names load lazily: reading or writing a saved conversation (`twnb export x.ipynb -o x.yaml`) loads
the conversation store, not the kernel layer, the roles or the factory."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_exports

if TYPE_CHECKING:
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
    from twnb.session.experience import remember_offer
    from twnb.session.factory import (
        artifacts_folder,
        build_live_session,
        build_session,
        experience_store,
        plugin_catalog,
        plugin_folders,
        rules_in_force,
        undo_log_for,
    )
    from twnb.session.kernel_parts import (
        UndoLog,
        UserCellLog,
        UserCells,
        refuse_setting_change,
        written_by_generated_code,
    )
    from twnb.session.mentions import Mention, MentionError, MentionResolver
    from twnb.session.plan_notebook import PlanNotebook, recorded_plan
    from twnb.session.recorded_code import recorded_code_check, run_recorded_cell
    from twnb.session.redactor import redactor_for
    from twnb.session.rerun_plugins import bind_rerun_plugins, missing_plugin_line, missing_plugin_lines
    from twnb.session.round_undo import KEPT_ROUNDS, UndoOutcome, find_round
    from twnb.session.session import RoundLimitReached, Session

__all__ = [
    "KEPT_ROUNDS",
    "ApprovedRun",
    "CodeDecision",
    "CodeRequest",
    "EditedRun",
    "Mention",
    "MentionError",
    "MentionResolver",
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
    "experience_store",
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
    "refuse_setting_change",
    "remember_offer",
    "rounds_folder",
    "rules_in_force",
    "run_recorded_cell",
    "save_conversation_file",
    "save_round",
    "saved_round_count",
    "undo_log_for",
    "written_by_generated_code",
]

if not TYPE_CHECKING:  # the type checker reads the imports above, and a name not there is an error
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "remember_offer": "experience",
            "experience_store": "factory",
            "MentionResolver": "mentions",
            "MentionError": "mentions",
            "Mention": "mentions",
            "rules_in_force": "factory",
            "ApprovedRun": "code_request",
            "CodeDecision": "code_request",
            "CodeRequest": "code_request",
            "EditedRun": "code_request",
            "KEPT_ROUNDS": "round_undo",
            "NeedsApproval": "code_request",
            "PlanDecision": "code_request",
            "PlanNotebook": "plan_notebook",
            "PlanRequest": "code_request",
            "RefusedEdit": "code_request",
            "RoundLimitReached": "session",
            "Session": "session",
            "Skipped": "code_request",
            "UndoLog": "kernel_parts",
            "UndoOutcome": "round_undo",
            "UndoneRun": "code_request",
            "UserCellLog": "kernel_parts",
            "UserCells": "kernel_parts",
            "refuse_setting_change": "kernel_parts",
            "written_by_generated_code": "kernel_parts",
            "UserStopped": "code_request",
            "absolute_artifact_paths": "conversation_store",
            "artifacts_folder": "factory",
            "bind_rerun_plugins": "rerun_plugins",
            "build_live_session": "factory",
            "build_session": "factory",
            "checked_conversation": "conversation_store",
            "checked_session_id": "conversation_store",
            "find_round": "round_undo",
            "is_autosave_file": "autosave",
            "load_autosaved_conversation": "autosave",
            "load_conversation_and_session": "conversation_store",
            "load_conversation_file": "conversation_store",
            "missing_plugin_line": "rerun_plugins",
            "missing_plugin_lines": "rerun_plugins",
            "plugin_catalog": "factory",
            "plugin_folders": "factory",
            "recorded_code_check": "recorded_code",
            "recorded_plan": "plan_notebook",
            "redactor_for": "redactor",
            "rounds_folder": "autosave",
            "run_recorded_cell": "recorded_code",
            "save_conversation_file": "conversation_store",
            "save_round": "autosave",
            "saved_round_count": "conversation_store",
            "undo_log_for": "factory",
        },
    )
