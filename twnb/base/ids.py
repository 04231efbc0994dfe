"""Ids made exactly as TaskWeaver makes them.

`create_id()` ids carry a UTC timestamp and 8 hex characters; TaskWeaver's `from_dict` gives 12 hex
characters and no date (`loaded_id`). Both shapes are kept so ids from either source look the same;
the data model puts its prefixes (`post-`, `round-`, ...) before them.
"""

from __future__ import annotations

import re
import secrets

from twnb.base.clock import now_compact


def create_id(length: int = 4) -> str:
    """`20261130-003717-3a751f84`: UTC time, then `length` random bytes as hex."""
    return f"{now_compact()}-{secrets.token_hex(length)}"


def loaded_id(prefix: str) -> str:
    """The id TaskWeaver's `from_dict`/`from_yaml` give: prefix plus 12 hex characters."""
    return prefix + secrets.token_hex(6)


# What a session, conversation, Round or post id may be once read from a file: it names a folder or
# a file (`<session_dir>/<session_id>/rounds/<round_id>.yaml`, `twnb-undone/<round_id>/`), so no
# separator, no `..`, no leading dot, nothing a file system reads as a path.
_PLAIN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")


def is_plain_id(value: object) -> bool:
    """Letters, digits, `-` and `_` (at most 128, starting with a letter or digit): safe as a file name."""
    return isinstance(value, str) and _PLAIN_ID.fullmatch(value) is not None
