"""The live widget's state colours for text, readable (>= 4.5:1) in JupyterLab's light and dark themes.

Each is a CSS variable twnb's JupyterLab extension sets per theme (labextension/style/index.css), with
the light theme's value as the fallback where the extension is not loaded. A fixed red was 3.5:1 on
the dark theme's grey (the refused-edit verdict in step mode's panel).
"""

from __future__ import annotations

RED = "var(--twnb-red, #cf222e)"
GREEN = "var(--twnb-green, #1a7f37)"
AMBER = "var(--twnb-amber, #9a6700)"
