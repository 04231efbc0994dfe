"""The notebook layer (docs/architecture.md: "Layers", contracts 5 and 6): what users meet in Jupyter.

- `magics.TaskWeaverMagics`: `%%taskweaver` and `%taskweaver SUBCOMMAND`, settings as traitlets
  (`extension.load`/`unload` back `twnb.load_ipython_extension`).
- `notebook_session.NotebookSession`: the notebook's one session, built lazily from the settings.
- `round_display.RoundDisplay`: one Round's output, the live widget beside the static bundle, updated
  when the Round ends; `round_view.RoundView` (the widget, an Observer), `throttle.Throttle`,
  `text_progress.TextProgress` (shells without widgets), `history_table`, `conversation_variables`.

Nothing is imported here: `%load_ext twnb` stays cheap, and ipywidgets loads only when a Round runs.
"""
