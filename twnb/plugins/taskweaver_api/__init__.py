"""What TaskWeaver plugins import from TaskWeaver (`taskweaver.plugin`), for when TaskWeaver is not
installed: `from taskweaver.plugin import Plugin, register_plugin` works unchanged.

These modules are twnb's own, written to TaskWeaver's documented plugin API. They are reached as
`taskweaver...` only through the finder in `twnb/plugins/taskweaver_finder.py`, which twnb installs
when it first loads a plugin folder and which stands last in `sys.meta_path`: an installed TaskWeaver
is found first and used as it is. Nothing here is importable as `taskweaver` otherwise, so importing
twnb never shadows anything.
"""
