"""twnb: TaskWeaver's code-first agent inside Jupyter.

Importing the package stays cheap (no openai, no ipywidgets): `%load_ext twnb` must be fast, so
every heavy import happens where it is used. `twnb.plugin` (the `@twnb.plugin` decorator) is looked
up when first used.
"""

from typing import Any

from twnb._version import __version__

__all__ = ["__version__", "load_ipython_extension", "plugin", "unload_ipython_extension"]


def __getattr__(name: str) -> Any:
    if name == "plugin":  # `@twnb.plugin`: a notebook function becomes a plugin (twnb/plugins/decorator.py)
        from twnb.plugins.decorator import plugin

        return plugin
    raise AttributeError(f"module 'twnb' has no attribute {name!r}")


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where the built JupyterLab extension is, for `jupyter labextension develop`."""
    return [{"src": "labextension", "dest": "twnb-labextension"}]


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext twnb`: the %%taskweaver magics (imported here, not with the package)."""
    from twnb.notebook.extension import load

    load(ipython)


def unload_ipython_extension(ipython: object) -> None:
    """`%unload_ext twnb`."""
    from twnb.notebook.extension import unload

    unload(ipython)
