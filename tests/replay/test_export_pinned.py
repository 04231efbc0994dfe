"""Export output pinned byte for byte: the notebook a conversation exports to is exactly the one in
tests/data/exported/ (the repository's quickstart and bigger-than-memory conversations, which would
make large files there, by their SHA-256 in digests.json).

Made deterministic by fixing only what is random or timed in an export: the clock, the random part
of ids (counted while a conversation is built, one constant while it is exported), nbformat's random
cell ids. A speed-up must leave these files as they are; a change meant to
alter what an export writes regenerates them, and the diff shows what changed. The pins hold for the
Pygments that made them (it writes the highlighted code's markup; digests.json names its version): with
another Pygments, as a fresh install may bring, the pins are skipped, saying so, until regenerated:

    TWNB_REGENERATE_EXPORTS=1 python -m pytest tests/replay/test_export_pinned.py -q -p no:cacheprovider
"""

from __future__ import annotations

import datetime
import difflib
import hashlib
import itertools
import json
import os
import secrets
from pathlib import Path

import pygments
import pytest
from support.nb_rounds import HOSTILE, analysis_round

import twnb.base.clock
import twnb.replay.nodes
from twnb.memory import Conversation
from twnb.replay import export_notebook
from twnb.session import redactor_for
from twnb.session.conversation_store import load_conversation_file

ROOT = Path(__file__).resolve().parent.parent.parent
PINNED = ROOT / "tests" / "data" / "exported"
DIGESTS = PINNED / "digests.json"
REGENERATE = os.environ.get("TWNB_REGENERATE_EXPORTS") == "1"

FILES = {path.stem: path for path in sorted((ROOT / "tests" / "data").glob("*.yaml"))}
DIGESTED = {
    "quickstart": ROOT / "notebooks" / "quickstart-conversation.yaml",
    "bigger-than-memory": ROOT / "notebooks" / "bigger-than-memory-conversation.yaml",
}


class _FrozenClock(datetime.datetime):
    @classmethod
    def now(cls, tz=None):  # type: ignore[override]
        return datetime.datetime(2026, 12, 1, 9, 30, 0, 123456, tzinfo=tz)


def _pinned_with() -> dict[str, str]:
    return json.loads(DIGESTS.read_text()).get("made_with", {}) if DIGESTS.exists() else {}


def _skip_unless_same_pygments() -> None:
    """Skip a pin made with another Pygments (its markup of highlighted code is not twnb's to keep)."""
    if REGENERATE:
        digests = json.loads(DIGESTS.read_text()) if DIGESTS.exists() else {}
        digests["made_with"] = {"pygments": pygments.__version__}
        DIGESTS.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
        return
    pinned = _pinned_with().get("pygments")
    if pinned != pygments.__version__:
        pytest.skip(
            f"the pins were made with Pygments {pinned} and this is {pygments.__version__}: "
            "TWNB_REGENERATE_EXPORTS=1 regenerates them (read the diff)"
        )


@pytest.fixture
def deterministic(monkeypatch):
    """The clock stopped, random hex counted, cell ids numbered: two exports of a conversation built
    or loaded under it are the same bytes."""
    hexes = itertools.count()
    cells = itertools.count()
    monkeypatch.setattr(twnb.base.clock, "datetime", _FrozenClock)
    monkeypatch.setattr(
        secrets, "token_hex", lambda n=32: hashlib.sha256(str(next(hexes)).encode()).hexdigest()[: 2 * n]
    )
    monkeypatch.setattr(twnb.replay.nodes, "random_cell_id", lambda: f"c{next(cells):07d}")


def _bench_conversation(rounds: int) -> Conversation:
    """bench/bench_export.py's conversation (a user cell, a plan, code with outputs, per Round)."""
    from bench.bench_export import conversation  # the repository's root is on pytest's pythonpath

    return conversation(rounds)


def _hostile_conversation() -> Conversation:
    conversation = Conversation.init()
    conversation.add_round(analysis_round(HOSTILE))
    conversation.add_round(analysis_round("**bold**, [a link](javascript:alert(1)) and `code`"))
    return conversation


def _export(conversation: Conversation, out: Path, source_dir: Path) -> bytes:
    # Ids the export itself makes (a plan derived from the Planner's posts gets a new one each time) are
    # random in every export: one constant hex for them, so the pins do not hang on how many are made.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(secrets, "token_hex", lambda n=32: "0" * (2 * n))
        export_notebook(conversation, out, source_dir=source_dir, redact=redactor_for(None).redact_data)
    return out.read_bytes()


def _same_as_pinned(name: str, written: bytes) -> None:
    _skip_unless_same_pygments()
    pinned = PINNED / f"{name}.ipynb"
    if REGENERATE:
        pinned.parent.mkdir(parents=True, exist_ok=True)
        pinned.write_bytes(written)
    expected = pinned.read_bytes()
    if written != expected:
        diff = difflib.unified_diff(
            expected.decode().splitlines(), written.decode().splitlines(), "pinned", "exported", lineterm=""
        )
        pytest.fail(
            f"{name}: the export differs from {pinned.name}:\n" + "\n".join(itertools.islice(diff, 40))
        )


@pytest.mark.parametrize("name", list(FILES))
def test_a_taskweaver_file_exports_to_its_pinned_notebook(tmp_path, deterministic, name):
    path = FILES[name]
    written = _export(load_conversation_file(path), tmp_path / f"{name}.ipynb", path.parent)
    _same_as_pinned(name, written)


def test_the_benchmarks_conversation_exports_to_its_pinned_notebook(tmp_path, deterministic):
    written = _export(_bench_conversation(2), tmp_path / "bench.ipynb", tmp_path)
    _same_as_pinned("bench", written)


def test_hostile_text_exports_to_its_pinned_notebook(tmp_path, deterministic):
    written = _export(_hostile_conversation(), tmp_path / "hostile.ipynb", tmp_path)
    _same_as_pinned("hostile", written)


@pytest.mark.parametrize("name", list(DIGESTED))
def test_a_repository_conversation_exports_to_its_pinned_digest(tmp_path, deterministic, name):
    path = DIGESTED[name]
    written = _export(load_conversation_file(path), tmp_path / f"{name}.ipynb", path.parent)
    _skip_unless_same_pygments()
    digest = hashlib.sha256(written).hexdigest()
    digests = json.loads(DIGESTS.read_text()) if DIGESTS.exists() else {}
    if REGENERATE:
        digests[name] = digest
        DIGESTS.parent.mkdir(parents=True, exist_ok=True)
        DIGESTS.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    assert digest == digests[name], f"{name}: the export's SHA-256 is not the pinned one"


def test_the_pins_name_the_pygments_they_were_made_with():
    assert _pinned_with().get("pygments")


def test_the_pinning_is_itself_deterministic(tmp_path, deterministic, monkeypatch):
    """Two exports under the fixture are the same bytes (else the pins above could only flake)."""
    first = _export(_hostile_conversation(), tmp_path / "a" / "hostile.ipynb", tmp_path)
    hexes, cells = itertools.count(), itertools.count()
    monkeypatch.setattr(
        secrets, "token_hex", lambda n=32: hashlib.sha256(str(next(hexes)).encode()).hexdigest()[: 2 * n]
    )
    monkeypatch.setattr(twnb.replay.nodes, "random_cell_id", lambda: f"c{next(cells):07d}")
    second = _export(_hostile_conversation(), tmp_path / "b" / "hostile.ipynb", tmp_path)
    assert first == second
