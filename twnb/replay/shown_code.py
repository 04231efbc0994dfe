"""An exported notebook's recorded code (its metadata) must be the code its cells show.

A reader judges a notebook by its cells; `%taskweaver load` and `load --rerun` act on the conversation
in `metadata.twnb`, and `--check` labels cells by it. When the two disagree (a shown cell edited by
hand, code added to the metadata that no cell shows) the notebook is refused in one line naming the
cell: what runs is then never other than what a reader sees.

Compared, per Round: the code of each cell marked as the Round's (`twnb.cell` "code") with the code
its post recorded; each Round code that succeeded (what `load --rerun` runs) must have a cell; the
user's own cells (`twnb.cell` "user") with the Round's recorded user cells, in order. Undone Rounds'
code is shown as text, never run, and not compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from twnb.memory import Conversation
from twnb.replay.errors import ReplayError
from twnb.replay.ran_code import ran_code

_EXPORT_AGAIN = "export it again from its conversation (twnb export CONV.yaml -o NOTEBOOK.ipynb)"


def refuse_code_not_shown(nb: Mapping[str, Any], conversation: Conversation, path: Path) -> None:
    """ReplayError naming the first cell whose shown code differs from the recorded code."""
    cells = [c for c in nb.get("cells") or [] if isinstance(c, Mapping)]
    numbers = {round.id: number for number, round in enumerate(conversation.rounds, start=1)}
    recorded: dict[str, tuple[str, str, bool]] = {}  # post id -> (round id, code, succeeded)
    for round in conversation.rounds:
        for post in round.post_list:
            ran = ran_code(post)
            if ran is not None and not round.undone:
                recorded[post.id] = (round.id, ran.code, not ran.failed)
    shown_posts: set[str] = set()
    shown_user: dict[str, list[tuple[int, str]]] = {}
    for position, cell in enumerate(cells, start=1):
        meta = _twnb(cell)
        source = _source(cell)
        if cell.get("cell_type") == "code" and meta.get("cell") == "code":
            post_id = str(meta.get("post_id", ""))
            if post_id not in recorded:
                continue  # code the conversation does not hold: compared with its own outputs only
            round_id, code, _ = recorded[post_id]
            if source != code:
                raise ReplayError(
                    f"{path}: cell {position} shows code that differs from the code Round "
                    f"{numbers.get(round_id, '?')} recorded in the notebook's metadata "
                    f"({_first_difference(code, source)}); refused: {_EXPORT_AGAIN}"
                )
            shown_posts.add(post_id)
        elif cell.get("cell_type") == "code" and meta.get("cell") == "user":
            shown_user.setdefault(str(meta.get("round_id", "")), []).append((position, source))
    for post_id, (round_id, _, succeeded) in recorded.items():
        if succeeded and post_id not in shown_posts:
            raise ReplayError(
                f"{path}: Round {numbers.get(round_id, '?')}'s code in the notebook's metadata is shown "
                f"in no cell (load --rerun would run it unseen); refused: {_EXPORT_AGAIN}"
            )
    for round in conversation.rounds:
        _compare_user_cells(round.id, round.extra, shown_user.get(round.id, []), numbers[round.id], path)


def _compare_user_cells(
    round_id: str, extra: Any, shown: list[tuple[int, str]], number: int, path: Path
) -> None:
    cells = extra.get("user_cells") if isinstance(extra, Mapping) else None
    kept = [
        str(c["source"])
        for c in cells or []
        if isinstance(c, Mapping) and isinstance(c.get("source"), str) and not c.get("clipped")
    ]
    for index, source in enumerate(kept):
        if index >= len(shown):
            raise ReplayError(
                f"{path}: your cell {index + 1} before Round {number} in the notebook's metadata is shown "
                f"in no cell (load --rerun would run it unseen); refused: {_EXPORT_AGAIN}"
            )
        position, seen = shown[index]
        if seen != source:
            raise ReplayError(
                f"{path}: cell {position} shows code that differs from your cell recorded before Round "
                f"{number} in the notebook's metadata ({_first_difference(source, seen)}); refused: "
                f"{_EXPORT_AGAIN}"
            )
    if len(shown) > len(kept):
        position, _ = shown[len(kept)]
        raise ReplayError(
            f"{path}: cell {position} is marked as your cell before Round {number} but the notebook's "
            f"metadata records no such cell; refused: {_EXPORT_AGAIN}"
        )


def _first_difference(recorded: str, shown: str) -> str:
    old, new = recorded.splitlines(), shown.splitlines()
    for index in range(max(len(old), len(new))):
        before = old[index] if index < len(old) else ""
        after = new[index] if index < len(new) else ""
        if before != after:
            return f"line {index + 1}: recorded {_clip(before)!r}, shown {_clip(after)!r}"
    return "in its line endings"


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _twnb(cell: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = cell.get("metadata")
    meta = metadata.get("twnb") if isinstance(metadata, Mapping) else None
    return meta if isinstance(meta, Mapping) else {}


def _source(cell: Mapping[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)
