"""replay layer: a conversation as a notebook and back, and re-running a notebook's code in a fresh kernel.

- `export_notebook(conversation, path, ...)`: an nbformat v4 notebook (a `%taskweaver show ROUND_ID`
  cell per Round with the Round's static bundle, Markdown for requests, plans and messages, a code cell
  per piece of code that ran with its recorded outputs, the whole conversation in
  `metadata.twnb.conversation`), artifacts copied into a visible folder beside it.
- `read_notebook(path)`: the conversation back, ids kept, from that metadata, or from the Round outputs
  (`application/vnd.twnb.round+json`) of any notebook in which Rounds ran.
- `rerun_notebook(...)`: the code cells again in a fresh kernel, outputs compared with the recorded ones.

See docs/architecture.md, contracts 7 and 8.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.replay.artifacts import visible_folder as visible_folder
    from twnb.replay.command import ExportRequest as ExportRequest
    from twnb.replay.command import run_export as run_export
    from twnb.replay.errors import ReplayError as ReplayError
    from twnb.replay.export import ExportResult as ExportResult
    from twnb.replay.export import export_notebook as export_notebook
    from twnb.replay.name_sources import NeedsSkipped as NeedsSkipped
    from twnb.replay.name_sources import RecordedCode as RecordedCode
    from twnb.replay.name_sources import needs_skipped as needs_skipped
    from twnb.replay.name_sources import outside_names as outside_names
    from twnb.replay.name_sources import plugins_called as plugins_called
    from twnb.replay.name_sources import recorded_code as recorded_code
    from twnb.replay.notebook_import import ImportedNotebook as ImportedNotebook
    from twnb.replay.notebook_import import read_notebook as read_notebook
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
