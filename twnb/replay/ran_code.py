"""The code a CodeInterpreter post ran, read from its attachments without building a notebook cell.

Reading a notebook back (`read_notebook`: `twnb export NOTEBOOK -o CONV.yaml`, `load`) compares the
code its cells show with the code its metadata recorded, and `name_sources.py` asks what recorded code
reads: both need only the code and whether it failed. `notebook_cells.py` builds a piece's outputs
as nbformat nodes, and importing nbformat at all imports its validator (jsonschema, rfc3987_syntax:
~1.3 s, measured by bench/bench_export_startup.py), which reading a notebook back never uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from twnb.memory import Attachment, Post

RAN = frozenset({"SUCCESS", "FAILURE"})  # TaskWeaver's execution_status when the code ran (NONE: it did not)


@dataclass(frozen=True)
class RanCode:
    code: str
    status: str  # one of RAN, upper case

    @property
    def failed(self) -> bool:
        return self.status == "FAILURE"


def ran_code(post: Post) -> RanCode | None:
    """The code `post` ran, or None (no code, a text reply, code that was refused or never ran)."""
    if post_text(post, "reply_type") != "python":
        return None
    status = (post_text(post, "execution_status") or "").upper()
    code = post_text(post, "reply_content")
    if status not in RAN or code is None:
        return None
    return RanCode(code, status)


def post_text(post: Post, kind: str) -> str | None:
    """The content of `post`'s attachment of type `kind`, as text, or None when it has none."""
    attachment = post_attachment(post, kind)
    if attachment is None:
        return None
    return attachment.content if isinstance(attachment.content, str) else str(attachment.content)


def post_attachment(post: Post, kind: str) -> Attachment | None:
    return next((a for a in post.attachment_list if a.type.value == kind), None)
