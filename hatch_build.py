"""Build hook: puts the JupyterLab extension, built and committed in twnb/labextension/, into the wheel.

The bundle is made from labextension/ (TypeScript) by `cd labextension && npm ci && npm run build` and
committed with the sources, so installing twnb (from a clone, an sdist or a wheel) runs no npm and
needs no node: this hook only ships the committed bundle as shared data under
share/jupyter/labextensions/twnb-labextension/, where JupyterLab and Notebook 7 find it. tests/run.sh
rebuilds it and fails when the committed bundle is not what the sources make
(tests/labextension_build.py). A checkout without the bundle installs without the extension and says
so (a finished Round then shows as HTML).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

BUNDLE = "twnb/labextension"
SHARED = "share/jupyter/labextensions/twnb-labextension"
BUILD_COMMAND = "cd labextension && npm ci && npm run build"


class LabextensionBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        bundle = Path(self.root) / BUNDLE
        if not (bundle / "package.json").is_file():
            return _skip(f"{BUNDLE}/ holds no built extension")
        if self.target_name == "sdist":
            build_data["force_include"][str(bundle)] = BUNDLE
            return None
        build_data["shared_data"][str(bundle)] = SHARED  # the build copied install.json in, too
        return None


def _skip(reason: str) -> None:
    message = (
        f"twnb: {reason}, so the JupyterLab extension is not installed: finished Rounds show as HTML "
        f"instead. Build it from labextension/ (Node.js 20.19 or later: {BUILD_COMMAND}), then reinstall."
    )
    warnings.warn(message, stacklevel=2)
    print(f"WARNING: {message}")  # pip shows a build hook's output with -v; the warning alone hides
