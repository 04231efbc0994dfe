"""session layer: the Round driver, autosave, limits, cancellation, and the factory that builds a
session from settings. See docs/architecture.md, "A Round's data flow". `__all__` is the layer's
public API (with the kernel layer's `UserCellLog`, which the notebook starts before any session exists:
each Round records the user's own cells it saw, and `UndoLog`, which the notebook keeps across sessions).

The names load lazily: reading or writing a saved conversation (`twnb export x.ipynb -o x.yaml`) loads
the conversation store, not the kernel layer, the roles or the factory."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.session.autosave import is_autosave_file as is_autosave_file
    from twnb.session.autosave import load_autosaved_conversation as load_autosaved_conversation
    from twnb.session.autosave import rounds_folder as rounds_folder
    from twnb.session.autosave import save_round as save_round
    from twnb.session.code_request import ApprovedRun as ApprovedRun
    from twnb.session.code_request import CodeDecision as CodeDecision
    from twnb.session.code_request import CodeRequest as CodeRequest
    from twnb.session.code_request import EditedRun as EditedRun
    from twnb.session.code_request import NeedsApproval as NeedsApproval
    from twnb.session.code_request import PlanDecision as PlanDecision
    from twnb.session.code_request import PlanRequest as PlanRequest
    from twnb.session.code_request import RefusedEdit as RefusedEdit
    from twnb.session.code_request import Skipped as Skipped
    from twnb.session.code_request import UndoneRun as UndoneRun
    from twnb.session.code_request import UserStopped as UserStopped
    from twnb.session.conversation_store import absolute_artifact_paths as absolute_artifact_paths
    from twnb.session.conversation_store import checked_conversation as checked_conversation
    from twnb.session.conversation_store import checked_session_id as checked_session_id
    from twnb.session.conversation_store import load_conversation_and_session as load_conversation_and_session
    from twnb.session.conversation_store import load_conversation_file as load_conversation_file
    from twnb.session.conversation_store import save_conversation_file as save_conversation_file
    from twnb.session.conversation_store import saved_round_count as saved_round_count
    from twnb.session.experience import remember_offer as remember_offer
    from twnb.session.factory import NotebookParts as NotebookParts
    from twnb.session.factory import artifacts_folder as artifacts_folder
    from twnb.session.factory import build_live_session as build_live_session
    from twnb.session.factory import build_session as build_session
    from twnb.session.factory import experience_store as experience_store
    from twnb.session.factory import plugin_catalog as plugin_catalog
    from twnb.session.factory import plugin_folders as plugin_folders
    from twnb.session.factory import rules_in_force as rules_in_force
    from twnb.session.factory import undo_log_for as undo_log_for
    from twnb.session.kernel_parts import UndoLog as UndoLog
    from twnb.session.kernel_parts import UserCellLog as UserCellLog
    from twnb.session.kernel_parts import UserCells as UserCells
    from twnb.session.kernel_parts import refuse_setting_change as refuse_setting_change
    from twnb.session.kernel_parts import written_by_generated_code as written_by_generated_code
    from twnb.session.mentions import Mention as Mention
    from twnb.session.mentions import MentionError as MentionError
    from twnb.session.mentions import MentionResolver as MentionResolver
    from twnb.session.plan_notebook import PlanNotebook as PlanNotebook
    from twnb.session.plan_notebook import recorded_plan as recorded_plan
    from twnb.session.recorded_code import recorded_code_check as recorded_code_check
    from twnb.session.recorded_code import run_recorded_cell as run_recorded_cell
    from twnb.session.recorded_context import replayed_mentions as replayed_mentions
    from twnb.session.redactor import redactor_for as redactor_for
    from twnb.session.rerun_plugins import bind_rerun_plugins as bind_rerun_plugins
    from twnb.session.rerun_plugins import missing_plugin_line as missing_plugin_line
    from twnb.session.rerun_plugins import missing_plugin_lines as missing_plugin_lines
    from twnb.session.round_undo import KEPT_ROUNDS as KEPT_ROUNDS
    from twnb.session.round_undo import UndoOutcome as UndoOutcome
    from twnb.session.round_undo import find_round as find_round
    from twnb.session.session import RoundLimitReached as RoundLimitReached
    from twnb.session.session import Session as Session
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
