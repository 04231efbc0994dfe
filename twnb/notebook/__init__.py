"""notebook layer: what users meet in Jupyter (docs/architecture.md: "Layers", contracts 5 and 6).

- `load(shell)`/`unload(shell)`: `%load_ext twnb`/`%unload_ext twnb` (behind `twnb.load_ipython_extension`).
- `TaskWeaverMagics`: `%%taskweaver` and `%taskweaver SUBCOMMAND`, settings as traitlets.

Inside: `notebook_session.NotebookSession` (the notebook's one session, built lazily from the settings),
`round_display.RoundDisplay` (one Round's output: the live widget, then the static bundle),
`round_view.RoundView` (the widget, an Observer), step mode (`step_mode`, `step_transform`).

The names load lazily: `%load_ext twnb` stays cheap, and ipywidgets loads only when a Round runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.notebook.extension import load as load
    from twnb.notebook.extension import unload as unload
    from twnb.notebook.magics import TaskWeaverMagics as TaskWeaverMagics
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
