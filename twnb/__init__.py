"""twnb: TaskWeaver's code-first agent inside Jupyter.

Importing the package stays cheap (no openai, no ipywidgets): `%load_ext twnb` must be fast, so
every heavy import happens where it is used. `twnb.plugin` (the `@twnb.plugin` decorator) is loaded
when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb._version import __version__ as __version__
from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from twnb.plugins import plugin as plugin
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where the built JupyterLab extension is, for `jupyter labextension develop`."""
    return [{"src": "labextension", "dest": "twnb-labextension"}]


def load_ipython_extension(ipython: InteractiveShell) -> None:
    """`%load_ext twnb`: the %%taskweaver magics (imported here, not with the package)."""
    # lazy: twnb.notebook (~170 modules with IPython, ~95 ms) loads at %load_ext, not at import twnb
    from twnb.notebook import load

    load(ipython)


def unload_ipython_extension(ipython: InteractiveShell) -> None:
    """`%unload_ext twnb`."""
    from twnb.notebook import unload

    unload(ipython)
