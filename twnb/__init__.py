"""twnb: TaskWeaver's code-first agent inside Jupyter.

Importing the package stays cheap (no openai, no ipywidgets): `%load_ext twnb` must be fast, so
every heavy import happens where it is used.
"""

from twnb._version import __version__

__all__ = ["__version__"]
