"""Undo: each run's snapshot (what it replaced, copies of what it may change in place, the files it
overwrote), the content digests that say whether something changed since, and which calls only read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.kernel.undo.database_reads import DATABASE_MODULES as DATABASE_MODULES
    from twnb.kernel.undo.database_reads import QUERY_METHODS as QUERY_METHODS
    from twnb.kernel.undo.database_reads import call_reads_database as call_reads_database
    from twnb.kernel.undo.database_reads import sql_only_reads as sql_only_reads
    from twnb.kernel.undo.database_reads import statement_of as statement_of
    from twnb.kernel.undo.in_place_estimate import MB as MB
    from twnb.kernel.undo.in_place_estimate import InPlaceEstimate as InPlaceEstimate
    from twnb.kernel.undo.in_place_estimate import InPlaceTarget as InPlaceTarget
    from twnb.kernel.undo.in_place_estimate import estimate_in_place as estimate_in_place
    from twnb.kernel.undo.undo_log import UNDONE_FOLDER as UNDONE_FOLDER
    from twnb.kernel.undo.undo_log import RunSnapshot as RunSnapshot
    from twnb.kernel.undo.undo_log import UndoLog as UndoLog
    from twnb.kernel.undo.undo_log import UndoReport as UndoReport
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
