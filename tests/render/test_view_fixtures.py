"""The payload corpus the JupyterLab extension's unit tests read is what twnb writes today.

The test writes each payload of `view_fixtures.BUILDERS` to labextension/test/fixtures/NAME.json (ids
made stable, so a file changes only when what twnb writes does) and fails when a file was missing or
different: the files are then rewritten, ready to commit with the change that made them differ.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from view_fixtures import BUILDERS, FIXTURES

from twnb.render.view import VIEW_VERSION, view_of

VIEWS = FIXTURES.parent / "views"

_ID = re.compile(r"\b(?:round|post|atta|plan)-\d{8}-\d{6}-[0-9a-f]+\b")
_TIME = re.compile(r'"(created_at|finished_at|updated_at)": "[^"]*"')


def stable(payload: dict[str, Any]) -> str:
    """`payload` as JSON with every Round, Post, Attachment and plan id replaced by its place (`post-3`)
    and the plan's clock times by one fixed time."""
    text = json.dumps(payload, indent=1, ensure_ascii=False, sort_keys=True)
    text = _TIME.sub(lambda match: f'"{match.group(1)}": "2026-12-01T12:00:00+00:00"', text)
    names: dict[str, str] = {}
    for found in _ID.findall(text):
        kind = found.split("-")[0]
        names.setdefault(found, f"{kind}-{sum(n.startswith(kind) for n in names.values()) + 1}")
    return _ID.sub(lambda match: names[match.group(0)], text) + "\n"


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_the_extensions_fixture_is_what_twnb_writes(name):
    _check_written(FIXTURES / f"{name}.json", stable(BUILDERS[name]()))


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_the_view_twnb_reads_from_each_fixture_is_written_beside_it(name):
    """The payload's view leaves texts to the record (view.stored_view): the extension's tests check
    that they read back the whole view Python reads (views/NAME.json; none for a payload without one)."""
    payload = json.loads(stable(BUILDERS[name]()))  # the fixture, as the extension's tests read it
    view = (payload.get("twnb") or {}).get("view")
    if not isinstance(view, dict) or view.get("version") != VIEW_VERSION:
        pytest.skip("no view of this version: the extension draws what it can (view.test.ts)")
    whole = json.dumps(dict(view_of(payload)), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    _check_written(VIEWS / f"{name}.json", whole)


def _check_written(path: Path, written: str) -> None:
    before = path.read_text() if path.exists() else None
    if before != written:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(written)
    assert before == written, f"{path} was stale and has been rewritten: commit it"


def test_ids_are_made_stable():
    payload = {"id": "round-20261202-091620-8b9c26b8", "post_list": [{"id": "post-20261202-091620-1a2b3c4d"}]}
    assert json.loads(stable(payload)) == {"id": "round-1", "post_list": [{"id": "post-1"}]}
