"""Does the committed build of the JupyterLab extension (twnb/labextension/) match what its sources make?

The built files ship in the repository, so installing twnb runs no npm (hatch_build.py only copies
them). tests/run.sh copies the committed folder aside, rebuilds from labextension/ and runs this
script on both: any difference fails the run, naming the file, and says how to rebuild.

Two parts of a build depend on where the checkout is, not on the sources: the module id of
`remoteEntry`'s container (rspack derives it from the absolute path) and so that file's hashed name,
which package.json's `jupyterlab._build.load` names. They are compared with that id and name taken
out; every other file (the chunks holding the extension's code, named by their content hash; style,
licenses, install.json) must be byte for byte the same.

    python tests/labextension_build.py COMMITTED_DIR BUILT_DIR
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

REBUILD = "cd labextension && npm ci && npm run build, then commit twnb/labextension/"
_REMOTE_ENTRY = re.compile(r"static/remoteEntry\.[0-9a-f]+\.js")
# The container module's id, where remoteEntry defines it (`N={592(e,n,r){`) and where it loads it.
_CONTAINER_ID = re.compile(r"(\bN=\{|\bvar F=I\()\d+")


def _normalised(relative: str, data: bytes) -> bytes:
    if _REMOTE_ENTRY.fullmatch(relative):
        return _CONTAINER_ID.sub(r"\1#", data.decode()).encode()
    if relative == "package.json":
        meta = json.loads(data)
        meta.get("jupyterlab", {}).get("_build", {}).pop("load", None)
        return json.dumps(meta, sort_keys=True).encode()
    return data


def _files(folder: Path) -> dict[str, bytes]:
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            relative = path.relative_to(folder).as_posix()
            key = "static/remoteEntry.js" if _REMOTE_ENTRY.fullmatch(relative) else relative
            found[key] = _normalised(relative, path.read_bytes())
    return found


def differences(committed: Path, built: Path) -> list[str]:
    """One line per file that differs, is missing from or is extra in the committed build."""
    old, new = _files(committed), _files(built)
    lines = [f"{name}: built from the sources but not committed" for name in sorted(new.keys() - old)]
    lines += [f"{name}: committed but no longer built" for name in sorted(old.keys() - new)]
    changed = sorted(name for name in old.keys() & new if old[name] != new[name])
    lines += [f"{name}: differs from the build" for name in changed]
    return lines


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python tests/labextension_build.py COMMITTED_DIR BUILT_DIR", file=sys.stderr)
        return 2
    found = differences(Path(argv[0]), Path(argv[1]))
    if found:
        print(
            "The committed JupyterLab extension (twnb/labextension/) is not what labextension/ builds: "
            f"{'; '.join(found)}. Rebuild it: {REBUILD}.",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
