"""The repository explains itself: nothing in it sends a reader to documents a clone does not have."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Spelt in pieces so this file does not match itself.
OUTSIDE = re.compile("DESIGN" + r"\.md|\breference" + r"/[\w.-]+\.md")
CHECKED = ("twnb", "tests", "bench", "docs", "labextension", "notebooks")
SUFFIXES = {".py", ".md", ".yaml", ".yml", ".txt", ".toml", ".cfg", ".ts", ".css", ".json"}


def pointers_outside(root: Path) -> list[str]:
    files = [root / "README.md"] + [
        path
        for folder in CHECKED
        if (root / folder).is_dir()
        for path in sorted((root / folder).rglob("*"))
        if path.suffix in SUFFIXES and path.is_file() and "node_modules" not in path.parts
    ]
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    return found


def test_no_file_points_at_documents_outside_the_repository():
    found = pointers_outside(ROOT)
    assert not found, "point at docs/architecture.md (or say it) instead:\n" + "\n".join(found)


def test_a_pointer_outside_is_found_with_its_file_and_line(tmp_path):
    (tmp_path / "README.md").write_text("fine\n")
    (tmp_path / "twnb").mkdir()
    (tmp_path / "twnb" / "x.py").write_text('"""Doc.\n\nSee reference/' + 'taskweaver.md §1."""\n')
    assert pointers_outside(tmp_path) == ["twnb/x.py:3: See reference/" + 'taskweaver.md §1."""']
