"""Errors the roles layer raises."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from twnb.memory import Post

TranslationErrorKind = Literal["missing", "truncated", "invalid", "missing_keys", "invalid_value"]


class TranslationError(ValueError):
    """An LLM reply that cannot become a Post.

    ``str(error)`` says what is wrong in words a role can quote back to the model in a revise message.
    ``partial_post`` holds what was parsed before the problem (the message and attachments so far,
    ``extra["reasoning"]``); ``raw_text`` is the whole reply as received. ``kind``: ``missing`` (no
    JSON object), ``truncated``, ``invalid`` (not valid JSON), ``missing_keys``, ``invalid_value``
    (a role's own rule, from ``validate``).
    """

    def __init__(
        self,
        message: str,
        *,
        kind: TranslationErrorKind = "invalid_value",
        partial_post: Post | None = None,
        raw_text: str = "",
    ) -> None:
        super().__init__(message)
        self.kind: TranslationErrorKind = kind
        self.partial_post = partial_post
        self.raw_text = raw_text
