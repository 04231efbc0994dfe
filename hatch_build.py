"""Build hook: puts the JupyterLab extension (labextension/, TypeScript) into the wheel, prebuilt.

The built bundle lands in twnb/labextension/ (git-ignored) and is shipped as shared data under
share/jupyter/labextensions/twnb-labextension/, where JupyterLab and Notebook 7 find it, so installing a
built wheel needs no node. Building from a checkout runs `npm ci` and `npm run build` when the bundle is
missing or older than its sources; without node and npm the package installs without the extension and
says so (a finished Round then shows as HTML).
"""

from __future__ import annotations

import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SOURCE = "labextension"
BUNDLE = "twnb/labextension"
SHARED = "share/jupyter/labextensions/twnb-labextension"
# What the bundle is built from: a change to any of these makes it stale.
INPUTS = ("src", "style", "package.json", "package-lock.json", "tsconfig.json")


class LabextensionBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        source, bundle = root / SOURCE, root / BUNDLE
        if not source.is_dir():  # an sdist built without the extension's sources
            return
        if self.target_name == "sdist":
            if (bundle / "package.json").is_file():  # ship a prebuilt bundle when there is one
                build_data["force_include"][str(bundle)] = BUNDLE
            return
        if _stale(source, bundle):
            _build(source, bundle)
        if (bundle / "package.json").is_file():  # the build copies install.json in, too
            build_data["shared_data"][str(bundle)] = SHARED


def _stale(source: Path, bundle: Path) -> bool:
    built = bundle / "package.json"
    if not built.is_file():
        return True
    newest = max(
        (path.stat().st_mtime for name in INPUTS for path in _files(source / name)),
        default=0.0,
    )
    return newest > built.stat().st_mtime


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return [child for child in path.rglob("*") if child.is_file()] if path.is_dir() else []


def _build(source: Path, bundle: Path) -> None:
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        message = (
            "twnb: node and npm not found, so the JupyterLab extension is not built"
            + (" (the existing, older build is kept)" if (bundle / "package.json").is_file() else "")
            + ": finished Rounds show as HTML instead. Install Node.js 20+ and npm, then reinstall to get it."
        )
        warnings.warn(message, stacklevel=1)
        print(f"WARNING: {message}")  # pip shows a build hook's output with -v; the warning alone hides
        return
    install = [npm, "ci"] if (source / "package-lock.json").is_file() else [npm, "install"]
    for command in ([*install, "--no-audit", "--no-fund"], [npm, "run", "build"]):
        subprocess.run(command, cwd=source, check=True)
