"""The one way twnb clips text: at most `limit` characters, and a cut always says so."""

from __future__ import annotations

from typing import Literal


def clip(
    text: str,
    limit: int | None,
    *,
    one_line: bool = False,
    keep: Literal["start", "ends"] = "start",
    count: bool = False,
) -> str:
    """`text` cut to `limit` characters (None: the whole text).

    - `one_line`: runs of whitespace become one space first (headers, digests, table cells).
    - `keep="start"`: the start stays and an ellipsis ends it, within `limit`; with `count`, the
      start keeps `limit` characters and a line after it says how many more there were (outputs).
    - `keep="ends"`: the start and the end stay (where errors and answers are), the middle goes.
    """
    if one_line:
        text = " ".join(text.split())
    if limit is None or len(text) <= limit:
        return text
    if keep == "ends":
        return text[: limit // 2] + "\n... (clipped) ...\n" + text[-limit // 2 :]
    if count:
        return text[:limit].rstrip() + f"\n… ({len(text) - limit} more characters)"
    return text[: max(limit - 1, 0)].rstrip() + "…"
