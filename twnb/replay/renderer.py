"""The static Round renderer as replay uses it: the one module here that names where it lives."""

from twnb.session.round_bundle import (
    MIME_TYPE,
    artifact_previews,
    clean_text,
    escape_markdown,
    plan_from_round,
    plan_to_dict,
    round_bundle,
)

__all__ = [
    "MIME_TYPE",
    "artifact_previews",
    "clean_text",
    "escape_markdown",
    "plan_from_round",
    "plan_to_dict",
    "round_bundle",
]
