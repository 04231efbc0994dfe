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

from twnb.base import lazy_exports

if TYPE_CHECKING:
    from twnb.replay.artifacts import visible_folder
    from twnb.replay.command import ExportRequest, run_export
    from twnb.replay.errors import ReplayError
    from twnb.replay.export import ExportResult, export_notebook
    from twnb.replay.name_sources import (
        NeedsSkipped,
        RecordedCode,
        needs_skipped,
        outside_names,
        plugins_called,
        recorded_code,
    )
    from twnb.replay.notebook_import import ImportedNotebook, read_notebook

__all__ = [
    "ExportRequest",
    "ExportResult",
    "ImportedNotebook",
    "NeedsSkipped",
    "RecordedCode",
    "ReplayError",
    "export_notebook",
    "needs_skipped",
    "outside_names",
    "plugins_called",
    "read_notebook",
    "recorded_code",
    "run_export",
    "visible_folder",
]

if not TYPE_CHECKING:  # the type checker reads the imports above, and a name not there is an error
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "ExportRequest": "command",
            "ExportResult": "export",
            "ImportedNotebook": "notebook_import",
            "NeedsSkipped": "name_sources",
            "RecordedCode": "name_sources",
            "ReplayError": "errors",
            "export_notebook": "export",
            "needs_skipped": "name_sources",
            "outside_names": "name_sources",
            "plugins_called": "name_sources",
            "read_notebook": "notebook_import",
            "recorded_code": "name_sources",
            "run_export": "command",
            "visible_folder": "artifacts",
        },
    )
