"""The static Round renderer as replay uses it: the one module here that names where it lives."""

from twnb.render import MIME_TYPE, artifact_previews, plan_from_round, round_bundle
from twnb.render.markdown_escape import escape_markdown
from twnb.render.payload import plan_to_dict
from twnb.render.text import clean_text

__all__ = [
    "MIME_TYPE",
    "artifact_previews",
    "clean_text",
    "escape_markdown",
    "plan_from_round",
    "plan_to_dict",
    "round_bundle",
]
