"""The corpus of Round payloads the JupyterLab extension's unit tests read (labextension/test/fixtures).

Each is what twnb writes into a notebook today (`round_bundle`'s MIME payload), for every decision a
person can make in step mode (a stop before the code ran too), a failed and an interrupted Round, a
Round with a file and an image artifact, a 500-post Round, the user's own cells before a Round, a
replay that drifted, and an older payload saved before Rounds carried their view. Written by
`tests/render/test_view_fixtures.py`, so the TypeScript tests always read what the Python code makes.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from support.nb_rounds import HOSTILE, analysis_round

from twnb.memory import Attachment, AttachmentType, Post, Round
from twnb.memory.ledger import Ledger, LedgerEntry
from twnb.render import MIME_TYPE, plan_from_round, round_bundle

FIXTURES = Path(__file__).resolve().parents[2] / "labextension" / "test" / "fixtures"
PLAN, CODE = 1, 2  # analysis_round's Planner post with the plan, and its CodeInterpreter post
# A 1x1 PNG: a preview's bytes, small enough to keep in the repository.
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201a1c4"
        "b0d20000000049454e44ae426082"
    )
).decode("ascii")


def _payload(round: Round, previews: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    bundle = round_bundle(round, session_id="fixture", plan=plan_from_round(round), previews=previews)
    return bundle[MIME_TYPE]


def _decided(index: int, **extra: Any) -> Callable[[], dict[str, Any]]:
    def build() -> dict[str, Any]:
        round = analysis_round()
        round.post_list[index].extra.update(extra)
        if extra.get("skipped_by"):
            coder = round.post_list[CODE]
            coder.attachment_list = [a for a in coder.attachment_list if a.type.value != "execution_status"]
        return _payload(round)

    return build


def _stopped_after_refusal() -> dict[str, Any]:
    round = analysis_round()
    coder = round.post_list[CODE]
    coder.attachment_list = [
        a for a in coder.attachment_list if a.type.value not in ("execution_status", "execution_result")
    ]
    coder.extra["refused_edit"] = {"code": "import subprocess\nstopped = 1", "refusal": "Line 1: no"}
    del round.post_list[3:]
    round.change_round_state("failed")
    round.extra["failure_reason"] = "Stopped by the user (interrupted) before the code ran."
    return _payload(round)


def _stopped() -> dict[str, Any]:
    """Stop pressed while the code waited: it never ran (execution_status NONE, as the session records)."""
    round = analysis_round()
    coder = round.post_list[CODE]
    for attachment in coder.attachment_list:
        if attachment.type.value == "execution_status":
            attachment.content = "NONE"
        if attachment.type.value == "execution_result":
            attachment.content = "Not run: the user stopped the Round before this code ran."
    del round.post_list[3:]
    round.change_round_state("failed")
    round.extra["failure_reason"] = "Interrupted: stopped by the user; every post made so far is kept."
    return _payload(round)


def _skipped_after_refusal() -> dict[str, Any]:
    round = analysis_round()
    coder = round.post_list[CODE]
    refused = {"code": "import os\nos.system('ls')", "refusal": "Line 2: no"}
    coder.extra.update({"skipped_by": "User", "refused_edit": refused})
    coder.attachment_list = [a for a in coder.attachment_list if a.type.value != "execution_status"]
    return _payload(round)


def _failed() -> dict[str, Any]:
    round = analysis_round()
    coder = round.post_list[CODE]
    for attachment in coder.attachment_list:
        if attachment.type.value == "execution_status":
            attachment.content = "FAILURE"
        if attachment.type.value == "execution_result":
            attachment.content = "Traceback (most recent call last):\n    m = mean(x)\nNameError: name 'x'"
    del round.post_list[3:]
    round.change_round_state("failed")
    round.extra["failure_reason"] = "The LLM call failed: ConnectError"
    return _payload(round)


def _interrupted() -> dict[str, Any]:
    round = analysis_round()
    del round.post_list[2:]
    round.change_round_state("failed")
    round.extra["failure_reason"] = "Interrupted by the user (KeyboardInterrupt)."
    return _payload(round)


def _artifacts() -> dict[str, Any]:
    round = analysis_round(message="Saved [unusual_weeks.csv](unusual_weeks.csv); see `weeks` and the plot.")
    paths = ["unusual_weeks.csv", "twnb-artifacts/plot.png", ".twnb/hidden.png"]
    round.post_list[CODE].add_attachment(Attachment.create(AttachmentType.artifact_paths, paths))
    ledger = Ledger(
        duration_s=3.2,
        entries=[
            LedgerEntry("llm", "Planner", start_s=0.0, duration_s=1.0, input_tokens=900, output_tokens=60),
            LedgerEntry("code", "CodeInterpreter", start_s=1.0, duration_s=0.5, status="success"),
            LedgerEntry("llm", "Planner", start_s=1.6, duration_s=1.5, input_tokens=600, output_tokens=60),
        ],
    )
    round.extra["ledger"] = ledger.to_dict()
    previews = [{"path": "twnb-artifacts/plot.png", "mime": "image/png", "size": 70, "data": PNG}]
    return _payload(round, previews)


def _hostile() -> dict[str, Any]:
    return _payload(
        analysis_round(message=f"{HOSTILE} [x](javascript:alert(1)) ![i](https://e.example/x.png)")
    )


def _many_posts() -> dict[str, Any]:
    round = Round.create("Go through 500 steps.")
    round.add_post(Post.create("Go through 500 steps.", "User", "Planner"))
    for index in range(249):
        round.add_post(Post.create(f"Step {index}.", "Planner", "CodeInterpreter"))
        coder = Post.create(f"Did {index}.", "CodeInterpreter", "Planner")
        coder.add_attachment(Attachment.create(AttachmentType.reply_content, f"x{index} = {index}"))
        coder.add_attachment(Attachment.create(AttachmentType.execution_status, "SUCCESS"))
        round.add_post(coder)
    round.add_post(Post.create("All 249 done.", "Planner", "User"))
    round.change_round_state("finished")
    return _payload(round)


def _older() -> dict[str, Any]:
    """A payload as twnb wrote it before Rounds carried their view (and, older still, no twnb object)."""
    payload = copy.deepcopy(_decided(CODE, skipped_by="User")())
    del payload["twnb"]["view"]
    return payload


def _oldest() -> dict[str, Any]:
    payload = copy.deepcopy(_payload(analysis_round()))
    del payload["twnb"]
    return payload


def _newer() -> dict[str, Any]:
    payload = copy.deepcopy(_payload(analysis_round()))
    payload["twnb"]["view"]["version"] = 99
    payload["twnb"]["view"]["sparkles"] = ["a fact this extension does not know"]
    return payload


def _user_cells() -> dict[str, Any]:
    """A Round after the user's own cells: one that loaded the data, one that raised."""
    round = analysis_round()
    round.extra["user_cells"] = [
        {
            "source": "import pandas as pd\nsales = pd.read_csv('coffee_sales.csv')",
            "execution_count": 3,
            "error": None,
            "variables": [{"name": "pd", "kind": "created"}, {"name": "sales", "kind": "created"}],
        },
        {"source": f"# {HOSTILE}\nsales.nope", "execution_count": 4, "error": "AttributeError: nope"},
    ]
    return _payload(round)


def _replayed() -> dict[str, Any]:
    """A Round replayed from a cassette whose requests drifted from the recording."""
    round = analysis_round()
    round.extra["replay"] = {"cassette": "q.cassette.yaml", "drift": ["Replay call 1 (Planner) drifted"]}
    return _payload(round)


def _undone() -> dict[str, Any]:
    """A Round the user undid (`%taskweaver undo`), one object of it over the undo budget."""
    round = analysis_round()
    round.extra["undo_limits"] = ["`big` (6.1 GB) changed in place cannot be undone"]
    round.extra["undone"] = {
        "undone_at": "2026-12-01T12:00:00+00:00",
        "line": f"Undone by the user: removed m. Not undone: `big` (6.1 GB) changed in place cannot be "
        f"undone {HOSTILE}.",
        "forced": False,
        "restored": [],
        "removed": ["m"],
        "files_restored": [],
        "files_moved": {},
        "not_undone": ["`big` (6.1 GB) changed in place cannot be undone"],
    }
    return _payload(round)


def _risky() -> dict[str, Any]:
    """Risky step mode: the code paused (and why), the user ran it, and the runtime guard saw it do
    something verification had not predicted."""
    round = analysis_round()
    round.post_list[CODE].extra.update(
        approved_by="User",
        risk={
            "paused_for": ["it overwrites sales.csv, which exists (line 1: df.to_csv('sales.csv'))"],
            "unpredicted": ["deletes a file that existed before: notes.txt"],
        },
    )
    return _payload(round)


BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "plain": lambda: _payload(analysis_round()),
    "plan-approved": _decided(PLAN, approved_by="User"),
    "plan-edited": _decided(PLAN, edited_by="User"),
    "code-approved": _decided(CODE, approved_by="User"),
    "code-edited": _decided(CODE, edited_by="User"),
    "code-skipped": _decided(CODE, skipped_by="User"),
    "refused-then-skipped": _skipped_after_refusal,
    "refused-then-stopped": _stopped_after_refusal,
    "stopped": _stopped,
    "failed": _failed,
    "interrupted": _interrupted,
    "artifacts": _artifacts,
    "hostile": _hostile,
    "many-posts": _many_posts,
    "older-without-view": _older,
    "oldest-without-twnb": _oldest,
    "newer-view": _newer,
    "user-cells": _user_cells,
    "replayed": _replayed,
    "undone": _undone,
    "risky": _risky,
}
