"""Ids made exactly as TaskWeaver makes them.

`create()` ids carry a UTC timestamp and 8 hex characters; TaskWeaver's `from_dict` gives 12 hex
characters and no date. Both shapes are kept so ids from either source look the same.
"""

from __future__ import annotations

import secrets

from twnb.memory.clock import now_compact

POST_PREFIX = "post-"
ROUND_PREFIX = "round-"
CONVERSATION_PREFIX = "conv-"
ATTACHMENT_PREFIX = "atta-"
SHARED_MEMORY_ENTRY_PREFIX = "sme-"


def create_id(length: int = 4) -> str:
    """`20261130-003717-3a751f84`: UTC time, then `length` random bytes as hex."""
    return f"{now_compact()}-{secrets.token_hex(length)}"


def loaded_id(prefix: str) -> str:
    """The id TaskWeaver's `from_dict`/`from_yaml` give: prefix plus 12 hex characters."""
    return prefix + secrets.token_hex(6)
